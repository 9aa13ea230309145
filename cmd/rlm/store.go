package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
)

func init() {
	register(&command{name: "store", summary: "manage the persistent variable store", run: runStore})
}

const storeSynopsis = `[--store DIR] <subcommand> [flags] [args]

subcommands:
  put KEY SOURCE [--scope S] [--type T] [--persist]   store a file, directory, - (stdin) or store:KEY
  ls [--scope S] [--type T]                           list variables (scope "agent:*" matches by prefix)
  show KEY                                            print the ref and a summary
  cat KEY                                             print the value (text raw, others as JSON)
  rm KEY...                                           delete variables
  clear                                               delete every variable
  fsck [--repair]                                     check the store; --repair rebuilds damaged
                                                      metadata and moves unreadable entries to
                                                      DIR/.quarantine (nothing is deleted)
  summarize KEY [--tokens N] [model flags]            print a summary written by the sub-model (cached by content hash)`

func runStore(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "store", storeSynopsis)
	dir := storeDirFlag(fs, env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return &exitError{code: 2, err: errors.New("")}
	}
	sub, rest := fs.Arg(0), fs.Args()[1:]
	run, ok := storeSubcommands[sub]
	if !ok {
		fs.Usage()
		return fmt.Errorf("%w: unknown store subcommand %q (use put, ls, show, cat, rm, clear, fsck or summarize)", errUsage, sub)
	}
	return withFsckAdvice(run(ctx, env, *dir, rest))
}

// withFsckAdvice adds to errors about unreadable store entries what to do.
func withFsckAdvice(err error) error {
	switch {
	case errors.Is(err, rlmctx.ErrCorrupt):
		return fmt.Errorf("%w (nothing was deleted; rlm store fsck lists the problems, rlm store fsck --repair fixes them)", err)
	case errors.Is(err, rlmctx.ErrNewerFormat):
		return fmt.Errorf("%w (left untouched; use a newer rlm for this store)", err)
	}
	return err
}

var storeSubcommands = map[string]func(ctx context.Context, env *cliEnv, dir string, args []string) error{
	"put":   storePut,
	"ls":    storeLs,
	"show":  storeShow,
	"cat":   storeCat,
	"rm":    storeRm,
	"clear": storeClear,
	"fsck":  storeFsck,
}

// parseInterleaved parses flags that may come before, between or after
// positional arguments (rlm store put KEY SOURCE --scope S).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if len(args) > 0 && args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// storeExists fails (wrapping rlmctx.ErrNotFound) if the store directory
// does not exist.
func storeExists(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf(
			"%w: the store %s does not exist (add values with rlm store put or rlm run --save KEY, which stores a run's outputs; or pass --store DIR or set RLM_STORE)",
			rlmctx.ErrNotFound,
			dir,
		)
	}
	return nil
}

// openCLIStore opens the store and reports its warnings on stderr. Only
// put creates a missing store: the other subcommands say it is missing
// (a mistyped --store would otherwise look like an empty store).
func openCLIStore(env *cliEnv, dir string, create bool) (*rlmctx.Store, error) {
	if !create {
		if err := storeExists(dir); err != nil {
			return nil, err
		}
	}
	st, err := rlmctx.OpenStore(rlmctx.StoreConfig{Dir: dir})
	if err != nil {
		return nil, err
	}
	printStoreWarnings(env, st.Warnings())
	return st, nil
}

// printStoreWarnings prints the store's warnings, then where to go next.
func printStoreWarnings(env *cliEnv, warns []string) {
	for _, w := range warns {
		fmt.Fprintln(env.stderr, "warning:", termSafe(env.stderr, w))
	}
	if len(warns) > 0 {
		fmt.Fprintln(
			env.stderr,
			"hint: rlm store fsck lists the store's problems; rlm store fsck --repair fixes what it can without deleting anything",
		)
	}
}

func subFlags(env *cliEnv, dir *string, name, synopsis string) *flag.FlagSet {
	fs := newFlagSet(env, "store "+name, synopsis)
	fs.StringVar(dir, "store", *dir, "variable store `DIR` (default $RLM_STORE, else .rlm/store)")
	return fs
}

// storeArgs parses a subcommand's flags and positional arguments: exactly
// n of them, or at least one when n < 0.
func storeArgs(fs *flag.FlagSet, args []string, n int, what string) ([]string, error) {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, err
	}
	if (n >= 0 && len(pos) != n) || (n < 0 && len(pos) == 0) {
		fs.Usage()
		return nil, fmt.Errorf("%w: expected %s, got %d argument(s)", errUsage, what, len(pos))
	}
	return pos, nil
}

