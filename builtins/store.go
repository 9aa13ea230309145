package builtins

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/textdist"
	"github.com/rlmhq/rlm/sandbox"
)

// StoreView is the read-only view of the variable store that store_get and
// store_keys give model code: the keys a run may read, the store opened on
// first use, and no write path. It is safe for concurrent use (the steps
// of child runs share their root's view).
type StoreView struct {
	// Open opens the store on first use. An error wrapping
	// rlmctx.ErrNotFound means there is no store yet: nothing is readable
	// and Open is called again next time.
	Open func() (*rlmctx.Store, error)
	// Prefixes are the key prefixes the code may read (those the user
	// passed).
	Prefixes []string
	// Keys are the keys the code may read exactly (those the user passed).
	Keys []string
	// Children is the key prefix under which the run's rlm_query
	// children's outputs are stored as they end ("" for none), readable
	// too; unlike Prefixes, its keys are not listed in the root prompt,
	// which must not depend on what the run itself stored.
	Children string
	// MaxBytes refuses values larger than this many characters or items'
	// bytes, as for context variables (0: no cap).
	MaxBytes int64

	mu  sync.Mutex
	st  *rlmctx.Store
	err error
}

// ErrStoreKey is wrapped by store_get's errors for a key that is missing
// or that the run may not read.
var ErrStoreKey = errors.New("builtins: store key not readable")

// Allowed reports whether the view lets code read key.
func (v *StoreView) Allowed(key string) bool {
	return v.Children != "" && strings.HasPrefix(key, v.Children) || v.given(key)
}

// given reports whether key was given to the run (a key or a prefix).
func (v *StoreView) given(key string) bool {
	if slices.Contains(v.Keys, key) {
		return true
	}
	for _, p := range v.Prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// Close closes the store if it was opened.
func (v *StoreView) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.st == nil {
		return nil
	}
	err := v.st.Close()
	v.st, v.err = nil, rlmctx.ErrStoreClosed
	return err
}

func (v *StoreView) store() (*rlmctx.Store, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.st == nil && v.err == nil {
		if v.Open == nil {
			v.err = rlmctx.ErrNoStore
		} else {
			v.st, v.err = v.Open()
		}
	}
	st, err := v.st, v.err
	if errors.Is(err, rlmctx.ErrNotFound) {
		v.err = nil // no store yet: a child result may create it
	}
	return st, err
}

