package steward

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rlmhq/rlm/meta"
)

// Collector exports the steward's state as Prometheus metrics (for rlm
// serve's /metrics): the meta document's version, the pending proposals
// by action, the drift of the kept runs per model and metric, and the
// meta document's hit rate over the kept runs. The
// state is computed at scrape time, at most once per Interval.
type Collector struct {
	Steward *Steward
	RunsDir string
	Drift   DriftOptions
	// Interval is how long a computed state is reused (default 1 minute):
	// drift reads every kept trajectory.
	Interval time.Duration
	// Version, if set, gives the meta version in force (rlm serve's runs
	// use the document it read at start) instead of the file's.
	Version func() int

	mu    sync.Mutex
	at    time.Time
	state collected
}

type collected struct {
	version int
	pending map[string]int
	shifts  []Shift
	hits    HitRate
}

var (
	descVersion = prometheus.NewDesc(
		"rlm_meta_version",
		"Version of the meta document in force (rlm serve: the one its runs use, read at start; 0: none).",
		nil,
		nil,
	)
	descPending = prometheus.NewDesc(
		"rlm_steward_proposals_pending",
		"Pending steward proposals, by action (add_lesson, retire_lesson, set_budget).",
		[]string{"action"},
		nil,
	)
	descDrift = prometheus.NewDesc(
		"rlm_steward_drift",
		"1 when a metric of the recent runs of a model shifted significantly and past the threshold (rlm steward drift), else 0.",
		[]string{"model", "metric"},
		nil,
	)
	descChange = prometheus.NewDesc(
		"rlm_steward_drift_change",
		"Relative change of a metric between the recent runs of a model and the ones before.",
		[]string{"model", "metric"},
		nil,
	)
	descP = prometheus.NewDesc(
		"rlm_steward_drift_p_value",
		"p-value of the test comparing a metric of the recent runs of a model with the ones before.",
		[]string{"model", "metric"},
		nil,
	)
	descHitRate = prometheus.NewDesc(
		"rlm_meta_hit_rate",
		"Share of the (kept run, lesson in force) pairs where the lesson was relevant to the run's errors (rlm steward log; 0 when no run had a lesson).",
		nil,
		nil,
	)
	descPairs = prometheus.NewDesc(
		"rlm_meta_lesson_runs",
		"Pairs of a kept run and a lesson in force in it, the hit rate's denominator.",
		nil,
		nil,
	)
)

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descVersion, descPending, descDrift, descChange, descP, descHitRate, descPairs} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. Unreadable files leave their
// metrics out rather than fail the scrape.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	st := c.refresh()
	ch <- prometheus.MustNewConstMetric(descVersion, prometheus.GaugeValue, float64(st.version))
	ch <- prometheus.MustNewConstMetric(descHitRate, prometheus.GaugeValue, st.hits.Rate)
	ch <- prometheus.MustNewConstMetric(descPairs, prometheus.GaugeValue, float64(st.hits.Pairs))
	for _, a := range []string{ActionAddLesson, ActionRetireLesson, ActionSetBudget} {
		ch <- prometheus.MustNewConstMetric(descPending, prometheus.GaugeValue, float64(st.pending[a]), a)
	}
	for _, s := range st.shifts {
		v := 0.0
		if s.Drift {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(descDrift, prometheus.GaugeValue, v, s.Model, s.Metric)
		ch <- prometheus.MustNewConstMetric(descChange, prometheus.GaugeValue, s.Change, s.Model, s.Metric)
		ch <- prometheus.MustNewConstMetric(descP, prometheus.GaugeValue, s.P, s.Model, s.Metric)
	}
}

func (c *Collector) refresh() collected {
	c.mu.Lock()
	defer c.mu.Unlock()
	iv := c.Interval
	if iv <= 0 {
		iv = time.Minute
	}
	if !c.at.IsZero() && time.Since(c.at) < iv {
		return c.state
	}
	st := collected{pending: map[string]int{}}
	if c.Version != nil {
		st.version = c.Version()
	} else if doc, _, err := meta.Load(c.Steward.MetaPath); err == nil {
		st.version = doc.Version
	}
	if ps, err := c.Steward.Pending(); err == nil {
		for _, p := range ps {
			st.pending[p.Action]++
		}
	}
	if c.RunsDir != "" {
		if evs, _, err := Collect(c.RunsDir, time.Time{}, nil); err == nil {
			st.shifts = Drift(evs, c.Drift).Shifts
			st.hits = c.Steward.HitRate(evs)
		}
	}
	c.state, c.at = st, time.Now()
	return st
}
