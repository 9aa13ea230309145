package builtins_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
)

// storeEnv is a session whose store holds a run's child results and a
// few other keys; the view lets it read run1/... and the key "given".
func storeEnv(t *testing.T, maxBytes int64) (*env, *rlmctx.Store) {
	t.Helper()
	dir := t.TempDir()
	st, err := rlmctx.OpenStore(rlmctx.StoreConfig{Dir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	answer := rlmctx.NewDict(2)
	answer.Set("answer", "forty-two")
	answer.Set("confidence", 0.9)
	for key, val := range map[string]any{
		"run1/run1.1.abc123": answer,
		"run1/run1.2.def456": "a longer text\nof two lines\n",
		"run2/run2.1.abc123": "another run's child",
		"given":              []any{int64(1), int64(2), int64(3)},
		"secret":             "not passed to the run",
	} {
		_, err := st.Set(key, val, rlmctx.WithPersist())
		require.NoError(t, err)
	}
	view := &builtins.StoreView{
		Open:     func() (*rlmctx.Store, error) { return rlmctx.OpenStore(rlmctx.StoreConfig{Dir: dir}) },
		Prefixes: []string{"run1/"},
		Keys:     []string{"given"},
		MaxBytes: maxBytes,
	}
	t.Cleanup(func() { view.Close() })
	return newEnv(t, &builtins.Host{Store: view}, nil), st
}

func TestStoreGet(t *testing.T) {
	e, _ := storeEnv(t, 0)
	tests := []struct {
		code, want string
	}{
		{`r = store_get("run1/run1.1.abc123"); print(r["answer"], r["confidence"], type(r))`, "forty-two 0.9 <class 'dict'>\n"},
		{`print(store_get(key="run1/run1.2.def456").splitlines())`, "['a longer text', 'of two lines']\n"},
		{`print(sum(store_get("given")))`, "6\n"},
		{`print([k["key"] for k in store_keys()])`, "['given', 'run1/run1.1.abc123', 'run1/run1.2.def456']\n"},
		{`print([(k["key"], k["type"], k["version"]) for k in store_keys("run1/run1.2")])`, "[('run1/run1.2.def456', 'text', 1)]\n"},
		{`print(store_keys("nothing"))`, "[]\n"},
		{
			`print([k["summary"] for k in store_keys("run1/", summaries=True)])`,
			`['json dict of 2 keys, 42 bytes, 16 tokens, keys [answer, confidence]; preview {"answer": "forty-two", "confidence": 0.9}', 'text, 27 bytes, 8 tokens, 2 lines; preview "a longer text\\nof two lines\\n"']` + "\n",
		},
		{`print("summary" in store_keys()[0])`, "False\n"},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			assert.Equal(t, tc.want, e.run(tc.code))
		})
	}
}

func TestStoreGetErrors(t *testing.T) {
	e, _ := storeEnv(t, 8)
	tests := []struct {
		code, kind string
		contains   []string
	}{
		// A key another run owns, or one not given: not readable, and not
		// told apart from a missing key's existence.
		{
			`store_get("run2/run2.1.abc123")`,
			"KeyError",
			[]string{`"run2/run2.1.abc123" is not readable by this run`, `readable keys near it: "run1/run1.1.abc123"`},
		},
		{`store_get("secret")`, "KeyError", []string{"is not readable by this run"}},
		// A readable prefix whose key is missing: the nearest keys.
		{
			`store_get("run1/run1.1.abc124")`,
			"KeyError",
			[]string{`"run1/run1.1.abc124" is not in the store`, `near it: "run1/run1.1.abc123", "run1/run1.2.def456"`},
		},
		// Over the size cap of a context variable.
		{`store_get("run1/run1.2.def456")`, "MemoryError", []string{"over the 8 bytes a context variable may have"}},
		{`store_get(1)`, "TypeError", []string{"key"}},
		{`store_get()`, "TypeError", []string{"missing required argument 'key'"}},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			_, err := e.exec(tc.code)
			msg := scriptErr(t, err, tc.kind)
			for _, c := range tc.contains {
				assert.Contains(t, msg, c)
			}
		})
	}
}

// TestStoreReadOnly: the view has no write path; a value read and changed
// by the code leaves the stored value as it was.
func TestStoreReadOnly(t *testing.T) {
	e, st := storeEnv(t, 0)
	e.run(`g = store_get("given"); g.append(4); r = store_get("run1/run1.1.abc123"); r["answer"] = "changed"`)
	v, err := st.Get("given")
	require.NoError(t, err)
	assert.Equal(t, []any{int64(1), int64(2), int64(3)}, v)
	assert.Equal(t, "[1, 2, 3]\nforty-two\n", e.run(`print(store_get("given")); print(store_get("run1/run1.1.abc123")["answer"])`))
	for _, name := range []string{"store_set", "store_put", "store_delete"} {
		_, err := e.exec(name + `("given", 1)`)
		assert.Error(t, err, name)
	}
}

func TestStoreNone(t *testing.T) {
	e := newEnv(t, nil, nil)
	for _, code := range []string{`store_get("k")`, `store_keys()`} {
		_, err := e.exec(code)
		assert.Contains(t, scriptErr(t, err, "RuntimeError"), "no store is readable in this run")
	}
	// A view whose store does not exist yet: nothing to read, no error.
	v := &builtins.StoreView{Prefixes: []string{"run/"}, Open: func() (*rlmctx.Store, error) {
		return nil, rlmctx.ErrNotFound
	}}
	e = newEnv(t, &builtins.Host{Store: v}, nil)
	assert.Equal(t, "[]\n", e.run(`print(store_keys())`))
	_, err := e.exec(`store_get("run/x")`)
	assert.Contains(t, scriptErr(t, err, "KeyError"), `"run/x" is not in the store; no key is readable`)
}
