package runs

import (
	"errors"
	"fmt"
	"sync"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
)

// StoreVersion is key's version in st, 0 when it is absent: the version a
// later [SaveOutputs] expects.
func StoreVersion(st *rlmctx.Store, key string) (int64, error) {
	ref, err := st.Ref(key)
	if errors.Is(err, rlmctx.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return ref.Version, nil
}

// SaveOutputs writes a run's SUBMIT outputs to st under key, persisted,
// with compare-and-swap: the write fails (wrapping
// rlmctx.ErrVersionMismatch) if key is no longer at version (0: absent),
// so outputs saved by another writer during the run are not clobbered.
// Each of secrets (the endpoint's keys, llm.Config.Secrets) is replaced by
// [REDACTED] in every string of the stored value, as in the trajectory.
func SaveOutputs(st *rlmctx.Store, key string, outputs *rlmctx.Dict, version int64, secrets ...string) (rlmctx.Ref, error) {
	if outputs == nil {
		return rlmctx.Ref{}, fmt.Errorf("runs: save %q: the run has no outputs", key)
	}
	ref, err := st.SetIfVersion(key, RedactValue(outputs, secrets...), version, rlmctx.WithPersist())
	if err != nil {
		return rlmctx.Ref{}, fmt.Errorf("runs: save %q: %w", key, err)
	}
	return ref, nil
}

// ChildKey is the store key of the result of child run child of kept run
// runID: RUNID/CHILD, in scope [ChildScope].
func ChildKey(runID, child string) string { return runID + "/" + child }

// ChildScope is the store scope of the child results of kept run runID:
// agent:RUNID.
func ChildScope(runID string) string { return rlmctx.AgentScope(runID) }

// ChildSaver persists the outputs of the child runs of a kept run to a
// store (the seed's persistForSubAgent): each under [ChildKey] in
// [ChildScope], so a later run can load one with --var NAME=store:KEY
// instead of copying it. The store is opened on the first child result.
type ChildSaver struct {
	RunID string
	Open  func() (*rlmctx.Store, error)
	// Store, if set, is an open store used instead of Open's (a server's
	// own); Close leaves it open.
	Store *rlmctx.Store
	// Secrets are redacted from the stored results (see [SaveOutputs]).
	Secrets []string

	mu    sync.Mutex
	st    *rlmctx.Store
	err   error
	saved []string
}

// Save is an orchestrator.Config.OnChildEnd hook.
func (c *ChildSaver) Save(id string, res *orchestrator.Result) {
	if res == nil || res.Outputs == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil && c.err == nil {
		if c.Store != nil {
			c.st = c.Store
		} else {
			c.st, c.err = c.Open()
		}
	}
	if c.err != nil {
		return
	}
	key := ChildKey(c.RunID, id)
	if _, err := c.st.Set(key, RedactValue(res.Outputs, c.Secrets...), rlmctx.WithScope(ChildScope(c.RunID)), rlmctx.WithPersist()); err != nil {
		c.err = fmt.Errorf("runs: persist child result %s: %w", key, err)
		return
	}
	c.saved = append(c.saved, key)
}

// Close closes the store and returns the keys saved and the first error.
func (c *ChildSaver) Close() ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st != nil && c.st != c.Store {
		c.st.Close()
	}
	c.st = nil
	return c.saved, c.err
}

// KeepChildren configures cfg, the run tree of kept run c.RunID, to keep
// its rlm_query children's results, as rlm run and rlm serve do: c saves
// each child's outputs as it ends (cfg.OnChildEnd), and, when the tree
// can start child RLMs (cfg.MaxDepth > 1), its code reads them back with
// store_get and store_keys through cfg.Store, which is made a view over
// open (values up to maxBytes) when nil.
func KeepChildren(cfg *orchestrator.Config, c *ChildSaver, open func() (*rlmctx.Store, error), maxBytes int64) {
	cfg.OnChildEnd = c.Save
	if cfg.MaxDepth <= 1 {
		return
	}
	if cfg.Store == nil {
		cfg.Store = &builtins.StoreView{Open: open, MaxBytes: maxBytes}
	}
	cfg.Store.Children = ChildKey(c.RunID, "")
}

// RedactValue returns v (a context value: strings, numbers, lists, dicts)
// with each secret replaced by [REDACTED] in every string and dict key, as
// llm.RedactSecrets does for text. v is not modified; without secrets it is
// returned as is.
func RedactValue(v any, secrets ...string) any {
	if len(secrets) == 0 {
		return v
	}
	return redactAny(v, secrets)
}

func redactAny(v any, secrets []string) any {
	switch x := v.(type) {
	case string:
		return llm.RedactSecrets(x, secrets...)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactAny(e, secrets)
		}
		return out
	case *rlmctx.Dict:
		if x == nil {
			return x
		}
		out := rlmctx.NewDict(x.Len())
		for k, e := range x.All() {
			out.Set(llm.RedactSecrets(k, secrets...), redactAny(e, secrets))
		}
		return out
	}
	return v
}
