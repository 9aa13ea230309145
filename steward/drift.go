package steward

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// DriftOptions tune Drift; zero fields take the defaults.
type DriftOptions struct {
	// Window is how many recent runs are compared with as many before
	// them (default 20).
	Window int
	// Alpha is the significance level of the tests (default 0.01).
	Alpha float64
	// Threshold is the smallest relative change reported as drift
	// (default 0.2, i.e. 20%).
	Threshold float64
	// MinRuns is the fewest runs each side of a comparison needs (default 5).
	MinRuns int
}

func (o DriftOptions) withDefaults() DriftOptions {
	if o.Window <= 0 {
		o.Window = 20
	}
	if o.Alpha <= 0 {
		o.Alpha = 0.01
	}
	if o.Threshold <= 0 {
		o.Threshold = 0.2
	}
	if o.MinRuns <= 0 {
		o.MinRuns = 5
	}
	return o
}

// Shift is one metric compared between the runs before and the recent
// runs of one model.
type Shift struct {
	Model    string  `json:"model"`
	Metric   string  `json:"metric"`
	Before   float64 `json:"before"`
	Recent   float64 `json:"recent"`
	NBefore  int     `json:"n_before"`
	NRecent  int     `json:"n_recent"`
	Change   float64 `json:"change"` // relative: (recent-before)/|before|
	P        float64 `json:"p"`
	Test     string  `json:"test"` // "welch_t" or "two_proportion_z"
	Drift    bool    `json:"drift"`
	MetaThen string  `json:"meta_before"` // meta versions in force, e.g. "v2 (15), v3 (5)"
	MetaNow  string  `json:"meta_recent"`
}

// DriftReport is the outcome of Drift.
type DriftReport struct {
	Window int     `json:"window"`
	Alpha  float64 `json:"alpha"`
	// Shifts lists every metric compared, drift or not.
	Shifts []Shift `json:"shifts"`
	// Skipped names the models with too few runs to compare.
	Skipped []string `json:"skipped,omitempty"`
}

// Drifted lists the shifts over the threshold.
func (r DriftReport) Drifted() []Shift {
	var out []Shift
	for _, s := range r.Shifts {
		if s.Drift {
			out = append(out, s)
		}
	}
	return out
}

// metric extracts one value per run; ok false leaves the run out.
type metric struct {
	name       string
	proportion bool
	value      func(e Evidence) (float64, bool)
}

var metrics = []metric{
	{name: "iterations_to_submit", value: func(e Evidence) (float64, bool) { return float64(e.Iterations), e.Submitted() }},
	{name: "error_rate", proportion: true, value: func(e Evidence) (float64, bool) {
		return float64(e.Lost), e.Source == "run" && e.Iterations > 0
	}},
	{name: "submit_rate", proportion: true, value: func(e Evidence) (float64, bool) {
		if e.Submitted() {
			return 1, true
		}
		return 0, true
	}},
	{name: "tokens_per_run", value: func(e Evidence) (float64, bool) { return float64(e.Tokens), e.Tokens > 0 }},
	{name: "cost_per_run", value: func(e Evidence) (float64, bool) { return e.CostUSD, e.CostKnown }},
	{name: "score", value: func(e Evidence) (float64, bool) {
		if e.Score == nil {
			return 0, false
		}
		return *e.Score, true
	}},
}

// Drift compares, per root model, the last Window runs with the Window
// runs before them: means with Welch's t-test, rates (failed iterations
// per iteration, valid SUBMITs per run) with a two-proportion z-test. A
// shift is drift when it is significant at Alpha and its relative change
// is at least Threshold. Each shift names the meta versions in force on
// either side, so a change can be tied to a meta version or a model.
// evs must be sorted by start time (as Collect returns them).
func Drift(evs []Evidence, opt DriftOptions) DriftReport {
	opt = opt.withDefaults()
	rep := DriftReport{Window: opt.Window, Alpha: opt.Alpha}
	byModel := map[string][]Evidence{}
	for _, e := range evs {
		byModel[e.Model] = append(byModel[e.Model], e)
	}
	models := make([]string, 0, len(byModel))
	for m := range byModel {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		es := byModel[m]
		if len(es) < 2*opt.MinRuns {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s (%d runs)", orUnknown(m), len(es)))
			continue
		}
		n := min(opt.Window, len(es)/2)
		recent := es[len(es)-n:]
		before := es[max(0, len(es)-2*n) : len(es)-n]
		for _, mt := range metrics {
			s, ok := compare(mt, before, recent, opt)
			if !ok {
				continue
			}
			s.Model = orUnknown(m)
			s.MetaThen, s.MetaNow = metaVersions(before), metaVersions(recent)
			rep.Shifts = append(rep.Shifts, s)
		}
	}
	return rep
}

