package builtins

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/sandbox"
)

// SUBMIT(outputs=None, **kwargs)
// Finish the run with a dict of outputs or keyword arguments, e.g. SUBMIT(answer=x); futures are resolved first.
func submit(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rest []starlark.Tuple
	var outputs starlark.Value = starlark.None
	if err := unpack(thread, name, args, kwargs, "outputs?", &outputs, "**outputs", &rest); err != nil {
		return nil, err
	}
	out := rlmctx.NewDict(len(rest) + 1)
	switch v := outputs.(type) {
	case starlark.NoneType:
		if len(rest) == 0 && len(args) == 0 {
			return nil, typeErr("%s: no outputs given; call %s(answer=...) or %s({'answer': ...})", name, name, name)
		}
		if len(args) > 0 {
			if err := setOutput(thread, name, out, "answer", v); err != nil {
				return nil, err
			}
		}
	case starlark.IterableMapping:
		for _, kv := range v.Items() {
			k, ok := kv[0].(starlark.String)
			if !ok {
				return nil, typeErr("%s: output names must be str, got %s key %s", name, pyTypeName(kv[0]), sandbox.Repr(kv[0]))
			}
			if err := setOutput(thread, name, out, string(k), kv[1]); err != nil {
				return nil, err
			}
		}
	default:
		// A bare value is taken as the answer, as models often write SUBMIT(x).
		if err := setOutput(thread, name, out, "answer", v); err != nil {
			return nil, err
		}
	}
	for _, kv := range rest {
		if err := setOutput(thread, name, out, string(kv[0].(starlark.String)), kv[1]); err != nil {
			return nil, err
		}
	}
	return nil, &SubmitError{Outputs: out, Alias: name}
}

// FINAL(answer)
// Finish the run with answer as the output 'answer'.
func final(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var answer starlark.Value
	if err := unpack(thread, name, args, kwargs, "answer", &answer); err != nil {
		return nil, err
	}
	out := rlmctx.NewDict(1)
	if err := setOutput(thread, name, out, "answer", answer); err != nil {
		return nil, err
	}
	return nil, &SubmitError{Outputs: out, Alias: name}
}

// FINAL_VAR(name)
// Finish the run with the value of the variable called name as the output 'answer'.
func finalVar(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := unpack(thread, name, args, kwargs, "name", &v); err != nil {
		return nil, err
	}
	if s, ok := v.(starlark.String); ok {
		if found, ok := lookupVar(h, thread, string(s)); ok {
			v = found
		} else if isIdentifier(string(s)) {
			var names []string
			for _, nv := range userVars(h, thread) {
				names = append(names, nv.name)
			}
			defined := "no variables are defined"
			if len(names) > 0 {
				defined = "defined: " + strings.Join(names, ", ")
			}
			return nil, sandbox.Errorf("NameError", "%s: no variable named '%s' (%s); pass the variable's name as a string, e.g. FINAL_VAR(\"answer\")", name, string(s), defined)
		}
		// Otherwise the string is not a name: take it as the answer itself.
	}
	out := rlmctx.NewDict(1)
	if err := setOutput(thread, name, out, "answer", v); err != nil {
		return nil, err
	}
	return nil, &SubmitError{Outputs: out, Alias: name}
}

// setOutput resolves futures in v (raising the error of a failed one) and
// stores its Go form under key.
func setOutput(thread *starlark.Thread, helper string, out *rlmctx.Dict, key string, v starlark.Value) error {
	if err := checkFutures(thread, v); err != nil {
		return fmt.Errorf("%s: output '%s': %w", helper, key, err)
	}
	g, err := sandbox.ToGoOn(thread, v)
	if err != nil {
		var pe *sandbox.PyError
		if errors.As(err, &pe) {
			return &sandbox.PyError{
				Kind: pe.Kind,
				Msg:  fmt.Sprintf("%s: output '%s' cannot be submitted: %s", helper, key, pe.Msg),
				Err:  pe,
			} // pe kept: its origin (sandbox.RaisedByCode)
		}
		if stoppedByLimit(err) {
			return err // a limit stopped the step during the conversion: report the limit
		}
		return typeErr("%s: output '%s' cannot be submitted: %v", helper, key, err)
	}
	out.Set(key, g)
	return nil
}

// checkFutures waits for the futures inside v and returns the error of the
// first that failed.
func checkFutures(thread *starlark.Thread, v starlark.Value) error {
	fc := futureCheck{thread: thread, seen: map[starlark.Value]bool{}}
	return fc.check(v, 0)
}

// futureCheck waits for the futures inside a value and returns the error
// of the first that failed. Each container is visited once (shared and
// cyclic values cost no more than their size) and no deeper than
// sandbox.MaxRenderDepth (the conversion that follows reports that depth).
type futureCheck struct {
	thread *starlark.Thread
	seen   map[starlark.Value]bool
}

func (fc *futureCheck) check(v starlark.Value, depth int) error {
	if depth >= sandbox.MaxRenderDepth {
		return nil
	}
	if c, ok := v.(*childHandle); ok {
		v = c.Future
	}
	switch v.(type) {
	case *deferred.Future, *starlark.List, *starlark.Dict:
		if fc.seen[v] {
			return nil
		}
		fc.seen[v] = true
	}
	switch v := v.(type) {
	case *deferred.Future:
		got, err := v.Wait(sandbox.ThreadContext(fc.thread))
		if err != nil {
			return fmt.Errorf("%s failed: %w", v.Label(), err)
		}
		return fc.check(got, depth+1)
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		for i := 0; i < seq.Len(); i++ {
			if err := fc.check(seq.Index(i), depth+1); err != nil {
				return err
			}
		}
	case starlark.IterableMapping:
		for _, kv := range v.Items() {
			if err := fc.check(kv[1], depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// Outputs returns the outputs carried by err if it wraps a *SubmitError.
func Outputs(err error) (*rlmctx.Dict, bool) {
	var se *SubmitError
	if errors.As(err, &se) {
		return se.Outputs, true
	}
	return nil, false
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}
