package main

import (
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
)

// storeReadUsage documents --store-read for rlm run, exec and repl.
const storeReadUsage = "let the code read store `KEY` with store_get (repeatable; a trailing * reads every key with that prefix); keys loaded with --var NAME=store:KEY are readable too, and so are a kept run's rlm_query child results"

// storeView is the read-only store view of store_get and store_keys: the
// keys given with --store-read and --var NAME=store:KEY (a kept run's
// child results are added by runs.KeepChildren). It is nil when nothing
// is readable, so the helpers stay out of the prompt.
func storeView(storeDir string, vars, reads []string, maxBytes int64) *builtins.StoreView {
	v := &builtins.StoreView{MaxBytes: maxBytes, Open: storeOpener(storeDir)}
	for _, r := range reads {
		if p, ok := strings.CutSuffix(r, "*"); ok {
			v.Prefixes = append(v.Prefixes, p)
		} else {
			v.Keys = append(v.Keys, r)
		}
	}
	for _, raw := range vars {
		if spec, err := rlmctx.ParseVarSpec(raw); err == nil {
			if key, ok := strings.CutPrefix(spec.Source, rlmctx.StorePrefix); ok {
				v.Keys = append(v.Keys, key)
			}
		}
	}
	if len(v.Prefixes) == 0 && len(v.Keys) == 0 {
		return nil
	}
	return v
}

// storeOpener opens the store in storeDir for reading: reading must not
// create an empty store by accident.
func storeOpener(storeDir string) func() (*rlmctx.Store, error) {
	return func() (*rlmctx.Store, error) {
		if err := storeExists(storeDir); err != nil {
			return nil, err
		}
		return rlmctx.OpenStore(rlmctx.StoreConfig{Dir: storeDir})
	}
}

// storeReads collects repeated --store-read KEY flags.
type storeReads []string

func (s *storeReads) String() string { return strings.Join(*s, " ") }

// Set takes one key, or a prefix ending in *.
func (s *storeReads) Set(key string) error {
	if strings.TrimSuffix(key, "*") == "" {
		return fmt.Errorf("%w: --store-read: empty key (give a key, or a prefix ending in *)", errUsage)
	}
	*s = append(*s, key)
	return nil
}