// openStoreCmd is storeArgs followed by opening the store.
func openStoreCmd(env *cliEnv, fs *flag.FlagSet, dir *string, args []string, n int, what string) (*rlmctx.Store, []string, error) {
	pos, err := storeArgs(fs, args, n, what)
	if err != nil {
		return nil, nil, err
	}
	st, err := openCLIStore(env, *dir, false)
	if err != nil {
		return nil, nil, err
	}
	return st, pos, nil
}

func storePut(ctx context.Context, env *cliEnv, dir string, args []string) error {
	fs := subFlags(env, &dir, "put", "KEY SOURCE [--scope S] [--type T] [--persist]")
	scope := fs.String("scope", rlmctx.ScopeGlobal, "scope: global, agent:ID or session:ID")
	typ := fs.String("type", "", "type (default inferred): text, json, conversation, files, tool_outputs, working_memory, custom:NAME")
	fs.Bool("persist", true, "persist the value (always on for the command line, which exits after storing)")
	pos, err := storeArgs(fs, args, 2, "KEY SOURCE")
	if err != nil {
		return err
	}
	key, source := pos[0], pos[1]
	t, err := rlmctx.ParseVarType(*typ)
	if err != nil {
		return fmt.Errorf("%w: --type: %v", errUsage, err)
	}
	if err := rlmctx.ValidateScope(*scope); err != nil {
		return fmt.Errorf("%w: --scope: %v", errUsage, err)
	}
	st, err := openCLIStore(env, dir, true)
	if err != nil {
		return err
	}
	defer st.Close()
	// Warnings from the write itself (an unreadable entry moved aside).
	seen := len(st.Warnings())
	defer func() {
		for _, w := range st.Warnings()[seen:] {
			fmt.Fprintln(env.stderr, "warning:", termSafe(env.stderr, w))
		}
	}()
	if isPlainTextFile(source, t) {
		// Copied into the store without being read into memory.
		ref, err := st.SetTextFile(key, source, rlmctx.WithScope(*scope), rlmctx.WithStoreType(t))
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "stored %s\n", termSafe(env.stdout, fmt.Sprint(ref)))
		return nil
	}
	l, err := rlmctx.LoadSource(ctx, source, rlmctx.LoadOptions{Type: t, Stdin: env.stdin, Store: st})
	if err != nil {
		return err
	}
	for _, w := range l.Warnings {
		fmt.Fprintln(env.stderr, "warning:", termSafe(env.stderr, w))
	}
	ref, err := st.Set(key, l.Value, rlmctx.WithScope(*scope), rlmctx.WithStoreType(l.Type), rlmctx.WithPersist())
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "stored %s\n", termSafe(env.stdout, fmt.Sprint(ref)))
	return nil
}

