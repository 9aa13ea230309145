package steward

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"time"

	"github.com/rlmhq/rlm/meta"
)

// Actions of a proposal.
const (
	ActionAddLesson    = "add_lesson"
	ActionRetireLesson = "retire_lesson"
	ActionSetBudget    = "set_budget"
)

// Proposal is one change to the meta document, with its evidence and
// expected effect. Every text in it is engine-authored from numbers, kinds
// and template names; run text appears only in Evidence.Samples, which
// apply never copies.
type Proposal struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	// Lesson is the lesson to add (its text is its template's).
	Lesson *meta.Lesson `json:"lesson,omitempty"`
	// LessonID is the lesson to retire.
	LessonID string `json:"lesson_id,omitempty"`
	// Budget is the recommended-budget entry to set for its model.
	Budget      *meta.Budget     `json:"budget,omitempty"`
	Reason      string           `json:"reason"`
	Effect      string           `json:"expected_effect"`
	Evidence    ProposalEvidence `json:"evidence"`
	BaseVersion int              `json:"base_version"`
	Created     time.Time        `json:"created"`
}

// ProposalEvidence backs a proposal: the runs that show it and how much.
type ProposalEvidence struct {
	Kind string   `json:"kind"`
	Runs []string `json:"runs"` // the first 20 ids
	// Count is how many times the runs showed the kind, for information:
	// support is RunsWith, the distinct runs that showed it (a run that
	// shows it 1,000 times counts once), and Queries the distinct queries
	// of those runs.
	Count     int      `json:"count"`
	RunsWith  int      `json:"runs_with"`
	Queries   int      `json:"queries,omitempty"`
	RunsTotal int      `json:"runs_total"`
	Lost      int      `json:"iterations_lost,omitempty"`
	Samples   []Sample `json:"samples,omitempty"`
}

// Options tune Propose; zero fields take the defaults.
type Options struct {
	// MinRuns is how many distinct runs must show a kind before a lesson
	// is proposed (default 2). Only errors the engine classified count
	// (see Evidence.Errors), once per run however often the run shows
	// them.
	MinRuns int
	// MinQueries is how many distinct queries those runs must have
	// (default 1: any; raise it when many runs could come from one
	// client repeating one request).
	MinQueries int
	// MinShare is the share of runs that must show it (default 0.1).
	MinShare float64
	// RetireAfter is how many runs with a lesson in force and without its
	// kind retire it (default 10).
	RetireAfter int
}

func (o Options) withDefaults() Options {
	if o.MinRuns <= 0 {
		o.MinRuns = 2
	}
	if o.MinQueries <= 0 {
		o.MinQueries = 1
	}
	if o.MinShare <= 0 {
		o.MinShare = 0.1
	}
	if o.RetireAfter <= 0 {
		o.RetireAfter = 10
	}
	return o
}

// signal is how often run e shows what template's lesson is about. Errors
// count only when the engine classified them: an exception the code raised
// itself (its type and message chosen by the code) is never a signal.
func signal(template string, e Evidence) int {
	switch template {
	case "no_code":
		return e.Nudges
	case "submit_rejected":
		return e.RejectedSubmits
	case "print_less":
		if e.Steps > 0 && e.Truncated*3 >= e.Steps {
			return e.Truncated
		}
		return 0
	case "iteration_target":
		if e.StopReason == "max_iterations" {
			return 1
		}
		return 0
	}
	return e.Errors[template]
}

// Propose derives proposals from evidence against the document doc: add
// a lesson for a kind seen in enough runs (scoped to one model when only
// its runs show it), retire a lesson whose kind has not been seen in
// RetireAfter runs since it was added, and raise the recommended
// iterations or history budget of a model whose runs keep running out of
// them. Bench results count for budgets and scores, not for lessons.
func Propose(doc *meta.Document, evs []Evidence, opt Options, now time.Time) []Proposal {
	opt = opt.withDefaults()
	var runsOnly []Evidence
	for _, e := range evs {
		if e.Source == "run" {
			runsOnly = append(runsOnly, e)
		}
	}
	var out []Proposal
	have := map[string]meta.Lesson{}
	for _, l := range doc.Lessons {
		have[l.ID] = l
	}
	for _, tmpl := range meta.Templates() {
		if p, ok := proposeLesson(doc, have, tmpl, runsOnly, opt); ok {
			out = append(out, p)
		}
	}
	out = append(out, proposeRetire(doc, runsOnly, opt)...)
	out = append(out, proposeBudgets(doc, evs, opt)...)
	for i := range out {
		out[i].BaseVersion = doc.Version
		out[i].Created = now.UTC()
		out[i].ID = proposalID(out[i])
	}
	return out
}

