package rlmctx

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"

	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
)

// Variable is one externalized context variable: a value the root model can
// reach only through code, described by a short summary.
//
// The token count and the summary are computed on first use ([Variable.Tokens],
// [Variable.Summary]): loading a variable for code that never shows it to a
// model (rlm exec) neither loads the tokenizer nor tokenizes samples of the
// value. A Variable must not be copied after first use.
type Variable struct {
	// Name is a valid Python identifier.
	Name string
	// Type is the declared or inferred type.
	Type VarType
	// Value is the data: string, bool, nil, int64, *big.Int, float64, []any
	// or *Dict. It is nil after [Variable.Release]: read it with
	// [Variable.GoValue].
	Value any
	// SizeBytes is the size of a string, or of the JSON encoding of other values.
	SizeBytes int64
	// ItemCount is the length of a list or dict, -1 for other values.
	ItemCount int
	// Source says where the value came from (a path, "stdin", "store:KEY",
	// "session"), or "".
	Source string
	// Note is extra text appended to the summary (e.g. that chunks exist).
	// Set it before the first call of Summary, or call [Variable.SetNote].
	Note string

	mu sync.Mutex
	// tokens, tokensEstimated and tokensDone cache Tokens; tokensFrom, when
	// set, is the variable whose count this one shares (chunk companions).
	tokens          int
	tokensEstimated bool
	tokensDone      bool
	tokensFrom      *Variable
	// summary and summaryDone cache Summary; describeFn, when set, writes
	// the summary instead of the default description.
	summary     string
	summaryDone bool
	describeFn  func(*Variable) string

	// doc is the JSON text Value was decoded from (see Document).
	doc []byte
	// docMap, when set, is a memory map of the file that doc is part of
	// (after any byte order mark): read doc with decodeDocument.
	docMap []byte
	// headItems, when positive, is how many of the document's first items
	// a summary needs (see summaryItems): its preview, its structure and
	// its token estimate read no further.
	headItems int
	// head is the token count of the summary excerpt made at load (see
	// countHead), for Tokens.
	head headCount
	// valMu guards Value and released against a concurrent Release (runs
	// sharing a context).
	valMu sync.Mutex
	// released: Release dropped Value; GoValue makes it again.
	released bool
	// chunkOf and ends describe a NAME_chunks companion made by AutoChunk
	// of a list or dict: piece i holds the parent's items ends[i-1] (0 for
	// the first) to ends[i].
	chunkOf *Variable
	ends    []int
	// itemSizes are the JSON sizes of a large list's items or dict's
	// entries, measured once for AutoChunk.
	itemSizes []int64
	// docDict: the document outlined at load is a dict (else a list).
	docDict bool
	// docLines: the document is JSON Lines (a list of its lines' values).
	docLines bool
	// values are the host's values of the document made as it was loaded
	// (LoadOptions.Values), until TakeValues; guarded by valMu.
	values any
}

// VarOption configures [NewVariable] and [ExternalizedContext.Add].
type VarOption func(*varOptions)

type varOptions struct {
	typ    VarType
	source string
	note   string
	doc    []byte
}

// WithType overrides type inference. The value must fit the type.
func WithType(t VarType) VarOption { return func(o *varOptions) { o.typ = t } }

// WithSource records where the value came from.
func WithSource(src string) VarOption { return func(o *varOptions) { o.source = src } }

// WithNote appends a note to the summary.
func WithNote(note string) VarOption { return func(o *varOptions) { o.note = note } }

// withDocument records the JSON text the value was decoded from.
func withDocument(doc []byte) VarOption { return func(o *varOptions) { o.doc = doc } }

// NewVariable validates name, normalizes value (see [Normalize]), infers or
// checks its type, and computes size and item count; the token count and
// the summary follow on first use.
func NewVariable(name string, value any, opts ...VarOption) (*Variable, error) {
	var o varOptions
	for _, opt := range opts {
		opt(&o)
	}
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	v, err := pyjson.Normalize(value)
	if err != nil {
		return nil, fmt.Errorf("variable %s: %w", name, err)
	}
	t := o.typ
	if t == "" {
		t = InferType(v)
	} else if err := checkType(t, v); err != nil {
		return nil, fmt.Errorf("variable %s: %w", name, err)
	}
	vr := &Variable{Name: name, Type: t, Value: v, Source: o.source, Note: o.note, doc: o.doc}
	vr.measure()
	return vr, nil
}

// Document is the JSON text of a variable loaded from a JSON or JSON
// Lines file or stdin (after any byte order mark, UTF-16 converted; see
// [Variable.DocumentLines]), nil for other variables and for one whose
// file is read through a memory map ([MappedJSONMin]; GoValue decodes
// it). It must not be modified: the Go value's strings point into it,
// and so may those of an interpreter's copy decoded from it.
func (v *Variable) Document() []byte {
	if v.docMap != nil {
		return nil
	}
	return v.doc
}

