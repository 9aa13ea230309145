package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rlmhq/rlm/meta"
	"github.com/rlmhq/rlm/runs"
	"github.com/rlmhq/rlm/steward"
)

func init() {
	register(
		&command{
			name:    "steward",
			summary: "keep the meta document from the evidence of kept runs (propose, review, apply, rollback, drift, backfill)",
			run:     runSteward,
		},
	)
}

const stewardSynopsis = `<subcommand> [flags] [args]

subcommands:
  propose [--since AGE] [--bench FILE]...   read the kept runs and write proposals (add or retire a lesson, change a budget)
  review [--json]                           list the pending proposals with their evidence
  apply ID... | --all                       validate and apply proposals as a new meta version (logged in the changelog)
  rollback VERSION [--reason TEXT]          restore an earlier meta version as a new one (logged)
  log [--json]                              print the changelog
  drift [--window N] [--since AGE]          compare recent runs with the ones before; exit 3 on significant drift
  backfill                                  migrate older trajectories and recompute their derived data (idempotent)

Files: the meta document (--meta, default .rlm/meta.json), its proposals
(meta.proposals.json), changelog (meta.changelog.jsonl) and snapshots
(meta.history/) beside it; the runs in --runs-dir (default .rlm/runs).`

// stewardUsage is the synopsis of subcommand sub: its line of
// stewardSynopsis, without the description.
func stewardUsage(sub string) string {
	for _, line := range strings.Split(stewardSynopsis, "\n") {
		if rest, ok := strings.CutPrefix(line, "  "+sub+" "); ok {
			args, desc, _ := strings.Cut(strings.TrimSpace(rest), "   ")
			return strings.TrimSpace(args) + "\n\n" + strings.TrimSpace(desc)
		}
	}
	return ""
}

// driftExit is the exit status of rlm steward drift when drift is over the
// threshold (1 is an error, 2 bad usage).
const driftExit = 3

// stewardSubcommands are rlm steward's subcommands, each with its own
// flags (stewardSynopsis lists them).
var stewardSubcommands = map[string]func(ctx context.Context, env *cliEnv, args []string) error{
	"propose":  stewardPropose,
	"review":   stewardReview,
	"apply":    stewardApply,
	"rollback": stewardRollback,
	"log":      stewardLog,
	"drift":    stewardDrift,
	"backfill": stewardBackfill,
}

func runSteward(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs := newFlagSet(env, "steward", stewardSynopsis)
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		fs.Usage()
		return &exitError{code: 2, err: errors.New("")}
	}
	sub, ok := stewardSubcommands[args[0]]
	if !ok {
		return fmt.Errorf(
			"%w: unknown steward subcommand %q (use propose, review, apply, rollback, log, drift or backfill)",
			errUsage,
			args[0],
		)
	}
	return sub(ctx, env, args[1:])
}

// stewardFlags are the flags every steward subcommand takes: where the
// runs, the store and the meta document are.
type stewardFlags struct {
	env      *cliEnv
	runsDir  *string
	storeDir *string
	metaFile *string
	notes    *int
}

func newStewardFlags(env *cliEnv, fs *flag.FlagSet) *stewardFlags {
	return &stewardFlags{
		env:      env,
		runsDir:  fs.String("runs-dir", "", "the runs `DIR` (default $RLM_RUNS_DIR, else runs/ next to the store)"),
		storeDir: storeDirFlag(fs, env),
		metaFile: fs.String("meta", "", "the meta document `FILE` (default $RLM_META, else meta.json next to the store directory)"),
		notes: fs.Int(
			"meta-notes-tokens",
			meta.DefaultNotesBudget,
			"token budget the lessons must fit (as rlm run --meta-notes-tokens)",
		),
	}
}

// runs is the runs directory.
func (f *stewardFlags) runs() string { return runsRootDir(f.env, *f.runsDir, *f.storeDir) }

// steward is the steward of the meta document, applying as by.
func (f *stewardFlags) steward(by string) *steward.Steward {
	return &steward.Steward{MetaPath: metaPathEnv(f.env, *f.metaFile, *f.storeDir), NotesBudget: *f.notes, By: by}
}

// byFlag adds --by: who applies or rolls back, for the changelog.
func byFlag(fs *flag.FlagSet, env *cliEnv) func() string {
	by := fs.String("by", "", "who applies, for the changelog (default $USER)")
	return func() string {
		if *by != "" {
			return *by
		}
		who := firstNonEmpty(env.getenv("USER"), "unknown")
		if h, err := os.Hostname(); err == nil {
			who += "@" + h
		}
		return who
	}
}