func proposeLesson(doc *meta.Document, have map[string]meta.Lesson, tmpl string, evs []Evidence, opt Options) (Proposal, bool) {
	ev := ProposalEvidence{Kind: tmpl, RunsTotal: len(evs)}
	models := map[string]bool{}
	otherModels := map[string]int{}
	var samples []Sample
	seen := map[string]bool{}    // runs counted: each once
	queries := map[string]bool{} // their distinct queries
	for _, e := range evs {
		n := signal(tmpl, e)
		if n == 0 {
			otherModels[e.Model]++
			continue
		}
		ev.Count += n
		if seen[e.Run] {
			continue
		}
		seen[e.Run] = true
		queries[e.Query] = true
		ev.RunsWith++
		ev.Lost += min(n, e.Lost)
		models[e.Model] = true
		if len(ev.Runs) < 20 {
			ev.Runs = append(ev.Runs, e.Run)
		}
		if s, ok := e.Samples[tmpl]; ok && len(samples) < 3 {
			samples = append(samples, s)
		}
	}
	ev.Samples = samples
	ev.Queries = len(queries)
	if ev.RunsWith < opt.MinRuns || ev.Queries < opt.MinQueries || float64(ev.RunsWith) < opt.MinShare*float64(ev.RunsTotal) {
		return Proposal{}, false
	}
	scope := ""
	if len(models) == 1 {
		for m := range models {
			// Scoped when runs of other models went without it.
			others := 0
			for om, n := range otherModels {
				if om != m {
					others += n
				}
			}
			if m != "" && others >= opt.MinRuns {
				scope = m
			}
		}
	}
	if _, ok := have[tmpl]; ok {
		return Proposal{}, false
	}
	if _, ok := have[meta.LessonID(tmpl, scope)]; ok {
		return Proposal{}, false
	}
	params := meta.Params{}
	if tmpl == "iteration_target" {
		maxIter := commonInt(evs, func(e Evidence) int { return e.MaxIterations })
		if maxIter <= 1 {
			return Proposal{}, false
		}
		params.Iterations = max(1, maxIter*3/4)
	}
	text, err := meta.LessonText(tmpl, params)
	if err != nil {
		return Proposal{}, false
	}
	l := meta.Lesson{ID: meta.LessonID(tmpl, scope), Template: tmpl, Params: params, Model: scope, Text: text}
	who := "runs"
	if scope != "" {
		who = "runs of " + scope
	}
	return Proposal{
		Action: ActionAddLesson, Lesson: &l, Evidence: ev,
		Reason: fmt.Sprintf(
			"%s seen %d times in %d of %d %s (%d distinct queries), %d iterations lost",
			tmpl,
			ev.Count,
			ev.RunsWith,
			ev.RunsTotal,
			who,
			ev.Queries,
			ev.Lost,
		),
		Effect: fmt.Sprintf(
			"fewer %s failures in later runs (now %.0f%% of runs) and the iterations they cost",
			tmpl,
			100*float64(ev.RunsWith)/float64(ev.RunsTotal),
		),
	}, true
}

func proposeRetire(doc *meta.Document, evs []Evidence, opt Options) []Proposal {
	var out []Proposal
	for _, l := range doc.Lessons {
		ev := ProposalEvidence{Kind: l.Template}
		unknown := false
		for _, e := range evs {
			if e.MetaVersion < max(l.Since, 1) || (l.Model != "" && e.Model != l.Model) {
				continue
			}
			ev.RunsTotal++
			if n := signal(l.Template, e); n > 0 {
				ev.Count += n
				ev.RunsWith++
			} else if e.Unattributed[l.Template] > 0 {
				// An error of the kind from before origins were
				// recorded: maybe the engine's, so not "not seen".
				unknown = true
			}
			if len(ev.Runs) < 20 {
				ev.Runs = append(ev.Runs, e.Run)
			}
		}
		if ev.RunsTotal < opt.RetireAfter || ev.Count > 0 || unknown {
			continue
		}
		out = append(out, Proposal{
			Action: ActionRetireLesson, LessonID: l.ID, Evidence: ev,
			Reason: fmt.Sprintf("%s not seen in the %d runs since meta v%d added the lesson", l.Template, ev.RunsTotal, l.Since),
			Effect: "a shorter meta section; watch rlm steward drift for the kind coming back",
		})
	}
	return out
}