func storeLs(ctx context.Context, env *cliEnv, dir string, args []string) error {
	fs := subFlags(env, &dir, "ls", "[--scope S] [--type T]")
	scope := fs.String("scope", "", "only this scope (a trailing * matches by prefix, e.g. agent:*)")
	typ := fs.String("type", "", "only this type")
	if _, err := storeArgs(fs, args, 0, "no arguments"); err != nil {
		return err
	}
	t, err := rlmctx.ParseVarType(*typ)
	if err != nil {
		return fmt.Errorf("%w: --type: %v", errUsage, err)
	}
	st, err := openCLIStore(env, dir, false)
	if err != nil {
		return err
	}
	defer st.Close()
	list := st.List(rlmctx.Filter{Scope: *scope, Type: t})
	tw := tabwriter.NewWriter(env.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tTYPE\tSCOPE\tSIZE\tVERSION\tUPDATED")
	for _, m := range list {
		fmt.Fprintf(
			tw,
			"%s\t%s\t%s\t%d\t%d\t%s\n",
			termSafe(env.stdout, quoteKey(m.Key)),
			m.Type,
			m.Scope,
			m.SizeBytes,
			m.Version,
			m.UpdatedAt.Format(time.RFC3339),
		)
	}
	return tw.Flush()
}

// quoteKey quotes keys that would garble a table.
func quoteKey(k string) string {
	if k == "" || strings.ContainsAny(k, " \t\n\r\"") {
		return fmt.Sprintf("%q", k)
	}
	return k
}

func storeShow(ctx context.Context, env *cliEnv, dir string, args []string) error {
	st, pos, err := openStoreCmd(env, subFlags(env, &dir, "show", "KEY"), &dir, args, 1, "KEY")
	if err != nil {
		return err
	}
	defer st.Close()
	v, err := st.Describe(pos[0])
	if err != nil {
		return err
	}
	ref, err := st.Ref(pos[0])
	if err != nil {
		return err
	}
	w := env.stdout
	fmt.Fprintf(w, "key:     %s\n", termSafe(w, ref.Key))
	fmt.Fprintf(w, "id:      %s\n", ref.ID)
	fmt.Fprintf(w, "type:    %s\n", ref.Type)
	fmt.Fprintf(w, "scope:   %s\n", ref.Scope)
	fmt.Fprintf(w, "size:    %d bytes\n", ref.SizeBytes)
	fmt.Fprintf(w, "version: %d\n", ref.Version)
	fmt.Fprintf(w, "created: %s\n", ref.CreatedAt.Format(time.RFC3339))
	fmt.Fprintf(w, "summary: %s\n", termSafe(w, v.Summary()))
	return nil
}

func storeCat(ctx context.Context, env *cliEnv, dir string, args []string) error {
	st, pos, err := openStoreCmd(env, subFlags(env, &dir, "cat", "KEY"), &dir, args, 1, "KEY")
	if err != nil {
		return err
	}
	defer st.Close()
	v, err := st.Get(pos[0])
	if err != nil {
		return err
	}
	if s, ok := v.(string); ok {
		_, err = io.WriteString(env.stdout, s)
		return err
	}
	if err := pyjson.Encode(env.stdout, v); err != nil {
		return err
	}
	_, err = io.WriteString(env.stdout, "\n")
	return err
}

func storeRm(ctx context.Context, env *cliEnv, dir string, args []string) error {
	st, pos, err := openStoreCmd(env, subFlags(env, &dir, "rm", "KEY..."), &dir, args, -1, "at least one KEY")
	if err != nil {
		return err
	}
	defer st.Close()
	for _, k := range pos {
		if err := st.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func storeClear(ctx context.Context, env *cliEnv, dir string, args []string) error {
	st, _, err := openStoreCmd(env, subFlags(env, &dir, "clear", ""), &dir, args, 0, "no arguments")
	if err != nil {
		return err
	}
	defer st.Close()
	n := len(st.List(rlmctx.Filter{}))
	if err := st.Clear(); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "removed %d variables from %s\n", n, dir)
	return nil
}

func storeFsck(ctx context.Context, env *cliEnv, dir string, args []string) error {
	fs := subFlags(env, &dir, "fsck", "[--repair]")
	repair := fs.Bool(
		"repair",
		false,
		"rebuild damaged metadata from intact values and move unreadable entries to DIR/.quarantine (nothing is deleted)",
	)
	if _, err := storeArgs(fs, args, 0, "no arguments"); err != nil {
		return err
	}
	if err := storeExists(dir); err != nil {
		return err
	}
	st, err := rlmctx.OpenStore(rlmctx.StoreConfig{Dir: dir}) // its warnings are the report's problems
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := st.Fsck(*repair)
	if err != nil {
		return err
	}
	w := env.stdout
	unfixed := 0
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "%s: %s: %s\n", p.Kind, quoteKey(p.File), p.Detail)
		switch {
		case p.Action == "rebuilt":
			fmt.Fprintf(
				w,
				"  rebuilt: key %s is readable again (type inferred, scope global; check with rlm store show)\n",
				quoteKey(p.Key),
			)
		case p.Action == "quarantined":
			for _, m := range p.Moved {
				fmt.Fprintf(w, "  moved to %s\n", m)
			}
			if p.Value != "" && p.Key != "" {
				fmt.Fprintf(w, "  to recover: rlm store --store %s put %s %s\n", shellQuote(dir), shellQuote(p.Key), shellQuote(p.Value))
			}
		case p.Kind == rlmctx.ProblemCorrupt || p.Kind == rlmctx.ProblemOrphan:
			unfixed++
		}
	}
	fmt.Fprintf(w, "%d readable variables, %d problems", rep.Entries, len(rep.Problems))
	if rep.Quarantine != "" {
		fmt.Fprintf(w, "; moved files are in %s (see its README.txt)", rep.Quarantine)
	}
	fmt.Fprintln(w)
	if unfixed > 0 {
		fmt.Fprintln(w, "run rlm store fsck --repair to rebuild or quarantine them (nothing is deleted)")
		return &exitError{code: 1, err: fmt.Errorf("store %s: %d problems need repair", dir, unfixed)}
	}
	return nil
}

// isPlainTextFile reports whether source is a regular file that would load
// as text.
func isPlainTextFile(source string, t rlmctx.VarType) bool {
	if source == "-" || strings.HasPrefix(source, rlmctx.StorePrefix) {
		return false
	}
	if t != "" && t != rlmctx.Text && !t.IsCustom() {
		return false
	}
	fi, err := os.Stat(source)
	return err == nil && fi.Mode().IsRegular() && rlmctx.FormatOf(source, t) == rlmctx.FormatText
}
