package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/runs"
)

func init() {
	register(&command{name: "runs", summary: "list, show and remove the kept run directories", run: runRuns})
}

// keepFlags are rlm run's flags about its run directory.
type keepFlags struct {
	runsDir string
	noKeep  bool
	resume  string
	save    string
	// fromDivergence: with resume, go on past a divergence.
	fromDivergence bool

	fs          *flag.FlagSet // rlm run's flags, to see which were set
	run         *runs.Run     // the kept run, once started
	storeDir    string
	saveVersion int64 // --save KEY's version in the store at the start
	children    *runs.ChildSaver
	saveErr     error    // --save failed
	secrets     []string // the endpoint's (llm.Config.Secrets), kept out of the run's files
}

func (k *keepFlags) register(fs *flag.FlagSet) {
	k.fs = fs
	fs.StringVar(
		&k.runsDir,
		"runs-dir",
		"",
		"keep the run in a directory under `DIR` (default $RLM_RUNS_DIR, else runs/ next to the store: .rlm/runs)",
	)
	fs.BoolVar(&k.noKeep, "no-keep", false, "do not keep the run (no run directory: it cannot be resumed)")
	fs.StringVar(
		&k.resume,
		"resume",
		"",
		"continue the interrupted or stopped run `ID` (see rlm runs ls); only budgets, endpoint and output flags may be given with it",
	)
	fs.BoolVar(
		&k.fromDivergence,
		"from-divergence",
		false,
		"with --resume: if a re-executed step comes out differently (a newer rlm, a changed module or input), go on live from there "+
			"with a resume-context message to the model instead of stopping; the steps before it are replayed, and the trajectory records where and why",
	)
	fs.StringVar(
		&k.save,
		"save",
		"",
		"write the SUBMIT outputs to the store under `KEY` when the run succeeds (compare-and-swap: fails if KEY changed during the run); later runs load them with --var NAME=store:KEY",
	)
}

// runsRootDir is the runs directory: dir if set, else $RLM_RUNS_DIR, else
// runs/ next to the store directory.
func runsRootDir(env *cliEnv, dir, storeDir string) string {
	if dir != "" {
		return dir
	}
	if env.getenv != nil {
		if d := env.getenv("RLM_RUNS_DIR"); d != "" {
			return d
		}
	}
	return filepath.Join(filepath.Dir(filepath.Clean(storeDir)), "runs")
}

// resumeFlags are the flags rlm run --resume accepts: budgets, the
// endpoint's transport and what is printed. Anything else would change
// the requests, so the recorded answers would no longer match.
var resumeFlags = map[string]bool{
	"resume": true, "runs-dir": true, "store": true, "from-divergence": true,
	"max-llm-calls": true, "max-tokens": true, "max-cost": true, "timeout": true, "max-active-time": true, "max-total-iterations": true,
	"max-errors": true, "base-url": true, "api-key": true, "request-timeout": true, "max-retries": true, "max-concurrency": true, "rpm": true, "tpm": true,
	"prices": true, "cache-dir": true,
	"json": true, "quiet": true, "trajectory": true, "record": true, "save": true, "v": true, "verbose": true,
}

// notKept are the flags not stored in run.json: secrets, and choices
// that belong to one invocation.
var notKept = map[string]bool{
	"api-key": true, "resume": true, "runs-dir": true, "no-keep": true, "from-divergence": true,
	"json": true, "quiet": true, "trajectory": true, "record": true, "v": true, "verbose": true,
}

// pathFlags hold file names, stored as absolute paths so a resume from
// another directory reads the same files.
var pathFlags = map[string]bool{"meta": true, "session": true, "store": true, "prices": true, "replay": true, "cache-dir": true}