func proposeBudgets(doc *meta.Document, evs []Evidence, opt Options) []Proposal {
	byModel := map[string][]Evidence{}
	for _, e := range evs {
		if e.Model != "" {
			byModel[e.Model] = append(byModel[e.Model], e)
		}
	}
	models := make([]string, 0, len(byModel))
	for m := range byModel {
		models = append(models, m)
	}
	sort.Strings(models)
	var out []Proposal
	for _, m := range models {
		es := byModel[m]
		cur, _ := doc.BudgetFor(m)
		next := cur
		next.Model = m
		var reasons, effects []string
		ev := ProposalEvidence{Kind: "budget", RunsTotal: len(es)}
		stops := 0
		for _, e := range es {
			if e.StopReason == "max_iterations" {
				stops++
				if len(ev.Runs) < 20 {
					ev.Runs = append(ev.Runs, e.Run)
				}
			}
		}
		if maxIter := commonInt(es, func(e Evidence) int { return e.MaxIterations }); stops >= opt.MinRuns &&
			float64(stops) >= 0.2*float64(len(es)) &&
			maxIter > 0 {
			if want := min(1000, (maxIter*3+1)/2); want > cur.MaxIterations {
				next.MaxIterations = want
				ev.Count += stops
				ev.RunsWith = max(ev.RunsWith, stops)
				reasons = append(
					reasons,
					fmt.Sprintf("%d of %d runs of %s stopped at the iteration limit (%d)", stops, len(es), m, maxIter),
				)
				effects = append(effects, fmt.Sprintf("fewer max_iterations stops at up to %d iterations per run", want))
			}
		}
		comp, with := 0, 0
		for _, e := range es {
			comp += e.Compressions
			if e.Compressions > 0 {
				with++
			}
		}
		if hist := commonInt(es, func(e Evidence) int { return e.HistoryTokens }); with >= opt.MinRuns && comp >= 3*len(es) && hist > 0 {
			if want := min(200000, hist*3/2); want > cur.HistoryTokens {
				next.HistoryTokens = want
				ev.Count += comp
				ev.RunsWith = max(ev.RunsWith, with)
				reasons = append(
					reasons,
					fmt.Sprintf(
						"runs of %s compressed their history %.1f times each (history budget %d)",
						m,
						float64(comp)/float64(len(es)),
						hist,
					),
				)
				effects = append(effects, fmt.Sprintf("fewer compressions at up to %d history tokens per request", want))
			}
		}
		if len(reasons) == 0 {
			continue
		}
		b := next
		out = append(out, Proposal{Action: ActionSetBudget, Budget: &b, Evidence: ev, Reason: join(reasons), Effect: join(effects)})
	}
	return out
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "; "
		}
		out += x
	}
	return out
}

// commonInt is the most common positive value of f over evs (the largest
// on ties), 0 if none.
func commonInt(evs []Evidence, f func(Evidence) int) int {
	counts := map[int]int{}
	for _, e := range evs {
		if v := f(e); v > 0 {
			counts[v]++
		}
	}
	best, n := 0, 0
	for v, c := range counts {
		if c > n || (c == n && v > best) {
			best, n = v, c
		}
	}
	return best
}

// proposalID is a short hash of what the proposal changes.
func proposalID(p Proposal) string {
	h := sha256.New()
	fmt.Fprint(h, p.Action, "\x00", p.LessonID, "\x00", p.BaseVersion)
	if p.Lesson != nil {
		fmt.Fprint(h, p.Lesson.ID, p.Lesson.Params.Iterations)
	}
	if p.Budget != nil {
		fmt.Fprint(h, p.Budget.Model, p.Budget.HistoryTokens, p.Budget.ObservationTokens, p.Budget.MaxIterations)
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
}
