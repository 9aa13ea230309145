package steward

import (
	"sort"
	"strings"

	"github.com/rlmhq/rlm/meta"
)

// LessonHits is how often one lesson was in force in a run and relevant
// to it.
type LessonHits struct {
	Lesson   string `json:"lesson"`
	Template string `json:"template"`
	// Runs had the lesson in force (their meta version held it, and its
	// model scope is theirs); Hits of them showed what it is about (the
	// signal a proposal counts: an engine-classified error of its kind, a
	// rejected SUBMIT, a reply without code, ...).
	Runs int `json:"runs"`
	Hits int `json:"hits"`
}

// HitRate is the meta document's hit rate (seed 003's meta.hit_rate): of
// the pairs of a run and a lesson in force in it, the share where the
// lesson was relevant to the run's errors. A low rate says lessons are
// shown that runs do not need; a lesson with runs and no hits is the one
// a retire proposal would name.
type HitRate struct {
	Pairs   int          `json:"pairs"`
	Hits    int          `json:"hits"`
	Rate    float64      `json:"rate"` // Hits/Pairs; 0 without pairs
	Lessons []LessonHits `json:"lessons"`
}

// HitRate computes the hit rate of the runs evs: the lessons in force in
// a run are those its prompt had (Evidence.Lessons), or, for a trajectory
// that does not say, those of the meta version it ran with (the current
// document, or its snapshot in HistoryDir; a version that cannot be read
// is skipped).
func (s *Steward) HitRate(evs []Evidence) HitRate {
	docs := map[int]*meta.Document{}
	doc := func(v int) *meta.Document {
		if d, ok := docs[v]; ok {
			return d
		}
		var d *meta.Document
		if cur, _, err := meta.Load(s.MetaPath); err == nil && cur.Version == v {
			d = cur
		} else if snap, ok, err := meta.Load(s.snapshotPath(v)); err == nil && ok {
			d = snap
		}
		docs[v] = d
		return d
	}
	by := map[string]*LessonHits{}
	var hr HitRate
	for _, e := range evs {
		if e.MetaVersion < 1 {
			continue
		}
		var inForce []meta.Lesson
		if e.Lessons != nil {
			// The prompt's own list (within the notes budget).
			for _, id := range e.Lessons {
				tmpl, model, _ := strings.Cut(id, "@")
				inForce = append(inForce, meta.Lesson{ID: id, Template: tmpl, Model: model})
			}
		} else if d := doc(e.MetaVersion); d != nil {
			inForce = d.Lessons
		}
		for _, l := range inForce {
			if l.Model != "" && l.Model != e.Model {
				continue
			}
			lh := by[l.ID]
			if lh == nil {
				lh = &LessonHits{Lesson: l.ID, Template: l.Template}
				by[l.ID] = lh
			}
			lh.Runs++
			hr.Pairs++
			if signal(l.Template, e) > 0 {
				lh.Hits++
				hr.Hits++
			}
		}
	}
	if hr.Pairs > 0 {
		hr.Rate = float64(hr.Hits) / float64(hr.Pairs)
	}
	hr.Lessons = make([]LessonHits, 0, len(by))
	for _, lh := range by {
		hr.Lessons = append(hr.Lessons, *lh)
	}
	sort.Slice(hr.Lessons, func(i, j int) bool { return hr.Lessons[i].Lesson < hr.Lessons[j].Lesson })
	return hr
}
