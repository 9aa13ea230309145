package steward

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rlmhq/rlm/internal/atomicfile"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/meta"
)

// Steward keeps one meta document and the files beside it: for
// .rlm/meta.json, the pending proposals (meta.proposals.json), the
// changelog (meta.changelog.jsonl) and a snapshot of every version
// (meta.history/vN.json) for rollbacks.
type Steward struct {
	// MetaPath is the meta document.
	MetaPath string
	// NotesBudget is the token budget the lessons must fit (default
	// meta.DefaultNotesBudget).
	NotesBudget int
	// By names who applies changes, for the changelog.
	By string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

func (s *Steward) base() string { return strings.TrimSuffix(s.MetaPath, filepath.Ext(s.MetaPath)) }

// ProposalsPath is the file of pending proposals.
func (s *Steward) ProposalsPath() string { return s.base() + ".proposals.json" }

// ChangelogPath is the changelog: one JSON line per change.
func (s *Steward) ChangelogPath() string { return s.base() + ".changelog.jsonl" }

// HistoryDir holds a snapshot of every version of the document.
func (s *Steward) HistoryDir() string { return s.base() + ".history" }

func (s *Steward) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Steward) notesBudget() int {
	if s.NotesBudget > 0 {
		return s.NotesBudget
	}
	return meta.DefaultNotesBudget
}

// ChangeEntry is one line of the changelog.
type ChangeEntry struct {
	Version  int       `json:"version"`
	Time     time.Time `json:"time"`
	Action   string    `json:"action"` // a proposal action, or "rollback"
	Target   string    `json:"target"` // lesson id, budget model, or vN
	Change   any       `json:"change,omitempty"`
	Reason   string    `json:"reason"`
	Evidence any       `json:"evidence,omitempty"`
	By       string    `json:"by"`
	Proposal string    `json:"proposal,omitempty"`
	Digest   string    `json:"digest"` // the document's digest after the change
}

// SaveProposals replaces the pending proposals (atomically).
func (s *Steward) SaveProposals(ps []Proposal) error {
	if ps == nil {
		ps = []Proposal{}
	}
	b, err := json.MarshalIndent(ps, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.ProposalsPath()), 0o755); err != nil {
		return fmt.Errorf("steward: %w", err)
	}
	if err := atomicfile.Write(s.ProposalsPath(), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("steward: write proposals: %w", err)
	}
	return nil
}

// Pending returns the pending proposals.
func (s *Steward) Pending() ([]Proposal, error) {
	b, err := os.ReadFile(s.ProposalsPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("steward: %w", err)
	}
	var ps []Proposal
	if err := json.Unmarshal(b, &ps); err != nil {
		return nil, fmt.Errorf("steward: %s: %w", s.ProposalsPath(), err)
	}
	return ps, nil
}

// Applied is the outcome of Apply.
type Applied struct {
	Version int
	Applied []Proposal
	// Skipped are the proposals of --all that no longer apply.
	Skipped []Proposal
}