// resumeArgs checks the flags given with --resume and returns the stored
// arguments of the run to put before them. A flag that would change the
// run is refused naming the recorded and the given value; one given with
// the value the run recorded (the user's command run again with --resume
// appended) is accepted.
func (k *keepFlags) resumeArgs(env *cliEnv, storeDir string) ([]string, error) {
	var changed []*flag.Flag
	k.fs.Visit(func(f *flag.Flag) {
		if !resumeFlags[f.Name] {
			changed = append(changed, f)
		}
	})
	m, err := runs.NewRoot(runsRootDir(env, k.runsDir, storeDir)).Get(k.resume)
	if err != nil && len(changed) == 0 {
		return nil, err
	}
	var bad []string
	if err == nil {
		recorded := map[string][]string{}
		for _, a := range m.Args {
			name, val, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			recorded[name] = append(recorded[name], val)
		}
		for _, f := range changed {
			if !slices.Equal(keptValues(f), recorded[f.Name]) {
				bad = append(
					bad,
					fmt.Sprintf("--%s (recorded %q, given %q)", f.Name, strings.Join(recorded[f.Name], " "), f.Value.String()),
				)
			}
		}
	} else {
		for _, f := range changed {
			bad = append(bad, "--"+f.Name)
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%w: --resume continues a run with its recorded query, variables and settings; %s cannot be changed "+
			"(only budgets, the endpoint's transport and output flags)", errUsage, strings.Join(bad, ", "))
	}
	if len(m.Args) == 0 {
		return nil, fmt.Errorf("%w: %s records no arguments to start it again", runs.ErrNotResumable, k.resume)
	}
	// The flags given again with their recorded values come from the
	// command line: not twice (a repeated --var would name a variable twice).
	return slices.DeleteFunc(slices.Clone(m.Args), func(a string) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		return slices.ContainsFunc(changed, func(f *flag.Flag) bool { return f.Name == name })
	}), nil
}

// keptValues are f's values as keptArgs records them: paths absolute,
// each --var's file source absolute.
func keptValues(f *flag.Flag) []string {
	switch {
	case f.Name == "var":
		vs, _ := f.Value.(*varFlags)
		if vs == nil {
			return nil
		}
		out := make([]string, len(*vs))
		for i, v := range *vs {
			out[i] = keptVar(v)
		}
		return out
	case pathFlags[f.Name]:
		return []string{absPath(f.Value.String())}
	}
	return []string{f.Value.String()}
}

// keptVar is a --var as a kept run records it: a file source made absolute.
func keptVar(v string) string {
	if spec, err := rlmctx.ParseVarSpec(v); err == nil && spec.Source != "-" && !strings.HasPrefix(spec.Source, rlmctx.StorePrefix) {
		if name, _, ok := strings.Cut(v, "="); ok {
			return name + "=" + absPath(spec.Source)
		}
	}
	return v
}