// evidenceFlags adds --since and --bench, and returns what reads the
// evidence of the runs they select.
func evidenceFlags(fs *flag.FlagSet, env *cliEnv) func(runsDir string) ([]steward.Evidence, error) {
	since := fs.String("since", "", "only runs started within `AGE`, e.g. 7d, 12h (default all)")
	var benchFiles varFlags
	fs.Var(&benchFiles, "bench", "also read rlm bench results `FILE` (results.jsonl; repeatable) for scores")
	return func(runsDir string) ([]steward.Evidence, error) {
		var sinceT time.Time
		if *since != "" {
			age, err := runs.ParseAge(*since)
			if err != nil {
				return nil, fmt.Errorf("%w: --since: %v", errUsage, err)
			}
			sinceT = time.Now().Add(-age)
		}
		evs, warns, err := steward.Collect(runsDir, sinceT, benchFiles)
		for _, w := range warns {
			fmt.Fprintln(env.stderr, "rlm steward: warning:", termSafe(env.stderr, w))
		}
		return evs, err
	}
}

// parseNoArgs parses the flags of a subcommand that takes no arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	pos, err := parseInterleaved(fs, args)
	if err == nil && len(pos) > 0 {
		err = fmt.Errorf("%w: %s takes no arguments", errUsage, fs.Name())
	}
	return err
}

// printJSONList prints a list as JSON, [] when empty.
func printJSONList[T any](env *cliEnv, list []T) error {
	if list == nil {
		list = []T{}
	}
	return printJSON(env, list)
}

func jsonFlag(fs *flag.FlagSet) *bool { return fs.Bool("json", false, "print JSON") }

func stewardPropose(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "steward propose", stewardUsage("propose"))
	sf := newStewardFlags(env, fs)
	collect := evidenceFlags(fs, env)
	jsonOut := jsonFlag(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	st := sf.steward("")
	doc, _, err := meta.Load(st.MetaPath)
	if err != nil {
		return err
	}
	evs, err := collect(sf.runs())
	if err != nil {
		return err
	}
	ps := steward.Propose(doc, evs, steward.Options{}, time.Now())
	if err := st.SaveProposals(ps); err != nil {
		return err
	}
	if *jsonOut {
		return printJSON(env, ps)
	}
	fmt.Fprintf(env.stderr, "rlm steward: %d run(s) read from %s; %d proposal(s) against meta v%d written to %s\n",
		len(evs), sf.runs(), len(ps), doc.Version, st.ProposalsPath())
	return printProposals(env, ps, false)
}

func stewardReview(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "steward review", stewardUsage("review"))
	sf := newStewardFlags(env, fs)
	jsonOut := jsonFlag(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	st := sf.steward("")
	ps, err := st.Pending()
	if err != nil {
		return err
	}
	if *jsonOut {
		return printJSONList(env, ps)
	}
	if len(ps) == 0 {
		fmt.Fprintln(env.stderr, "no pending proposals (run rlm steward propose)")
		return nil
	}
	if err := printProposals(env, ps, true); err != nil {
		return err
	}
	// A retire proposal names a lesson in force: where it came from.
	doc, _, err := meta.Load(st.MetaPath)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.Action != steward.ActionRetireLesson {
			continue
		}
		for _, l := range doc.Lessons {
			if l.ID == p.LessonID && len(l.Sources) > 0 {
				fmt.Fprintf(
					env.stdout,
					"%s  lesson %s was added (meta v%d) on the evidence of: %s\n",
					p.ID,
					l.ID,
					l.Since,
					strings.Join(l.Sources, " "),
				)
			}
		}
	}
	return nil
}

func stewardApply(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "steward apply", stewardUsage("apply"))
	sf := newStewardFlags(env, fs)
	by := byFlag(fs, env)
	all := fs.Bool("all", false, "apply every pending proposal")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *all == (len(pos) > 0) {
		return fmt.Errorf("%w: rlm steward apply takes proposal IDs or --all (see rlm steward review)", errUsage)
	}
	st := sf.steward(by())
	res, err := st.Apply(pos, *all)
	if err != nil {
		return err
	}
	for _, p := range res.Skipped {
		fmt.Fprintf(env.stderr, "rlm steward: skipped %s: no longer applies to the document\n", p.ID)
	}
	if len(res.Applied) == 0 {
		fmt.Fprintln(env.stderr, "rlm steward: nothing applied")
		return nil
	}
	for _, p := range res.Applied {
		fmt.Fprintf(env.stdout, "applied %s %s %s\n", p.ID, p.Action, target(p))
	}
	fmt.Fprintf(env.stderr, "rlm steward: meta v%d written to %s (changelog %s)\n", res.Version, st.MetaPath, st.ChangelogPath())
	return nil
}