// WriteDocument writes the variable's JSON text to w, a memory-mapped
// one's included (see [Variable.Document]; its pages are released as
// they are written), and reports whether it has one. A mapped file that
// shrank underneath is an error, not a crash.
func (v *Variable) WriteDocument(w io.Writer) (bool, error) {
	if v.doc == nil {
		return false, nil
	}
	if v.docMap == nil {
		_, err := w.Write(v.doc)
		return true, err
	}
	// In pieces, each piece's pages released once written: the process
	// holds a few MiB of the file, not all of it.
	skip := len(v.docMap) - len(v.doc)
	return true, readingMap(v.Source, func() error {
		for off := 0; off < len(v.doc); {
			end := min(off+pyjson.ConsumedEvery, len(v.doc))
			if _, err := w.Write(v.doc[off:end]); err != nil {
				return err
			}
			off = end
			dropPages(v.docMap[:skip+off])
		}
		return nil
	})
}

// DocumentLines reports whether [Variable.Document] is JSON Lines (a
// .jsonl file: the value is the list of its lines' values) rather than
// one JSON document.
func (v *Variable) DocumentLines() bool { return v.docLines }

// Release drops the Go form of a variable that can make it again: one
// with a [Variable.Document], or a chunk companion of one (AutoChunk's
// pieces are views of the parent's Go value). A host calls it once it has
// decoded the document into its own values, so that the Go copy does not
// stay alive beside them; [Variable.GoValue] decodes the document again
// whenever the Go value is needed (a summary, a token count). It reports
// whether the value was released.
func (v *Variable) Release() bool {
	if v.doc == nil && (v.chunkOf == nil || v.chunkOf.doc == nil) {
		return false
	}
	v.valMu.Lock()
	v.Value, v.released, v.itemSizes = nil, true, nil
	v.valMu.Unlock()
	return true
}

// TakeValues returns the host's values of the variable's document that
// [LoadVar] made in the pass that outlined it ([LoadOptions].Values), and
// forgets them: only the first call gets them (they are the host's to
// change), later calls and variables loaded without them report false,
// and the host decodes [Variable.Document] instead.
func (v *Variable) TakeValues() (any, bool) {
	v.valMu.Lock()
	defer v.valMu.Unlock()
	vals := v.values
	v.values = nil
	return vals, vals != nil
}

// Chunks returns, for a NAME_chunks companion made by
// [ExternalizedContext.AutoChunk] from a list or dict variable, that
// variable and the end index of each piece in its items (piece i holds
// items ends[i-1], or 0, to ends[i]).
func (v *Variable) Chunks() (parent *Variable, ends []int, ok bool) {
	return v.chunkOf, v.ends, v.chunkOf != nil
}

// GoValue returns Value, made again from the document after
// [Variable.Release] (a decoding each call: callers hold on to it for the
// time they need it).
func (v *Variable) GoValue() any {
	v.valMu.Lock()
	val, released := v.Value, v.released
	v.valMu.Unlock()
	if !released {
		return val
	}
	if v.chunkOf != nil {
		return pieces(v.chunkOf.GoValue(), v.ends)
	}
	g, err := decodeDocument(v.doc, v.docLines, v.docMap != nil, v.Source, 0)
	if err != nil {
		return nil // decoded without error when loaded
	}
	return g
}

// summaryValue is the Go value a summary describes, and the number of
// items the variable has (-1: the value's own length). For a released
// document with headItems it is the document's head: its first headItems
// items, all that a summary reads (the rest is neither decoded nor made).
func (v *Variable) summaryValue() (any, int) {
	v.valMu.Lock()
	released := v.released
	v.valMu.Unlock()
	if !released || v.chunkOf != nil || v.headItems <= 0 {
		return v.GoValue(), -1
	}
	g, err := decodeDocument(v.doc, v.docLines, v.docMap != nil, v.Source, v.headItems)
	if err != nil {
		return v.GoValue(), -1
	}
	return g, v.ItemCount
}

// summaryItems is how many of a document's first items (of the given
// encoded sizes) a summary reads, or 0 for all: the inferSample items
// that show its structure, and enough items for the token estimate's
// sample (tokenSample) with something to spare. Counting a type's items
// (a conversation's roles) reads them all, and so does an exact count
// (a document up to the estimate threshold).
func summaryItems(t VarType, size int64, items []outline) int {
	limit, sample := tokenSample()
	if t == Conversation || limit <= 0 || size <= limit {
		return 0
	}
	var sum int64
	for i, it := range items {
		sum += it.size
		if i+1 >= inferSample && sum > int64(sample) {
			if i+1 < len(items) {
				return i + 1
			}
			break
		}
	}
	return 0
}