func orUnknown(m string) string {
	if m == "" {
		return "(unknown)"
	}
	return m
}

func compare(mt metric, before, recent []Evidence, opt DriftOptions) (Shift, bool) {
	s := Shift{Metric: mt.name}
	if mt.proportion {
		var xb, nb, xr, nr float64
		for _, e := range before {
			if v, ok := mt.value(e); ok {
				xb += v
				nb += denom(mt.name, e)
				s.NBefore++
			}
		}
		for _, e := range recent {
			if v, ok := mt.value(e); ok {
				xr += v
				nr += denom(mt.name, e)
				s.NRecent++
			}
		}
		if s.NBefore < opt.MinRuns || s.NRecent < opt.MinRuns || nb == 0 || nr == 0 {
			return s, false
		}
		s.Before, s.Recent = xb/nb, xr/nr
		s.P, s.Test = twoProportionP(xb, nb, xr, nr), "two_proportion_z"
	} else {
		var a, b []float64
		for _, e := range before {
			if v, ok := mt.value(e); ok {
				a = append(a, v)
			}
		}
		for _, e := range recent {
			if v, ok := mt.value(e); ok {
				b = append(b, v)
			}
		}
		s.NBefore, s.NRecent = len(a), len(b)
		if len(a) < opt.MinRuns || len(b) < opt.MinRuns {
			return s, false
		}
		s.Before, s.Recent = stat.Mean(a, nil), stat.Mean(b, nil)
		s.P, s.Test = welchP(a, b), "welch_t"
	}
	switch {
	case s.Before != 0:
		s.Change = (s.Recent - s.Before) / math.Abs(s.Before)
	case s.Recent != 0:
		s.Change = math.Inf(1)
	}
	s.Drift = s.P < opt.Alpha && math.Abs(s.Change) >= opt.Threshold
	if math.IsInf(s.Change, 0) {
		s.Change = 1e9 // JSON has no infinity
	}
	return s, true
}

// denom is the number of trials a run adds to a proportion.
func denom(name string, e Evidence) float64 {
	if name == "error_rate" {
		return float64(e.Iterations)
	}
	return 1
}

// welchP is the two-sided p-value of Welch's t-test for equal means.
func welchP(a, b []float64) float64 {
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	na, nb := float64(len(a)), float64(len(b))
	se2 := va/na + vb/nb
	if se2 == 0 {
		if ma == mb {
			return 1
		}
		return 0
	}
	t := (mb - ma) / math.Sqrt(se2)
	df := se2 * se2 / ((va/na)*(va/na)/(na-1) + (vb/nb)*(vb/nb)/(nb-1))
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	return 2 * (1 - dist.CDF(math.Abs(t)))
}

// twoProportionP is the two-sided p-value of the pooled two-proportion
// z-test of x1/n1 against x2/n2.
func twoProportionP(x1, n1, x2, n2 float64) float64 {
	p := (x1 + x2) / (n1 + n2)
	if p <= 0 || p >= 1 {
		return 1
	}
	z := (x2/n2 - x1/n1) / math.Sqrt(p*(1-p)*(1/n1+1/n2))
	return 2 * (1 - distuv.UnitNormal.CDF(math.Abs(z)))
}

// metaVersions summarises the meta versions of runs: "v2 (15), v3 (5)".
func metaVersions(evs []Evidence) string {
	counts := map[int]int{}
	for _, e := range evs {
		counts[e.MetaVersion]++
	}
	vs := make([]int, 0, len(counts))
	for v := range counts {
		vs = append(vs, v)
	}
	sort.Ints(vs)
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("v%d (%d)", v, counts[v])
	}
	return strings.Join(parts, ", ")
}
