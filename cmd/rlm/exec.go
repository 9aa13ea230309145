package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rlmhq/rlm/repl"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/sandbox"
)

func init() {
	register(&command{name: "exec", summary: "run exploration code over context variables (works offline)", run: runExec})
}

const execSynopsis = "[--var NAME=SOURCE]... [--session FILE] [--store DIR] [model flags] [limits] [size limits] [-c CODE | SCRIPT | -]"

// sessionFlags are the flags rlm exec, rlm repl and rlm run share: the
// variables, the model and the per-step sandbox limits.
type sessionFlags struct {
	vars     varFlags
	session  string
	storeDir *string
	reads    storeReads
	models   modelFlags
	limits   limitFlags
	sizes    *rlmctx.SizeConfig
	clock    string
}

// register adds the flags to fs; observationTokens is the default of
// --observation-tokens.
func (f *sessionFlags) register(fs *flag.FlagSet, env *cliEnv, observationTokens int) {
	fs.Var(&f.vars, "var", varFlagUsage)
	fs.StringVar(&f.session, "session", "", "session `FILE` {messages, files, tool_outputs, memory} loaded as typed variables")
	f.storeDir = storeDirFlag(fs, env)
	fs.Var(&f.reads, "store-read", storeReadUsage)
	f.models.register(fs)
	f.limits.register(fs, observationTokens)
	f.sizes = registerSizeFlags(fs)
	fs.StringVar(
		&f.clock,
		"clock",
		"",
		"the `TIME` code reads as now (time.time(), datetime.now(), date.today()), e.g. 2026-01-02T03:04:05Z or 2026-01-02 (UTC); default: the recording's with --replay, else the real time at the start; the clock then advances one microsecond per read, never with the real time",
	)
}

// clockLayouts are the forms --clock accepts (without an offset: UTC).
var clockLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02",
}

// startClock is the time the sandbox's clock starts at: --clock, else
// the clock recorded in the --replay recording, else the real time. It
// also tells a --record recorder to record it.
func (f *sessionFlags) startClock() (time.Time, error) {
	t, err := f.pickClock()
	if err == nil {
		t = t.UTC().Truncate(time.Microsecond)
		f.models.clock = t
	}
	return t, err
}

func (f *sessionFlags) pickClock() (time.Time, error) {
	if f.clock != "" {
		for _, layout := range clockLayouts {
			if t, err := time.Parse(layout, f.clock); err == nil {
				return t, nil
			}
		}
		return time.Time{}, fmt.Errorf(
			"%w: --clock %q: want a time such as 2026-01-02T03:04:05Z, 2026-01-02T03:04:05+02:00 or 2026-01-02",
			errUsage,
			f.clock,
		)
	}
	if f.models.replay != "" {
		if m, err := llm.ReadRecordingMeta(f.models.replay); err == nil && !m.Clock.IsZero() {
			return m.Clock, nil
		}
	}
	return time.Now(), nil
}

// execSession is a sandbox session with the helpers and the variables
// loaded, offline when no model is configured.
type execSession struct {
	*repl.REPL
	close func() error
}

func newExecSession(ctx context.Context, env *cliEnv, name string, f *sessionFlags) (*execSession, error) {
	limits, err := f.limits.limits()
	if err != nil {
		return nil, err
	}
	softMemoryLimit(env, limits)
	host := &builtins.Host{Notes: env.stderr, Context: ctx}
	closeModel := func() error { return nil }
	cfg, err := f.models.config(env)
	if err != nil && !errors.Is(err, llm.ErrNoModel) {
		return nil, err
	}
	if cerr := checkVarNames(f.vars, false); cerr != nil {
		return nil, cerr
	}
	clock, cerr := f.startClock()
	if cerr != nil {
		return nil, cerr
	}
	// The variables before the model: a bad --var must not replace an
	// earlier --record recording with an empty one. A JSON document is
	// parsed once, for its outline and the REPL's values.
	c, warns, lerr := loadContextSized(env, "", f.vars, f.session, *f.storeDir, *f.sizes, repl.JSONValues, false)
	if lerr != nil {
		return nil, lerr
	}
	switch {
	case errors.Is(err, llm.ErrNoModel):
		// Offline: the helpers fall back (or explain) when they need a model.
		// Say why if a model was partly configured.
		if cfg.BaseURL != "" || cfg.APIKey != "" || cfg.Model != "" {
			fmt.Fprintf(env.stderr, "rlm %s: warning: running offline: %v\n", name, err)
		}
	default:
		model, emb, cl, err := f.models.chatModel(env, nil)
		if err != nil {
			return nil, err
		}
		host.Model, host.Embedder, closeModel = model, emb, cl
		host.SubModel = firstNonEmpty(cfg.SubModel, cfg.Model)
		host.EmbeddingModel = cfg.EmbeddingModel
		host.MaxOutputTokens = cfg.MaxOutputTokens
	}
	for _, w := range warns {
		fmt.Fprintf(env.stderr, "rlm %s: warning: %s\n", name, w)
	}
	host.Store = storeView(*f.storeDir, f.vars, f.reads, f.sizes.MaxTotalSize)
	if host.Store != nil {
		closeModel = closeBoth(closeModel, host.Store.Close)
	}
	vars := make([]repl.Var, len(c.Vars))
	for i, v := range c.Vars {
		vars[i] = repl.Var{Name: v.Name, Context: v}
	}
	r, err := repl.New(repl.Config{Host: host, Vars: vars, Limits: limits, Clock: clock})
	if err != nil {
		closeModel()
		return nil, err
	}
	releaseBeforeStep(f.vars)
	return &execSession{REPL: r, close: closeModel}, nil
}