// tokenSample returns the default tokenizer's estimate threshold and how
// many bytes of a larger value's JSON encoding its estimate counts
// (the default tokenizer's threshold: this does not make the tokenizer,
// which loads its vocabulary, for a host that counts no tokens).
func tokenSample() (limit int64, sample int) {
	return llm.DefaultEstimateThreshold, llm.EstimateSample(llm.DefaultEstimateThreshold)
}

// pieces cuts a list or dict into the pieces ending at ends (a list's
// pieces are views of its items, a dict's new dicts of the same values).
func pieces(val any, ends []int) []any {
	out := make([]any, 0, len(ends))
	start := 0
	for _, end := range ends {
		switch x := val.(type) {
		case []any:
			out = append(out, x[start:end:end])
		case *Dict:
			d := NewDict(end - start)
			for _, k := range x.Keys()[start:end] {
				e, _ := x.Get(k)
				d.Set(k, e)
			}
			out = append(out, d)
		}
		start = end
	}
	return out
}

// Tokens returns the value's token count with the default tokenizer, and
// whether it was estimated from samples rather than counted exactly (texts
// over [llm.DefaultEstimateThreshold], other values whose JSON encoding is).
// It is computed on the first call.
func (v *Variable) Tokens() (n int, estimated bool) {
	return v.tokensOf(v.GoValue)
}

// tokensOf is Tokens, taking the Go value from value when it is counted.
func (v *Variable) tokensOf(value func() any) (n int, estimated bool) {
	if v.tokensFrom != nil {
		return v.tokensFrom.Tokens()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.tokensDone {
		if n, ok := v.head.estimate(v.SizeBytes); ok {
			v.tokens, v.tokensEstimated = n, true
		} else {
			v.tokens, v.tokensEstimated = countTokens(value(), v.SizeBytes)
		}
		v.tokensDone = true
	}
	return v.tokens, v.tokensEstimated
}

// Summary is the deterministic description shown to the root model (at
// most [MaxSummaryTokens] with the name), computed on the first call.
func (v *Variable) Summary() string {
	v.mu.Lock()
	done, s, fn := v.summaryDone, v.summary, v.describeFn
	v.mu.Unlock()
	if done {
		return s
	}
	if fn != nil {
		v.Tokens() // outside v.mu: the description reads them
		s = fn(v)
	} else {
		// One Go value for the count and the description: after Release
		// each GoValue decodes the document again (only its head when
		// that is all the summary reads).
		val, items := v.summaryValue()
		v.tokensOf(func() any { return val }) // outside v.mu: the description reads them
		s = summarize(v, val, items)
	}
	v.mu.Lock()
	v.summary, v.summaryDone = s, true
	v.mu.Unlock()
	return s
}

// SetNote replaces the note and makes the summary be written again.
func (v *Variable) SetNote(note string) {
	v.mu.Lock()
	v.Note, v.summaryDone = note, false
	v.mu.Unlock()
}

// measure fills SizeBytes and ItemCount.
func (v *Variable) measure() {
	v.ItemCount = -1
	switch x := v.Value.(type) {
	case string:
		v.SizeBytes = int64(len(x))
		return
	case []any:
		v.ItemCount = len(x)
	case *Dict:
		v.ItemCount = x.Len()
	default:
		v.SizeBytes = pyjson.Size(v.Value)
		return
	}
	sizes := itemSizes(v.Value)
	// [a, b] or {"k": v, "l": w}: the items, their ", " separators and
	// the brackets, as pyjson.Size counts them.
	v.SizeBytes = 2 + 2*int64(max(len(sizes)-1, 0))
	for _, n := range sizes {
		v.SizeBytes += n
	}
	if v.SizeBytes >= keepItemSizes {
		v.itemSizes = sizes // for AutoChunk, which drops them
	}
}

// keepItemSizes is the size from which a list or dict variable keeps its
// items' sizes for AutoChunk (smaller ones are measured again).
const keepItemSizes = 64 << 10

// countTokens counts value's tokens: exactly up to the tokenizer's
// EstimateThreshold, else estimated (texts sample evenly through
// CountLarge; other values from the first MB of their encoding).
func countTokens(value any, size int64) (int, bool) {
	tok := llm.DefaultTokenizer()
	if s, ok := value.(string); ok {
		return tok.CountLarge(s)
	}
	limit, sample := tokenSample()
	if limit <= 0 || size <= limit {
		return tok.Count(pyjson.Excerpt(value, -1)), false
	}
	head := pyjson.Excerpt(value, sample)
	if len(head) == 0 {
		return 0, false
	}
	return int(float64(tok.Count(head)) * float64(size) / float64(len(head))), true
}

// pythonKeywords are reserved words that cannot name a variable.
var pythonKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true,
	"def": true, "del": true, "elif": true, "else": true, "except": true,
	"finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true,
	"not": true, "or": true, "pass": true, "raise": true, "return": true,
	"try": true, "while": true, "with": true, "yield": true,
}

