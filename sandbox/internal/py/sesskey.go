package py

import "github.com/rlmhq/rlm/internal/starlark/starlark"

// A sessionKey names a value that a module keeps per session (the random
// module's generator, uuid4's, the decimal context), so that the Session
// holds it without naming its type. The key's init makes the value on its
// first use in a session; the session keeps it for its life.
type SessionKey[T any] struct {
	Init func(s *State) T
}

// in returns k's value in s, made on first use.
func (k *SessionKey[T]) in(s *State) T {
	s.keyedMu.Lock()
	defer s.keyedMu.Unlock()
	v, ok := s.keyed[k]
	if !ok {
		v = k.Init(s)
		if s.keyed == nil {
			s.keyed = map[any]any{}
		}
		s.keyed[k] = v
	}
	return v.(T)
}

// Of returns k's value in the session whose step runs on thread, made on
// first use; ok is false when no session's step runs on thread.
func (k *SessionKey[T]) Of(thread *starlark.Thread) (v T, ok bool) {
	if thread == nil {
		return v, false
	}
	st := StepOf(thread)
	if st == nil {
		return v, false
	}
	return k.in(st.State), true
}