// closeBoth returns a function calling a then b, returning the first error.
func closeBoth(a, b func() error) func() error {
	return func() error {
		err := a()
		if berr := b(); err == nil {
			err = berr
		}
		return err
	}
}

// exec runs one step. Deferred operations are settled afterwards (the
// barrier), so the next step sees them resolved.
func (s *execSession) exec(ctx context.Context, code string) (*sandbox.Result, error) {
	res, err := s.Exec(ctx, code)
	if werr := s.Settle(ctx); werr != nil && err == nil {
		err = werr
	}
	return res, err
}

// shutdown cancels pending operations and closes the model (recorder).
func (s *execSession) shutdown() error {
	s.Close()
	err := s.close()
	s.close = func() error { return nil }
	return err
}

// writeScriptError writes err as a Python-style traceback, followed by
// how to configure a model when a helper needed one.
func writeScriptError(w io.Writer, err error) {
	var se *sandbox.ScriptError
	if errors.As(err, &se) && se.Traceback != "" {
		fmt.Fprintln(w, strings.TrimRight(se.Traceback, "\n"))
	} else {
		fmt.Fprintln(w, err)
	}
	if errors.Is(err, llm.ErrNoModel) {
		fmt.Fprintln(w, "(no model is configured: "+noModelHelp+")")
	}
}

// submitJSON renders SUBMIT's outputs as one line of JSON.
func submitJSON(err error) (string, bool, error) {
	outs, ok := builtins.Outputs(err)
	if !ok {
		return "", false, nil
	}
	b, jerr := json.Marshal(outs)
	if jerr != nil {
		return "", true, fmt.Errorf("SUBMIT outputs: %w", jerr)
	}
	return string(b), true, nil
}

func runExec(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "exec", execSynopsis)
	var f sessionFlags
	f.register(fs, env, sandbox.DefaultObservationTokens)
	code := fs.String("c", "", "`CODE` to run (instead of SCRIPT)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	src, err := execSource(env, fs, *code, f.vars)
	if err != nil {
		return err
	}
	s, err := newExecSession(ctx, env, "exec", &f)
	if err != nil {
		return err
	}
	defer s.shutdown()

	res, err := s.exec(ctx, src)
	io.WriteString(env.stdout, res.Output)
	if err == nil {
		return s.shutdown()
	}
	if out, ok, jerr := submitJSON(err); ok {
		if jerr != nil {
			return jerr
		}
		fmt.Fprintln(env.stdout, out)
		return s.shutdown()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	writeScriptError(env.stderr, err)
	return &exitError{code: 1, err: errors.New("")}
}

// execSource returns the code to run from -c, a script file or stdin (-).
func execSource(env *cliEnv, fs *flag.FlagSet, code string, vars varFlags) (string, error) {
	set := false
	fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == "c" })
	switch {
	case set && fs.NArg() > 0:
		return "", fmt.Errorf("%w: pass either -c CODE or a SCRIPT, not both", errUsage)
	case set:
		return code, nil
	case fs.NArg() == 0:
		return "", fmt.Errorf("%w: no code: pass -c CODE, a SCRIPT file, or - to read the code from stdin", errUsage)
	case fs.NArg() > 1:
		return "", fmt.Errorf("%w: one SCRIPT only, got %d arguments (flags go before the script)", errUsage, fs.NArg())
	case fs.Arg(0) == "-":
		for _, v := range vars {
			if strings.HasSuffix(v, "=-") {
				return "", fmt.Errorf("%w: --var %s reads stdin, so the code cannot: pass it with -c or a SCRIPT file", errUsage, v)
			}
		}
		b, err := io.ReadAll(env.stdin)
		if err != nil {
			return "", fmt.Errorf("reading code from stdin: %w", err)
		}
		return string(b), nil
	}
	b, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return "", fmt.Errorf("%w: %v", errUsage, err)
	}
	return string(b), nil
}