// reservedPrefix starts the sandbox runtime's helper names.
const reservedPrefix = "_py_"

// ValidateName checks that name is a valid Python identifier, not a
// keyword and not reserved (_py_*).
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty name (use a Python identifier such as data or my_file)", ErrInvalidName)
	}
	for i, r := range name {
		ok := r == '_' || unicode.IsLetter(r) || (i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)))
		if !ok {
			what := fmt.Sprintf("character %q at position %d", r, i)
			if i == 0 && unicode.IsDigit(r) {
				what = "it starts with a digit"
			}
			return fmt.Errorf(
				"%w %q: %s; use letters, digits and underscores, not starting with a digit (e.g. %s)",
				ErrInvalidName,
				name,
				what,
				suggestName(name),
			)
		}
	}
	if strings.HasPrefix(name, reservedPrefix) {
		return fmt.Errorf("%w %q: names starting with %s are reserved for the sandbox runtime", ErrInvalidName, name, reservedPrefix)
	}
	if pythonKeywords[name] {
		return fmt.Errorf("%w %q: it is a Python keyword; choose another name (e.g. %s_)", ErrInvalidName, name, name)
	}
	return nil
}

// suggestName turns an arbitrary string into a plausible identifier.
func suggestName(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			if i == 0 && unicode.IsDigit(r) {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "data"
	}
	return b.String()
}

// ExternalizedContext is the query plus the named variables the root model
// explores through code (spec SPEC-25.01).
type ExternalizedContext struct {
	// Query is the task text, the only content sent to the root model.
	Query string
	// Vars are the variables in the order they were added.
	Vars []*Variable
	// TotalSizeBytes is the sum of the variables' SizeBytes (chunk companion
	// lists made by AutoChunk are not counted twice).
	TotalSizeBytes int64
}

// NewContext returns an empty context for query.
func NewContext(query string) *ExternalizedContext { return &ExternalizedContext{Query: query} }

// Add makes a variable with [NewVariable] and appends it. Names must be
// unique.
func (c *ExternalizedContext) Add(name string, value any, opts ...VarOption) (*Variable, error) {
	if _, ok := c.Get(name); ok {
		return nil, fmt.Errorf("%w %q: each variable needs its own name", ErrDuplicateVar, name)
	}
	v, err := NewVariable(name, value, opts...)
	if err != nil {
		return nil, err
	}
	c.add(v, true)
	return v, nil
}

// AddVariable appends an already built variable.
func (c *ExternalizedContext) AddVariable(v *Variable) error {
	if err := ValidateName(v.Name); err != nil {
		return err
	}
	if _, ok := c.Get(v.Name); ok {
		return fmt.Errorf("%w %q", ErrDuplicateVar, v.Name)
	}
	c.add(v, true)
	return nil
}

func (c *ExternalizedContext) add(v *Variable, count bool) {
	c.Vars = append(c.Vars, v)
	if count {
		c.TotalSizeBytes += v.SizeBytes
	}
}

// Get returns the variable called name.
func (c *ExternalizedContext) Get(name string) (*Variable, bool) {
	for _, v := range c.Vars {
		if v.Name == name {
			return v, true
		}
	}
	return nil, false
}

// Names lists the variable names in order.
func (c *ExternalizedContext) Names() []string {
	out := make([]string, len(c.Vars))
	for i, v := range c.Vars {
		out[i] = v.Name
	}
	return out
}

// Values maps each variable name to its value.
func (c *ExternalizedContext) Values() map[string]any {
	out := make(map[string]any, len(c.Vars))
	for _, v := range c.Vars {
		out[v.Name] = v.GoValue()
	}
	return out
}

// VariableSummaries renders one line per variable for the root prompt:
// "- NAME: SUMMARY". It never includes more than a short preview of a value.
func (c *ExternalizedContext) VariableSummaries() string {
	if len(c.Vars) == 0 {
		return "(no context variables)"
	}
	var b strings.Builder
	for i, v := range c.Vars {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(summaryLine(v.Name, v.Summary()))
	}
	return b.String()
}

func summaryLine(name, summary string) string { return "- " + name + ": " + summary }