// keptArgs are the arguments that start the run again: every flag set on
// the command line except secrets and per-invocation ones, paths made
// absolute, and the resolved model names (the recording's requests name
// them).
func keptArgs(fs *flag.FlagSet, f *runOptions, c llm.Config) []string {
	var args []string
	fs.Visit(func(fl *flag.Flag) {
		switch {
		case notKept[fl.Name] || fl.Name == "var" || fl.Name == "model" || fl.Name == "sub-model" || fl.Name == "embedding-model":
		case fl.Name == "base-url":
			args = append(args, "--base-url="+llm.RedactURL(fl.Value.String()))
		case pathFlags[fl.Name]:
			args = append(args, "--"+fl.Name+"="+absPath(fl.Value.String()))
		default:
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	for _, v := range f.vars {
		args = append(args, "--var="+keptVar(v))
	}
	if fs.Lookup("store") != nil && !isSet(fs, "store") {
		args = append(args, "--store="+absPath(*f.storeDir))
	}
	// The meta document the run used, from wherever it was found ($RLM_META
	// or next to the store), and its notes budget: a resume renders the
	// same lessons whatever the environment or the defaults say then.
	if !isSet(fs, "meta") && f.meta.resolved != "" {
		args = append(args, "--meta="+f.meta.resolved)
	}
	if !isSet(fs, "meta-notes-tokens") {
		args = append(args, fmt.Sprintf("--meta-notes-tokens=%d", f.meta.notesTokens))
	}
	for _, m := range []struct{ flag, name string }{{"model", c.Model}, {"sub-model", c.SubModel}, {"embedding-model", c.EmbeddingModel}} {
		if m.name != "" {
			args = append(args, "--"+m.flag+"="+m.name)
		}
	}
	return args
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func absPath(p string) string {
	if p == "" || p == "-" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// start creates (or, with --resume, reopens) the run directory. It returns
// nil with --no-keep.
func (k *keepFlags) start(env *cliEnv, f *runOptions, c *rlmctx.ExternalizedContext, cfg llm.Config) (*runs.Run, error) {
	k.secrets = cfg.Secrets()
	k.storeDir = *f.storeDir
	if k.save != "" {
		st, err := rlmctx.OpenStore(rlmctx.StoreConfig{Dir: k.storeDir})
		if err != nil {
			return nil, fmt.Errorf("--save: %w", err)
		}
		k.saveVersion, err = runs.StoreVersion(st, k.save)
		st.Close()
		if err != nil {
			return nil, fmt.Errorf("--save: %w", err)
		}
	}
	if k.fromDivergence && k.resume == "" {
		return nil, fmt.Errorf("%w: --from-divergence goes with --resume ID", errUsage)
	}
	if k.noKeep {
		if k.resume != "" {
			return nil, fmt.Errorf("%w: --resume and --no-keep cannot be used together", errUsage)
		}
		return nil, nil
	}
	root := runs.NewRoot(runsRootDir(env, k.runsDir, *f.storeDir))
	if k.resume != "" {
		var opts []runs.Option
		if k.fromDivergence {
			opts = append(opts, runs.FromDivergence())
		}
		r, err := root.Resume(k.resume, opts...)
		if err != nil {
			return nil, err
		}
		k.run = r
		if err := r.CheckVars(c); err != nil {
			return nil, errors.Join(err, r.Finish(runs.Outcome{}))
		}
		if d := r.Meta().MetaDigest; d != "" && d != f.notes.Digest {
			err := fmt.Errorf(
				"%w: %w (version %d then, %d now): its prompts would differ from the recorded ones; restore it with rlm steward rollback %d",
				runs.ErrNotResumable,
				errMetaChanged,
				r.Meta().MetaVersion,
				f.notes.Version,
				r.Meta().MetaVersion,
			)
			return nil, errors.Join(err, r.Finish(runs.Outcome{}))
		}
		if err := checkMeta(r.Meta(), f); err != nil {
			return nil, errors.Join(err, r.Finish(runs.Outcome{}))
		}
		if v := r.Meta().Version; v != "" && v != buildVersion() {
			fmt.Fprintf(
				env.stderr,
				"rlm run: warning: run %s was made by rlm %s, this is %s; the resume stops if a step comes out differently (with --from-divergence it goes on live from there)\n",
				r.ID(),
				v,
				buildVersion(),
			)
		}
		return r, nil
	}
	rc := runConfigRecord(cfg, f)
	r, err := root.Create(runs.Meta{
		Query: f.query, Config: &rc, ConfigDigest: runs.Digest(rc), Args: keptArgs(k.fs, f, cfg),
		VarHashes: runs.HashVars(c), Version: buildVersion(), MetaVersion: f.notes.Version, MetaDigest: f.notes.Digest,
		MetaPath: f.meta.resolved, MetaNotesTokens: &f.meta.notesTokens, MetaLessons: f.notes.Lessons,
	})
	if err != nil {
		return nil, fmt.Errorf("%w (pass --no-keep to run without a run directory, or --runs-dir DIR)", err)
	}
	k.run = r
	return r, nil
}

// checkMeta refuses a resume whose meta settings differ from the recorded
// ones (the document's file, the notes budget, the lessons rendered): its
// prompts would differ from the recorded ones. Runs from before they were
// recorded are checked by digest only.
func checkMeta(was runs.Meta, f *runOptions) error {
	if was.MetaNotesTokens == nil {
		return nil
	}
	var diff string
	switch {
	case was.MetaPath != f.meta.resolved:
		diff = fmt.Sprintf("it used %s, this resume %s", orNone(was.MetaPath), orNone(f.meta.resolved))
	case *was.MetaNotesTokens != f.meta.notesTokens:
		diff = fmt.Sprintf("its lessons had %d tokens, this resume %d", *was.MetaNotesTokens, f.meta.notesTokens)
	case !slices.Equal(was.MetaLessons, f.notes.Lessons):
		diff = fmt.Sprintf(
			"it rendered the lessons [%s], this resume [%s]",
			strings.Join(was.MetaLessons, " "),
			strings.Join(f.notes.Lessons, " "),
		)
	default:
		return nil
	}
	return fmt.Errorf("%w: %w: %s; its prompts would differ from the recorded ones", runs.ErrNotResumable, errMetaChanged, diff)
}

func orNone(path string) string {
	if path == "" {
		return "no meta document"
	}
	return path
}

// keepChildren makes a kept run keep its child runs' results in the
// store and read them back (runs.KeepChildren); nothing when the run is
// not kept.
func (k *keepFlags) keepChildren(cfg *orchestrator.Config, open func() (*rlmctx.Store, error), maxBytes int64) {
	if k.run == nil {
		return
	}
	dir := k.storeDir
	k.children = &runs.ChildSaver{RunID: k.run.ID(), Secrets: k.secrets, Open: func() (*rlmctx.Store, error) {
		return rlmctx.OpenStore(rlmctx.StoreConfig{Dir: dir})
	}}
	runs.KeepChildren(cfg, k.children, open, maxBytes)
}

// saveOutputs writes the outputs of a successful run for --save, and
// reports where the child results went.
func (k *keepFlags) saveOutputs(env *cliEnv, res *orchestrator.Result, quiet bool) error {
	if k.children != nil {
		keys, err := k.children.Close()
		if err != nil {
			fmt.Fprintln(env.stderr, "rlm run: warning:", err)
		} else if len(keys) > 0 && !quiet {
			fmt.Fprintf(env.stderr, "rlm run: %d child result(s) stored in scope %s (rlm store ls --scope %s)\n", len(keys), runs.ChildScope(k.run.ID()), runs.ChildScope(k.run.ID()))
		}
	}
	if k.save == "" || res == nil {
		return nil
	}
	where := ""
	if k.run != nil {
		where = fmt.Sprintf("; the outputs are in %s", filepath.Join(k.run.Dir(), runs.ResultFile))
	}
	if res.Partial {
		return &exitError{
			code: 1,
			err:  fmt.Errorf("--save %s: not saved: the run stopped (%s) without a valid SUBMIT%s", k.save, res.StopReason, where),
		}
	}
	st, err := rlmctx.OpenStore(rlmctx.StoreConfig{Dir: k.storeDir})
	if err != nil {
		return fmt.Errorf("--save %s: %w%s", k.save, err, where)
	}
	defer st.Close()
	ref, err := runs.SaveOutputs(st, k.save, res.Outputs, k.saveVersion, k.secrets...)
	if err != nil {
		if errors.Is(err, rlmctx.ErrVersionMismatch) {
			err = fmt.Errorf("%w: another writer changed the key during the run", err)
		}
		return fmt.Errorf("--save: %w%s", err, where)
	}
	if !quiet {
		fmt.Fprintf(
			env.stderr,
			"rlm run: outputs saved to store key %s (version %d); use --var NAME=store:%s\n",
			ref.Key,
			ref.Version,
			ref.Key,
		)
	}
	return nil
}

// finish records the run's outcome in its directory and tells the user
// how to resume a run that did not finish.
//
// Only a resume that diverged fails here (its answer must not be
// printed); a --save failure is returned by [keepFlags.late] once the
// answer is printed, and a failure to write the run directory is a
// warning: the run itself succeeded.
func (k *keepFlags) finish(env *cliEnv, res *orchestrator.Result, quiet bool) error {
	if res != nil && (k.run == nil || k.run.Err() == nil) {
		k.saveErr = k.saveOutputs(env, res, quiet)
	}
	err := k.finishRun(env, res, quiet || k.saveErr != nil)
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	if err != nil {
		fmt.Fprintln(env.stderr, "rlm run: warning:", err)
	}
	return nil
}

// late returns the --save failure, if any, else err: called after the
// answer was printed.
func (k *keepFlags) late(err error) error {
	if k.saveErr != nil {
		return k.saveErr
	}
	return err
}

// finishRun records the outcome in the run directory.
func (k *keepFlags) finishRun(env *cliEnv, res *orchestrator.Result, quiet bool) error {
	if k.run == nil {
		return nil
	}
	var result []byte
	if res != nil {
		if b, err := resultJSON(res); err == nil {
			result = append([]byte(llm.RedactSecrets(string(b), k.secrets...)), '\n')
		}
	}
	o := runs.Outcome{Status: runs.StatusFailed}
	if res != nil {
		o = runs.OutcomeOf(res, result)
		o.Error = llm.RedactSecrets(o.Error, k.secrets...)
	}
	err := k.run.Finish(o)
	if derr := k.run.Err(); derr != nil {
		if errors.Is(derr, runs.ErrDiverged) {
			derr = fmt.Errorf("%w\nto go on from the last step that re-ran identically instead, with a resume-context message to the model: "+
				"rlm run --resume %s --from-divergence", derr, k.run.ID())
		}
		return &exitError{code: 1, err: derr}
	}
	if err != nil {
		return fmt.Errorf("run directory %s: %w", k.run.Dir(), err)
	}
	if res != nil && res.StopReason == orchestrator.StopModelError && res.Iterations == 0 && !k.run.Resumed() {
		// The model never answered: there is nothing to resume, so no run
		// is left behind to suggest it.
		if err := os.RemoveAll(k.run.Dir()); err != nil {
			return fmt.Errorf("run directory %s: %w", k.run.Dir(), err)
		}
		return nil
	}
	switch {
	case quiet:
	case o.Status != runs.StatusDone:
		fmt.Fprintf(env.stderr, "rlm run: run %s is kept in %s; continue it with: rlm run --resume %s (see it with: rlm view %s)\n",
			k.run.ID(), k.run.Dir(), k.run.ID(), k.run.ID())
	default:
		fmt.Fprintf(env.stderr, "rlm run: see the run step by step with: rlm view %s\n", k.run.ID())
	}
	return nil
}

const runsSynopsis = `[--runs-dir DIR] <subcommand> [flags] [args]

subcommands:
  ls [--json]                 list the kept runs, newest first
  show ID [--json]            print a run's record, files and answer
  rm ID...                    delete runs
  gc --older-than AGE         delete the runs started more than AGE ago (e.g. 30d, 12h)`

func runRuns(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "runs", runsSynopsis)
	dir := fs.String("runs-dir", "", "the runs `DIR` (default $RLM_RUNS_DIR, else runs/ next to $RLM_STORE, else .rlm/runs)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return &exitError{code: 2, err: errors.New("")}
	}
	store := defaultStoreDir
	if env.getenv != nil && env.getenv("RLM_STORE") != "" {
		store = env.getenv("RLM_STORE")
	}
	root := runs.NewRoot(runsRootDir(env, *dir, store))
	sub, rest := fs.Arg(0), fs.Args()[1:]
	sfs := newFlagSet(env, "runs "+sub, runsSynopsis)
	sfs.StringVar(&root.Dir, "runs-dir", root.Dir, "the runs `DIR`")
	jsonOut := sfs.Bool("json", false, "print JSON")
	older := sfs.String("older-than", "", "gc: delete runs started more than `AGE` ago, e.g. 30d, 12h")
	pos, err := parseInterleaved(sfs, rest)
	if err != nil {
		return err
	}
	switch sub {
	case "ls":
		if len(pos) > 0 {
			return fmt.Errorf("%w: rlm runs ls takes no arguments", errUsage)
		}
		return runsLs(env, root, *jsonOut)
	case "show":
		if len(pos) != 1 {
			return fmt.Errorf("%w: rlm runs show takes one run ID (see rlm runs ls)", errUsage)
		}
		return runsShow(env, root, pos[0], *jsonOut)
	case "rm":
		if len(pos) == 0 {
			return fmt.Errorf("%w: rlm runs rm takes run IDs (see rlm runs ls)", errUsage)
		}
		for _, id := range pos {
			if err := root.Remove(id); err != nil {
				return err
			}
			fmt.Fprintln(env.stdout, "removed", id)
		}
		return nil
	case "gc":
		if *older == "" || len(pos) > 0 {
			return fmt.Errorf("%w: rlm runs gc needs --older-than AGE, e.g. --older-than 30d", errUsage)
		}
		age, err := runs.ParseAge(*older)
		if err != nil {
			return fmt.Errorf("%w: --older-than: %v", errUsage, err)
		}
		ids, err := root.GC(age)
		for _, id := range ids {
			fmt.Fprintln(env.stdout, "removed", id)
		}
		if err == nil && !*jsonOut {
			fmt.Fprintf(env.stderr, "rlm runs gc: removed %d run(s) started more than %s ago\n", len(ids), *older)
		}
		return err
	}
	fs.Usage()
	return fmt.Errorf("%w: unknown runs subcommand %q (use ls, show, rm or gc)", errUsage, sub)
}

func runsLs(env *cliEnv, root *runs.Root, jsonOut bool) error {
	list, warns, err := root.List()
	if err != nil {
		return err
	}
	for _, w := range warns {
		fmt.Fprintln(env.stderr, "warning:", w)
	}
	if jsonOut {
		if list == nil {
			list = []runs.Meta{}
		}
		for i := range list {
			list[i].Config = nil
		}
		b, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, string(b))
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintf(env.stderr, "no runs in %s\n", root.Dir)
		return nil
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tSTATUS\tITER\tTOKENS\tCOST\tMETA\tQUERY")
	for _, m := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", m.ID, m.Started.Local().Format("2006-01-02 15:04"), statusText(m),
			m.Iterations, m.Tokens, costText(m.CostUSD), metaText(m), oneLine(m.Query, 60))
	}
	return tw.Flush()
}

// metaText is the meta document version a run used: v3, or "-" for none
// (or a run from before meta documents were recorded).
func metaText(m runs.Meta) string {
	if m.MetaVersion == 0 {
		return "-"
	}
	return fmt.Sprintf("v%d", m.MetaVersion)
}

func statusText(m runs.Meta) string {
	if m.StopReason != "" && m.Status != runs.StatusDone {
		return string(m.Status) + " (" + m.StopReason + ")"
	}
	return string(m.Status)
}

func costText(c *float64) string {
	if c == nil {
		return "?"
	}
	return fmt.Sprintf("$%.4f", *c)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func runsShow(env *cliEnv, root *runs.Root, id string, jsonOut bool) error {
	m, err := root.Get(id)
	if err != nil {
		return err
	}
	dir := root.Path(id)
	result, rerr := os.ReadFile(filepath.Join(dir, runs.ResultFile))
	if jsonOut {
		v := map[string]any{"run": m, "dir": dir}
		if rerr == nil && json.Valid(result) { // torn by a process killed while writing it
			v["result"] = json.RawMessage(result)
		}
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, string(b))
		return nil
	}
	w := env.stdout
	fmt.Fprintf(w, "id:         %s\n", m.ID)
	fmt.Fprintf(w, "dir:        %s\n", dir)
	fmt.Fprintf(w, "query:      %s\n", m.Query)
	fmt.Fprintf(w, "started:    %s\n", m.Started.Local().Format(time.RFC3339))
	if !m.Ended.IsZero() {
		fmt.Fprintf(w, "ended:      %s (%s)\n", m.Ended.Local().Format(time.RFC3339), m.Ended.Sub(m.Started).Round(time.Second))
	}
	for _, t := range m.Resumes {
		fmt.Fprintf(w, "resumed:    %s\n", t.Local().Format(time.RFC3339))
	}
	fmt.Fprintf(w, "status:     %s\n", statusText(m))
	if m.Error != "" {
		fmt.Fprintf(w, "error:      %s\n", m.Error)
	}
	fmt.Fprintf(
		w,
		"iterations: %d\ntokens:     %d\ncost:       %s\nconfig:     %s\n",
		m.Iterations,
		m.Tokens,
		costText(m.CostUSD),
		m.ConfigDigest,
	)
	for _, name := range []string{runs.TrajectoryFile, runs.RecordingFile, runs.ResultFile} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
			fmt.Fprintf(w, "file:       %s (%d bytes)\n", name, fi.Size())
		}
	}
	if ents, err := os.ReadDir(filepath.Join(dir, runs.OutputsDir)); err == nil {
		fmt.Fprintf(w, "outputs:    %d step output(s) in %s/\n", len(ents), runs.OutputsDir)
	}
	if rerr == nil {
		var r struct {
			Answer string `json:"answer"`
		}
		if json.Unmarshal(result, &r) == nil {
			fmt.Fprintf(w, "answer:\n%s\n", r.Answer)
		}
	} else if m.Status != runs.StatusRunning && m.Status != runs.StatusDone {
		fmt.Fprintf(w, "continue it with: rlm run --resume %s\n", m.ID)
	}
	return nil
}

// teeWriter writes to both writers (a is the --trajectory file, may be nil).
func teeWriter(a, b io.Writer) io.Writer {
	if a == nil {
		return b
	}
	return io.MultiWriter(a, b)
}