// Apply applies the pending proposals with the given ids (all of them if
// all is set) as one new version of the document, after validating each
// one (a lesson's text must be its template's: no untrusted text) and the
// result (schema, engine rules, notes budget). It writes a snapshot of
// the new version, the document (atomically) and one changelog line per
// change, then drops the applied proposals from the pending list.
func (s *Steward) Apply(ids []string, all bool) (Applied, error) {
	doc, _, err := meta.Load(s.MetaPath)
	if err != nil {
		return Applied{}, err
	}
	pending, err := s.Pending()
	if err != nil {
		return Applied{}, err
	}
	var chosen []Proposal
	if all {
		chosen = pending
	} else {
		for _, id := range ids {
			i := slices.IndexFunc(pending, func(p Proposal) bool { return p.ID == id })
			if i < 0 {
				return Applied{}, fmt.Errorf("%w: %s (see rlm steward review)", ErrNoProposal, id)
			}
			chosen = append(chosen, pending[i])
		}
	}
	if len(chosen) == 0 {
		return Applied{Version: doc.Version}, nil
	}
	next := cloneDoc(doc)
	next.Version = doc.Version + 1
	next.Updated = s.now()
	var res Applied
	for _, p := range chosen {
		if err := applyOne(next, p); err != nil {
			if all && errors.Is(err, ErrStale) {
				res.Skipped = append(res.Skipped, p)
				continue
			}
			return Applied{}, fmt.Errorf("proposal %s: %w", p.ID, err)
		}
		res.Applied = append(res.Applied, p)
	}
	if len(res.Applied) == 0 {
		res.Version = doc.Version
		return res, s.dropPending(res.Skipped)
	}
	if err := next.Check(); err != nil {
		return Applied{}, err
	}
	if err := next.CheckBudget(s.notesBudget(), llm.DefaultTokenizer()); err != nil {
		return Applied{}, fmt.Errorf("%w; retire a lesson first or raise the notes budget", err)
	}
	if err := s.commit(doc, next); err != nil {
		return Applied{}, err
	}
	var entries []ChangeEntry
	for _, p := range res.Applied {
		e := ChangeEntry{
			Version:  next.Version,
			Time:     next.Updated,
			Action:   p.Action,
			Reason:   p.Reason,
			By:       s.By,
			Proposal: p.ID,
			Digest:   next.Digest(),
			Evidence: map[string]any{
				"kind":            p.Evidence.Kind,
				"runs":            p.Evidence.Runs,
				"count":           p.Evidence.Count,
				"runs_with":       p.Evidence.RunsWith,
				"runs_total":      p.Evidence.RunsTotal,
				"iterations_lost": p.Evidence.Lost,
			},
		}
		switch p.Action {
		case ActionAddLesson:
			e.Target, e.Change = p.Lesson.ID, map[string]any{
				"template": p.Lesson.Template,
				"params":   p.Lesson.Params,
				"model":    p.Lesson.Model,
				"text":     p.Lesson.Text,
			}
		case ActionRetireLesson:
			e.Target = p.LessonID
		case ActionSetBudget:
			e.Target, e.Change = p.Budget.Model, p.Budget
		}
		entries = append(entries, e)
	}
	if err := s.appendChangelog(entries...); err != nil {
		return Applied{}, err
	}
	res.Version = next.Version
	return res, s.dropPending(append(res.Applied, res.Skipped...))
}

// applyOne changes doc by p, refusing text that is not engine-authored.
func applyOne(doc *meta.Document, p Proposal) error {
	switch p.Action {
	case ActionAddLesson:
		if p.Lesson == nil {
			return fmt.Errorf("%w: add_lesson without a lesson", meta.ErrInvalid)
		}
		l := *p.Lesson
		text, err := meta.LessonText(l.Template, l.Params)
		if err != nil {
			return err
		}
		if l.Text != text || l.ID != meta.LessonID(l.Template, l.Model) || (l.Model != "" && !modelName.MatchString(l.Model)) {
			return fmt.Errorf(
				"%w: lesson %q is not the text of template %s: only engine templates become meta text",
				meta.ErrInvalid,
				l.ID,
				l.Template,
			)
		}
		if slices.ContainsFunc(doc.Lessons, func(x meta.Lesson) bool { return x.ID == l.ID }) {
			return fmt.Errorf("%w: lesson %s is already in the document", ErrStale, l.ID)
		}
		l.Since = doc.Version
		l.Sources = nil
		for _, r := range p.Evidence.Runs {
			if meta.SourcePattern.MatchString(r) && len(l.Sources) < meta.MaxSources {
				l.Sources = append(l.Sources, r)
			}
		}
		doc.Lessons = append(doc.Lessons, l)
	case ActionRetireLesson:
		i := slices.IndexFunc(doc.Lessons, func(x meta.Lesson) bool { return x.ID == p.LessonID })
		if i < 0 {
			return fmt.Errorf("%w: lesson %s is not in the document", ErrStale, p.LessonID)
		}
		doc.Lessons = slices.Delete(doc.Lessons, i, i+1)
	case ActionSetBudget:
		if p.Budget == nil || !modelName.MatchString(p.Budget.Model) {
			return fmt.Errorf("%w: set_budget without a valid model", meta.ErrInvalid)
		}
		b := *p.Budget
		b.Since = doc.Version
		if i := slices.IndexFunc(doc.Budgets, func(x meta.Budget) bool { return x.Model == b.Model }); i >= 0 {
			doc.Budgets[i] = b
		} else {
			doc.Budgets = append(doc.Budgets, b)
		}
	default:
		return fmt.Errorf("%w: unknown action %q", meta.ErrInvalid, p.Action)
	}
	return nil
}

