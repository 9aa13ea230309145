package meta

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rlmhq/rlm/internal/atomicfile"
	"github.com/rlmhq/rlm/llm"
)

// SchemaVersion is the schema_version this engine reads and writes.
const SchemaVersion = 1

// DefaultNotesBudget is the default token budget of the rendered lessons
// inside the meta section.
const DefaultNotesBudget = 240

// SchemaJSON is the published JSON Schema of the meta document
// (meta/meta.schema.json); [Parse] validates every document against it.
//
//go:embed meta.schema.json
var SchemaJSON []byte

// Document is the meta document (.rlm/meta.json).
type Document struct {
	SchemaVersion int       `json:"schema_version"`
	Version       int       `json:"version"`
	Updated       time.Time `json:"updated,omitzero"`
	Lessons       []Lesson  `json:"lessons"`
	Budgets       []Budget  `json:"budgets"`
}

// Lesson is one note of the meta section, rendered from a template.
type Lesson struct {
	ID       string `json:"id"`
	Template string `json:"template"`
	Params   Params `json:"params,omitzero"`
	// Model scopes the lesson to runs of one root model ("" = all).
	Model string `json:"model,omitempty"`
	// Text is LessonText(Template, Params), kept for review.
	Text string `json:"text"`
	// Since is the document version that added or last changed it.
	Since int `json:"since,omitempty"`
	// Sources point at the evidence that added it: kept run ids (and
	// rlm bench result keys, bench:...), at most MaxSources. Never run
	// text: each matches SourcePattern.
	Sources []string `json:"sources,omitempty"`
}

// MaxSources bounds Lesson.Sources.
const MaxSources = 20

// SourcePattern is what a Lesson.Sources entry looks like: a kept run id,
// or bench: and an rlm bench result key.
var SourcePattern = regexp.MustCompile(`^([0-9]{8}-[0-9]{6}-[0-9a-f]{12}|bench:[A-Za-z0-9._/:+-]{1,120})$`)

// Budget holds the recommended budgets for one root model; zero fields
// recommend nothing.
type Budget struct {
	Model             string `json:"model"`
	HistoryTokens     int    `json:"history_tokens,omitempty"`
	ObservationTokens int    `json:"observation_tokens,omitempty"`
	MaxIterations     int    `json:"max_iterations,omitempty"`
	Since             int    `json:"since,omitempty"`
}

// New returns the empty document (version 0).
func New() *Document {
	return &Document{SchemaVersion: SchemaVersion, Lessons: []Lesson{}, Budgets: []Budget{}}
}

// MaxDocumentBytes bounds the size of a meta document Load reads (its
// lessons are a few hundred tokens; the file stays far smaller).
const MaxDocumentBytes = 8 << 20

// Load reads and validates the meta document at path. A missing file is
// the empty document (exists false); an invalid one is an error naming
// the file, the field and the reason, wrapping ErrInvalid. A path that is
// not a regular file (ErrNotRegular) or a file over MaxDocumentBytes
// (ErrTooLarge) is refused before it is read.
func Load(path string) (doc *Document, exists bool, err error) {
	b, err := readRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		return New(), false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("meta: %w", err)
	}
	d, err := Parse(b)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", path, err)
	}
	return d, true, nil
}

// readRegular reads the regular file at path, at most MaxDocumentBytes.
func readRegular(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	if fi.Size() > MaxDocumentBytes {
		return nil, fmt.Errorf("%s: %w: %d bytes, at most %d", path, ErrTooLarge, fi.Size(), MaxDocumentBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxDocumentBytes+1))
	if err == nil && len(b) > MaxDocumentBytes {
		err = fmt.Errorf("%s: %w: over %d bytes", path, ErrTooLarge, MaxDocumentBytes)
	}
	return b, err
}

// Parse validates data against the schema and the engine's rules and
// decodes it.
func Parse(data []byte) (*Document, error) {
	sch, err := loadedSchema()
	if err != nil {
		return nil, err
	}
	serr, err := sch.validateJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%w: not JSON: %v", ErrInvalid, err)
	}
	if serr != nil {
		return nil, fmt.Errorf("%w: field %s: %s", ErrInvalid, serr.field(), serr.reason)
	}
	var d Document
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	return &d, nil
}