// readable lists the metadata of the keys code may read that start with
// prefix, sorted by key.
func (v *StoreView) readable(prefix string) ([]rlmctx.Meta, error) {
	st, err := v.store()
	if errors.Is(err, rlmctx.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []rlmctx.Meta
	for _, m := range st.List(rlmctx.Filter{}) {
		if strings.HasPrefix(m.Key, prefix) && v.Allowed(m.Key) {
			out = append(out, m)
		}
	}
	return out, nil
}

// store_keys(prefix="", summaries=False)
// List the stored keys this run may read (its rlm_query children's results, under the run's id, and keys given to the run) that start with prefix; returns a list of dicts {key, type, size_bytes, version}, without loading any value unless summaries=True adds each one's summary, as for a context variable.
func storeKeys(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	prefix, summaries := "", false
	if err := unpack(thread, name, args, kwargs, "prefix?", &prefix, "summaries?", &summaries); err != nil {
		return nil, err
	}
	if h.Store == nil {
		return nil, noStore(name)
	}
	metas, err := h.Store.readable(prefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := make([]starlark.Value, 0, len(metas))
	for _, m := range metas {
		d := starlark.NewDict(4)
		d.SetKey(starlark.String("key"), starlark.String(m.Key))
		d.SetKey(starlark.String("type"), starlark.String(string(m.Type)))
		d.SetKey(starlark.String("size_bytes"), starlark.MakeInt64(m.SizeBytes))
		d.SetKey(starlark.String("version"), starlark.MakeInt64(m.Version))
		if summaries {
			sum, err := h.Store.summary(m.Ref)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			d.SetKey(starlark.String("summary"), starlark.String(sum))
			if err := sandbox.Interrupted(thread); err != nil {
				return nil, err
			}
		}
		out = append(out, d)
	}
	return starlark.NewList(out), nil
}

// store_get(key)
// Return the stored value of key (read-only: a str, list or dict, e.g. a run's outputs {answer, ...}), loaded when called; see store_keys() for the keys this run may read.
func storeGet(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var key string
	if err := unpack(thread, name, args, kwargs, "key", &key); err != nil {
		return nil, err
	}
	if h.Store == nil {
		return nil, noStore(name)
	}
	if !h.Store.Allowed(key) {
		return nil, h.Store.keyError(name, key, "is not readable by this run")
	}
	st, err := h.Store.store()
	if errors.Is(err, rlmctx.ErrNotFound) {
		return nil, h.Store.keyError(name, key, "is not in the store")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ref, err := st.Ref(key)
	if errors.Is(err, rlmctx.ErrNotFound) {
		return nil, h.Store.keyError(name, key, "is not in the store")
	}
	if err != nil {
		return nil, fmt.Errorf("%s(%q): %w", name, key, err)
	}
	if max := h.Store.MaxBytes; max > 0 && ref.SizeBytes > max {
		return nil, &sandbox.PyError{
			Kind: "MemoryError",
			Msg: fmt.Sprintf(
				"%s(%q): the value has %d bytes, over the %d bytes a context variable may have; ask for it in a run that loads it as a variable",
				name,
				key,
				ref.SizeBytes,
				max,
			),
			Err: ErrStoreKey,
		}
	}
	// The size was checked against MaxBytes above, before loading.
	val, _, err := st.GetRef(key)
	if errors.Is(err, rlmctx.ErrNotFound) {
		return nil, h.Store.keyError(name, key, "is not in the store")
	}
	if err != nil {
		return nil, fmt.Errorf("%s(%q): %w", name, key, err)
	}
	sv, err := sandbox.FromGo(val)
	if err != nil {
		return nil, fmt.Errorf("%s(%q): %w", name, key, err)
	}
	if err := sandbox.Interrupted(thread); err != nil {
		return nil, err
	}
	return sv, nil
}

// summary is the context-variable summary of ref's value (a value over
// MaxBytes is not loaded; a key deleted meanwhile says so).
func (v *StoreView) summary(ref rlmctx.Ref) (string, error) {
	if v.MaxBytes > 0 && ref.SizeBytes > v.MaxBytes {
		return fmt.Sprintf("%s, %d bytes: over the size limit, not loaded", ref.Type, ref.SizeBytes), nil
	}
	st, err := v.store()
	if err != nil {
		return "", err
	}
	cv, err := st.Describe(ref.Key)
	if errors.Is(err, rlmctx.ErrNotFound) {
		return "(deleted meanwhile)", nil
	}
	if err != nil {
		return "", err
	}
	return cv.Summary(), nil
}

func noStore(name string) error {
	return &sandbox.PyError{Kind: "RuntimeError", Msg: name + ": no store is readable in this run", Err: ErrStoreKey}
}

// keyError is a KeyError for key naming the readable keys nearest to it.
func (v *StoreView) keyError(name, key, why string) error {
	msg := fmt.Sprintf("%s: key %q %s", name, key, why)
	if near := v.nearKeys(key, 5); len(near) > 0 {
		msg += "; readable keys near it: " + strings.Join(near, ", ")
	} else {
		msg += "; no key is readable (store_keys() lists them)"
	}
	return &sandbox.PyError{Kind: "KeyError", Msg: msg, Err: ErrStoreKey}
}

// nearKeys returns up to n readable keys, those sharing the longest prefix
// with key (then the smallest edit distance) first.
func (v *StoreView) nearKeys(key string, n int) []string {
	metas, err := v.readable("")
	if err != nil {
		return nil
	}
	type cand struct {
		key          string
		common, dist int
	}
	cands := make([]cand, 0, len(metas))
	for _, m := range metas {
		cands = append(cands, cand{m.Key, commonPrefix(key, m.Key), textdist.Levenshtein(key, m.Key)})
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.common != b.common {
			return a.common > b.common
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return a.key < b.key
	})
	out := make([]string, 0, min(n, len(cands)))
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, fmt.Sprintf("%q", c.key))
	}
	return out
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