func cloneDoc(d *meta.Document) *meta.Document {
	c := *d
	c.Lessons = append([]meta.Lesson{}, d.Lessons...)
	c.Budgets = append([]meta.Budget{}, d.Budgets...)
	return &c
}

// commit snapshots the old version (if not yet) and the new one, then
// writes the document: each write is atomic, and the document is last, so
// a crash leaves the old document or the new one with its snapshot.
func (s *Steward) commit(old, next *meta.Document) error {
	if err := os.MkdirAll(s.HistoryDir(), 0o755); err != nil {
		return fmt.Errorf("steward: %w", err)
	}
	for _, d := range []*meta.Document{old, next} {
		p := s.snapshotPath(d.Version)
		if _, err := os.Stat(p); err == nil && d == old {
			continue
		}
		if err := d.Save(p); err != nil {
			return err
		}
	}
	return next.Save(s.MetaPath)
}

func (s *Steward) snapshotPath(v int) string {
	return filepath.Join(s.HistoryDir(), fmt.Sprintf("v%d.json", v))
}

func (s *Steward) appendChangelog(entries ...ChangeEntry) error {
	f, err := os.OpenFile(s.ChangelogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("steward: changelog: %w", err)
	}
	var b []byte
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			f.Close()
			return err
		}
		b = append(append(b, line...), '\n')
	}
	// One write of whole lines: a crash leaves them all or a torn tail
	// that readers skip.
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("steward: changelog: %w", err)
	}
	return nil
}

// Changelog reads the changelog (a torn last line is skipped).
func (s *Steward) Changelog() ([]ChangeEntry, error) {
	b, err := os.ReadFile(s.ChangelogPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("steward: %w", err)
	}
	var out []ChangeEntry
	for _, line := range strings.Split(string(b), "\n") {
		var e ChangeEntry
		if line != "" && json.Unmarshal([]byte(line), &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *Steward) dropPending(done []Proposal) error {
	pending, err := s.Pending()
	if err != nil {
		return err
	}
	pending = slices.DeleteFunc(pending, func(p Proposal) bool {
		return slices.ContainsFunc(done, func(d Proposal) bool { return d.ID == p.ID })
	})
	return s.SaveProposals(pending)
}

// Rollback restores the content of version v as a new version (versions
// only grow, so runs stay tied to what they used), and logs it.
func (s *Steward) Rollback(v int, reason string) (int, error) {
	cur, _, err := meta.Load(s.MetaPath)
	if err != nil {
		return 0, err
	}
	var old *meta.Document
	if v == 0 {
		old = meta.New()
	} else {
		d, exists, err := meta.Load(s.snapshotPath(v))
		if err != nil {
			return 0, err
		}
		if !exists {
			return 0, fmt.Errorf("%w: v%d (snapshots are in %s)", ErrNoVersion, v, s.HistoryDir())
		}
		old = d
	}
	if v >= cur.Version && v != 0 {
		return 0, fmt.Errorf("%w: v%d is not older than the current v%d", ErrNoVersion, v, cur.Version)
	}
	next := cloneDoc(old)
	next.Version = cur.Version + 1
	next.Updated = s.now()
	if err := s.commit(cur, next); err != nil {
		return 0, err
	}
	if reason == "" {
		reason = fmt.Sprintf("restore the content of v%d", v)
	}
	err = s.appendChangelog(ChangeEntry{Version: next.Version, Time: next.Updated, Action: "rollback", Target: fmt.Sprintf("v%d", v),
		Change: map[string]any{"from_version": cur.Version, "from_digest": cur.Digest()}, Reason: reason, By: s.By, Digest: next.Digest()})
	return next.Version, err
}