// Check applies the rules the schema cannot state: every lesson's id and
// text are those of its template, ids and budget models are unique.
func (d *Document) Check() error {
	if d.SchemaVersion != SchemaVersion {
		return fmt.Errorf("%w: field schema_version: %d, this rlm reads %d", ErrInvalid, d.SchemaVersion, SchemaVersion)
	}
	ids := map[string]bool{}
	for i, l := range d.Lessons {
		text, err := LessonText(l.Template, l.Params)
		if err != nil {
			return fmt.Errorf("%w: field lessons[%d]: %v", ErrInvalid, i, err)
		}
		if l.Text != text {
			return fmt.Errorf(
				"%w: field lessons[%d].text: not the text of template %s (lesson text is engine-authored: %q)",
				ErrInvalid,
				i,
				l.Template,
				text,
			)
		}
		if want := LessonID(l.Template, l.Model); l.ID != want {
			return fmt.Errorf("%w: field lessons[%d].id: %q, want %q (template, then @model when scoped)", ErrInvalid, i, l.ID, want)
		}
		if ids[l.ID] {
			return fmt.Errorf("%w: field lessons[%d].id: %q appears twice", ErrInvalid, i, l.ID)
		}
		if len(l.Sources) > MaxSources {
			return fmt.Errorf("%w: field lessons[%d].sources: %d entries, at most %d", ErrInvalid, i, len(l.Sources), MaxSources)
		}
		for j, src := range l.Sources {
			if !SourcePattern.MatchString(src) {
				return fmt.Errorf("%w: field lessons[%d].sources[%d]: %q is not a kept run id or a bench:KEY", ErrInvalid, i, j, src)
			}
		}
		ids[l.ID] = true
	}
	models := map[string]bool{}
	for i, b := range d.Budgets {
		if models[b.Model] {
			return fmt.Errorf("%w: field budgets[%d].model: %q appears twice", ErrInvalid, i, b.Model)
		}
		models[b.Model] = true
	}
	return nil
}

// Marshal encodes the document in its canonical form: lessons sorted by
// id, budgets by model, indented.
func (d *Document) Marshal() ([]byte, error) {
	c := *d
	c.Lessons = append([]Lesson{}, d.Lessons...)
	c.Budgets = append([]Budget{}, d.Budgets...)
	sort.Slice(c.Lessons, func(i, j int) bool { return c.Lessons[i].ID < c.Lessons[j].ID })
	sort.Slice(c.Budgets, func(i, j int) bool { return c.Budgets[i].Model < c.Budgets[j].Model })
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Save validates d (schema included) and writes it to path atomically.
func (d *Document) Save(path string) error {
	b, err := d.Marshal()
	if err != nil {
		return fmt.Errorf("meta: %w", err)
	}
	if _, err := Parse(b); err != nil {
		return err
	}
	if err := atomicfile.Write(path, b, 0o644); err != nil {
		return fmt.Errorf("meta: write %s: %w", path, err)
	}
	return nil
}

// Digest is a short hash of the document's content (lessons and budgets,
// not the version or time): equal digests render equal meta sections.
func (d *Document) Digest() string {
	c := Document{SchemaVersion: d.SchemaVersion, Lessons: d.Lessons, Budgets: d.Budgets}
	b, _ := c.Marshal()
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// notesHeader starts the rendered lessons.
const notesHeader = "Notes from earlier runs (kept by the engine from their errors):"

// Render returns the lessons that apply to runs of model (those without a
// model and those scoped to it), in id order, as the notes block of the
// meta section, within budget tokens: a lesson that does not fit is left
// out whole, and so are the ones after it. ids lists the lessons rendered.
// The text depends only on the document, the model and the budget, so the
// prompt prefix stays byte-identical (cacheable) until the document
// changes.
func (d *Document) Render(model string, budget int, tok *llm.Tokenizer) (text string, ids []string) {
	ls := d.applicable(model)
	if len(ls) == 0 {
		return "", nil
	}
	if tok == nil {
		tok = llm.TokenizerForModel(model)
	}
	lines := []string{notesHeader}
	for _, l := range ls {
		next := append(lines, "- "+l.Text)
		if tok.Count(strings.Join(next, "\n")) > budget {
			break
		}
		lines = next
		ids = append(ids, l.ID)
	}
	if len(ids) == 0 {
		return "", nil
	}
	return strings.Join(lines, "\n"), ids
}

func (d *Document) applicable(model string) []Lesson {
	var ls []Lesson
	for _, l := range d.Lessons {
		if l.Model == "" || l.Model == model {
			ls = append(ls, l)
		}
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].ID < ls[j].ID })
	return ls
}

// CheckBudget reports (wrapping ErrOverBudget) when the lessons that apply
// to some root model do not all fit budget tokens.
func (d *Document) CheckBudget(budget int, tok *llm.Tokenizer) error {
	scopes := []string{""}
	seen := map[string]bool{}
	for _, l := range d.Lessons {
		if l.Model != "" && !seen[l.Model] {
			seen[l.Model] = true
			scopes = append(scopes, l.Model)
		}
	}
	for _, m := range scopes {
		all := len(d.applicable(m))
		if _, ids := d.Render(m, budget, tok); len(ids) < all {
			who := "every model"
			if m != "" {
				who = "model " + m
			}
			return fmt.Errorf("%w: %d of the %d lessons for %s fit %d tokens", ErrOverBudget, len(ids), all, who, budget)
		}
	}
	return nil
}

// BudgetFor returns the recommended budgets for model, if any.
func (d *Document) BudgetFor(model string) (Budget, bool) {
	for _, b := range d.Budgets {
		if b.Model == model {
			return b, true
		}
	}
	return Budget{}, false
}

// SourcesOf returns the sources of the lessons ids, by id (nil when none
// has any), for a run's record of the lessons its prompt had.
func (d *Document) SourcesOf(ids []string) map[string][]string {
	var out map[string][]string
	for _, l := range d.Lessons {
		if len(l.Sources) > 0 && slices.Contains(ids, l.ID) {
			if out == nil {
				out = map[string][]string{}
			}
			out[l.ID] = l.Sources
		}
	}
	return out
}