func stewardRollback(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "steward rollback", stewardUsage("rollback"))
	sf := newStewardFlags(env, fs)
	by := byFlag(fs, env)
	reason := fs.String("reason", "", "why, for the changelog")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: rlm steward rollback takes one VERSION (see rlm steward log)", errUsage)
	}
	v, err := strconv.Atoi(strings.TrimPrefix(pos[0], "v"))
	if err != nil || v < 0 {
		return fmt.Errorf("%w: rollback: bad version %q (a number, e.g. 3)", errUsage, pos[0])
	}
	nv, err := sf.steward(by()).Rollback(v, *reason)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "meta v%d restores the content of v%d\n", nv, v)
	return nil
}

func stewardLog(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "steward log", stewardUsage("log"))
	sf := newStewardFlags(env, fs)
	jsonOut := jsonFlag(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	st := sf.steward("")
	entries, err := st.Changelog()
	if err != nil {
		return err
	}
	if *jsonOut {
		return printJSONList(env, entries)
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tTIME\tACTION\tTARGET\tBY\tREASON")
	for _, e := range entries {
		fmt.Fprintf(tw, "v%d\t%s\t%s\t%s\t%s\t%s\n", e.Version, e.Time.Local().Format("2006-01-02 15:04"), e.Action, e.Target,
			termSafe(env.stdout, e.By), termSafe(env.stdout, e.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	evs, warns, err := steward.Collect(sf.runs(), time.Time{}, nil)
	if err != nil {
		return err
	}
	for _, w := range warns {
		fmt.Fprintln(env.stderr, "rlm steward: warning:", termSafe(env.stderr, w))
	}
	hr := st.HitRate(evs)
	if hr.Pairs == 0 {
		fmt.Fprintln(env.stdout, "\nmeta hit rate: no kept run had a lesson in force")
		return nil
	}
	fmt.Fprintf(
		env.stdout,
		"\nmeta hit rate: %.0f%% (%d of %d pairs of a kept run and a lesson in force: the lesson was about an error the run had)\n",
		100*hr.Rate,
		hr.Hits,
		hr.Pairs,
	)
	sources := map[string][]string{}
	if doc, _, err := meta.Load(st.MetaPath); err == nil {
		for _, l := range doc.Lessons {
			sources[l.ID] = l.Sources
		}
	}
	tw = tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LESSON\tRUNS\tHITS\tRATE\tADDED ON THE EVIDENCE OF")
	for _, l := range hr.Lessons {
		src := strings.Join(sources[l.Lesson], " ")
		if src == "" {
			src = "-"
		}
		fmt.Fprintf(
			tw,
			"%s\t%d\t%d\t%.0f%%\t%s\n",
			termSafe(env.stdout, l.Lesson),
			l.Runs,
			l.Hits,
			100*float64(l.Hits)/float64(l.Runs),
			src,
		)
	}
	return tw.Flush()
}

func stewardDrift(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "steward drift", stewardUsage("drift"))
	sf := newStewardFlags(env, fs)
	collect := evidenceFlags(fs, env)
	jsonOut := jsonFlag(fs)
	window := fs.Int("window", 20, "compare the last N runs of each model with the N before them")
	alpha := fs.Float64("alpha", 0.01, "significance level of the tests")
	threshold := fs.Float64("threshold", 0.2, "smallest relative change that counts as drift (0.2 = 20%)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *window < 1 || *alpha <= 0 || *alpha >= 1 || *threshold <= 0 {
		return fmt.Errorf("%w: rlm steward drift takes no arguments; --window >= 1, 0 < --alpha < 1, --threshold > 0", errUsage)
	}
	evs, err := collect(sf.runs())
	if err != nil {
		return err
	}
	rep := steward.Drift(evs, steward.DriftOptions{Window: *window, Alpha: *alpha, Threshold: *threshold})
	if *jsonOut {
		if err := printJSON(env, rep); err != nil {
			return err
		}
	} else {
		printDrift(env, rep)
	}
	if d := rep.Drifted(); len(d) > 0 {
		return &exitError{code: driftExit, err: fmt.Errorf("%w: %d metric(s) shifted significantly", steward.ErrDrift, len(d))}
	}
	return nil
}

func stewardBackfill(_ context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "steward backfill", stewardUsage("backfill"))
	sf := newStewardFlags(env, fs)
	jsonOut := jsonFlag(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	res, err := steward.Backfill(sf.runs())
	if *jsonOut && err == nil {
		return printJSON(env, res)
	}
	changed := 0
	for _, r := range res {
		switch {
		case r.Skipped != "":
			fmt.Fprintf(env.stdout, "%s: skipped (%s)\n", r.Run, r.Skipped)
		case r.Events > 0 || len(r.Recomputed) > 0:
			changed++
			fmt.Fprintf(env.stdout, "%s: %d event(s) migrated; recomputed %s\n", r.Run, r.Events, strings.Join(r.Recomputed, ", "))
		}
	}
	fmt.Fprintf(env.stderr, "rlm steward backfill: %d of %d run(s) changed\n", changed, len(res))
	return err
}

// metaPathEnv is metaPath with $RLM_META between the flag and the default.
func metaPathEnv(env *cliEnv, flagPath, storeDir string) string {
	if flagPath == "" && env.getenv != nil {
		flagPath = env.getenv("RLM_META")
	}
	return metaPath(flagPath, storeDir)
}

func printJSON(env *cliEnv, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, string(b))
	return nil
}

func target(p steward.Proposal) string {
	switch {
	case p.Lesson != nil:
		return p.Lesson.ID
	case p.Budget != nil:
		return p.Budget.Model
	}
	return p.LessonID
}

// printProposals lists proposals; with samples, the code and errors that
// back them (run text, shown escaped on a terminal).
func printProposals(env *cliEnv, ps []steward.Proposal, samples bool) error {
	w := env.stdout
	for _, p := range ps {
		fmt.Fprintf(w, "%s  %s %s (against meta v%d)\n", p.ID, p.Action, target(p), p.BaseVersion)
		switch {
		case p.Lesson != nil:
			fmt.Fprintf(w, "  lesson:   %s\n", p.Lesson.Text)
		case p.Budget != nil:
			fmt.Fprintf(
				w,
				"  budget:   history_tokens=%d observation_tokens=%d max_iterations=%d\n",
				p.Budget.HistoryTokens,
				p.Budget.ObservationTokens,
				p.Budget.MaxIterations,
			)
		}
		fmt.Fprintf(w, "  reason:   %s\n  effect:   %s\n", p.Reason, p.Effect)
		ev := p.Evidence
		queries := ""
		if ev.Queries > 0 {
			queries = fmt.Sprintf(" (distinct queries: %d)", ev.Queries)
		}
		fmt.Fprintf(w, "  evidence: %d in %d of %d runs%s: %s\n", ev.Count, ev.RunsWith, ev.RunsTotal, queries, strings.Join(ev.Runs, " "))
		if samples {
			for _, s := range ev.Samples {
				fmt.Fprintf(
					w,
					"    %s step %d: %s\n      code: %s\n",
					s.Run,
					s.Step,
					termSafe(w, s.Error),
					termSafe(w, oneLine(s.Code, 160)),
				)
			}
		}
	}
	return nil
}

func printDrift(env *cliEnv, rep steward.DriftReport) {
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tMETRIC\tBEFORE\tRECENT\tCHANGE\tP\tDRIFT\tMETA BEFORE\tMETA RECENT")
	for _, s := range rep.Shifts {
		mark := ""
		if s.Drift {
			mark = "DRIFT"
		}
		change := fmt.Sprintf("%+.0f%%", 100*s.Change)
		if s.Change >= 1e9 || math.IsInf(s.Change, 0) {
			change = "new"
		}
		fmt.Fprintf(
			tw,
			"%s\t%s\t%.4g (n=%d)\t%.4g (n=%d)\t%s\t%.2g\t%s\t%s\t%s\n",
			s.Model,
			s.Metric,
			s.Before,
			s.NBefore,
			s.Recent,
			s.NRecent,
			change,
			s.P,
			mark,
			s.MetaThen,
			s.MetaNow,
		)
	}
	tw.Flush()
	for _, s := range rep.Skipped {
		fmt.Fprintf(env.stderr, "rlm steward drift: %s: too few runs to compare\n", s)
	}
}
