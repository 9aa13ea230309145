package orchestrator

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/rlmhq/rlm/builtins"
)

// TrajectoryVersion is the schema version written in every trajectory
// event ("v"). See TRAJECTORY.md.
const TrajectoryVersion = 1

// Event types of the trajectory.
const (
	EventRunStart    = "run_start"
	EventRequest     = "request"
	EventReply       = "reply"
	EventExec        = "exec"
	EventDeferred    = "deferred"
	EventSubCall     = "sub_call"
	EventCompression = "compression"
	EventChildStart  = "child_start"
	EventChildEnd    = "child_end"
	EventSubmit      = "submit"
	EventObservation = "observation"
	EventRunEnd      = "run_end"
)

// Event is one line of the JSONL trajectory.
type Event struct {
	V         int    `json:"v"`
	Type      string `json:"type"`
	Run       string `json:"run"`
	Step      int    `json:"step,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Data      any    `json:"data,omitempty"`
}

// EventWriter is implemented by a Config.Trajectory writer that takes
// whole events: the engine calls WriteEvent with each event's JSON line
// (newline included; valid only during the call) and the event it
// encodes, instead of Write with the line, so that a reader of a few of
// its fields ([Event.Fields]) need not parse the line. An error ends the
// trajectory, as Write's does.
type EventWriter interface {
	WriteEvent(line []byte, ev *Event) error
}

// EventFields are the fields of an event's data that rlm reads besides
// the trajectory's own readers (a server's metrics, a run directory's
// step outputs), as the engine made them: zero where the event's type has
// none.
type EventFields struct {
	// Model is the model asked (request, reply, sub_call).
	Model string
	// LatencyMS is a call's wall time (reply, sub_call; nil otherwise),
	// FirstByteMS its upstream's time to first byte (0: not measured).
	LatencyMS   *int64
	FirstByteMS float64
	// Memoized marks a sub_call answered by an earlier identical one.
	Memoized bool
	// Error is a reply's or an exec's error.
	Error string
	// Output is an exec's full output.
	Output string
	// Tokens are a request's section sizes.
	Tokens SectionTokens
	// PreTokens and PostTokens are a compression's sizes.
	PreTokens, PostTokens int
	// Mode is a child_start's kind of child ("rlm" or "llm").
	Mode string
}

// Fields returns the [EventFields] of an event the engine emitted (zero
// for an event decoded from a line: its Data is not the engine's).
func (e *Event) Fields() EventFields {
	switch d := e.Data.(type) {
	case requestData:
		return EventFields{Model: d.Model, Tokens: d.Tokens}
	case replyData:
		return EventFields{Model: d.Model, LatencyMS: &d.LatencyMS, FirstByteMS: d.FirstByteMS, Error: d.Error}
	case builtins.Op:
		return EventFields{Model: d.Model, LatencyMS: &d.LatencyMS, FirstByteMS: d.FirstByteMS, Memoized: d.Memoized, Error: d.Error}
	case execData:
		return EventFields{Error: d.Error, Output: d.Output}
	case CompressionArtifact:
		return EventFields{PreTokens: d.PreTokens, PostTokens: d.PostTokens}
	case childStartData:
		return EventFields{Mode: d.Mode}
	}
	return EventFields{}
}

// ParseEvent reads a trajectory line's type, run and step, and the
// [EventFields] its data holds (for a writer handed the line without its
// event: [Event.Fields] from the event itself needs no parsing). Data is
// left unset.
func ParseEvent(line []byte) (*Event, EventFields, error) {
	var e struct {
		Type string `json:"type"`
		Run  string `json:"run"`
		Step int    `json:"step"`
		Data struct {
			Model      string        `json:"model"`
			LatencyMS  *int64        `json:"latency_ms"`
			FirstByte  float64       `json:"first_byte_ms"`
			Memoized   bool          `json:"memoized"`
			Error      string        `json:"error"`
			Output     string        `json:"output"`
			Tokens     SectionTokens `json:"tokens"`
			PreTokens  int           `json:"pre_tokens"`
			PostTokens int           `json:"post_tokens"`
			Mode       string        `json:"mode"`
		} `json:"data"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return &Event{}, EventFields{}, err
	}
	d := e.Data
	return &Event{Type: e.Type, Run: e.Run, Step: e.Step}, EventFields{
		Model: d.Model, LatencyMS: d.LatencyMS, FirstByteMS: d.FirstByte, Memoized: d.Memoized, Error: d.Error,
		Output: d.Output, Tokens: d.Tokens, PreTokens: d.PreTokens, PostTokens: d.PostTokens, Mode: d.Mode,
	}, nil
}

// trajectory serialises events from every RLM of the tree to one writer.
type trajectory struct {
	mu    sync.Mutex
	enc   *json.Encoder
	start time.Time
	err   error
	// ew, when the writer is an EventWriter, takes the events encoded
	// into buf.
	ew  EventWriter
	buf bytes.Buffer
}

func newTrajectory(w io.Writer, start time.Time) *trajectory {
	if w == nil {
		return nil
	}
	t := &trajectory{start: start}
	if ew, ok := w.(EventWriter); ok {
		t.ew = ew
		w = &t.buf
	}
	t.enc = json.NewEncoder(w)
	t.enc.SetEscapeHTML(false)
	return t
}

func (t *trajectory) emit(typ, run string, step int, data any) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	ev := Event{V: TrajectoryVersion, Type: typ, Run: run, Step: step, ElapsedMS: time.Since(t.start).Milliseconds(), Data: data}
	if t.ew == nil {
		t.err = t.enc.Encode(ev)
		return
	}
	t.buf.Reset()
	if t.err = t.enc.Encode(ev); t.err == nil {
		t.err = t.ew.WriteEvent(t.buf.Bytes(), &ev)
	}
}

// Payloads.

type runStartData struct {
	Query     string      `json:"query"`
	Depth     int         `json:"depth"`
	Parent    string      `json:"parent,omitempty"`
	Protocol  Protocol    `json:"protocol"`
	Outputs   string      `json:"outputs"`
	Variables []varInfo   `json:"variables"`
	Limits    limitsInfo  `json:"limits"`
	Config    any         `json:"config,omitempty"`
	Budgets   budgetsInfo `json:"budgets"`
	Meta      *MetaNotes  `json:"meta,omitempty"`
	// Clock is the time the sandbox's clock started at (RFC 3339, UTC).
	Clock string `json:"clock,omitempty"`
}

type varInfo struct {
	Name      string `json:"name"`
	Type      string `json:"type,omitempty"`
	SizeBytes int64  `json:"size_bytes"`
}

type limitsInfo struct {
	MaxIterations int     `json:"max_iterations"`
	MaxDepth      int     `json:"max_depth"`
	MaxCalls      int     `json:"max_llm_calls,omitempty"`
	MaxTokens     int     `json:"max_tokens,omitempty"`
	MaxCostUSD    float64 `json:"max_cost_usd,omitempty"`
	TimeoutMS     int64   `json:"timeout_ms,omitempty"`
}

type budgetsInfo struct {
	System     int     `json:"system"`
	Meta       int     `json:"meta"`
	Dynamic    int     `json:"dynamic"`
	CompressAt float64 `json:"compress_at"`
}

type requestData struct {
	Model      string        `json:"model,omitempty"`
	Messages   int           `json:"messages"`
	Tokens     SectionTokens `json:"tokens"`
	Total      int           `json:"total_tokens"`
	PrefixHash string        `json:"prefix_hash"`
	Final      bool          `json:"final_extraction,omitempty"`
	Nudge      bool          `json:"nudge,omitempty"`
	// OverBudget is how many tokens the dynamic section is over
	// Config.DynamicBudget after compression and clamping (e.g. a reply
	// whose tool-call arguments alone exceed it).
	OverBudget int `json:"over_budget_tokens,omitempty"`
}

type replyData struct {
	// Model is the model asked; LatencyMS the call's wall time (its
	// retries included).
	Model     string `json:"model,omitempty"`
	LatencyMS int64  `json:"latency_ms"`
	// FirstByteMS is the upstream's time to first byte of the answering
	// attempt (absent when not measured: a replayed answer).
	FirstByteMS  float64    `json:"first_byte_ms,omitempty"`
	Content      string     `json:"content"`
	ToolCalls    []toolInfo `json:"tool_calls,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`
	Usage        any        `json:"usage"`
	Error        string     `json:"error,omitempty"`
}

type toolInfo struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type execData struct {
	Block     int    `json:"block"`
	Code      string `json:"code"`
	Output    string `json:"output"`
	Truncated bool   `json:"truncated,omitempty"`
	Error     string `json:"error,omitempty"`
	Origin    string `json:"origin,omitempty"` // of error: OriginRaise or OriginEngine
	Submitted bool   `json:"submitted,omitempty"`
	ToolCall  string `json:"tool_call_id,omitempty"`
}

type observationData struct {
	Engine      string       `json:"engine"`
	ToolResults []toolResult `json:"tool_results,omitempty"`
}

type toolResult struct {
	ID      string `json:"tool_call_id"`
	Content string `json:"content"`
}

type childStartData struct {
	Child string   `json:"child"`
	Query string   `json:"query"`
	Vars  []string `json:"vars"`
	Depth int      `json:"depth"`
	Mode  string   `json:"mode"` // "rlm" or "llm"
}

type childEndData struct {
	Child      string `json:"child"`
	Answer     string `json:"answer"`
	StopReason string `json:"stop_reason,omitempty"`
	Error      string `json:"error,omitempty"`
	// Partial marks an answer from a child stopped by a limit before a
	// valid SUBMIT; Extracted one from its final extraction turn.
	Partial   bool `json:"partial,omitempty"`
	Extracted bool `json:"final_extraction,omitempty"`
	// Usage is the model usage and time of the child and its own
	// children (for a plain sub-call at the depth limit, its one call).
	Usage *usageData `json:"usage,omitempty"`
}

type submitData struct {
	Outputs  json.RawMessage `json:"outputs"`
	Valid    bool            `json:"valid"`
	Error    string          `json:"error,omitempty"`
	Final    bool            `json:"final_extraction,omitempty"`
	ToolCall string          `json:"tool_call_id,omitempty"`
}

type runEndData struct {
	StopReason StopReason      `json:"stop_reason"`
	Error      string          `json:"error,omitempty"`
	Answer     string          `json:"answer"`
	Outputs    json.RawMessage `json:"outputs,omitempty"`
	Partial    bool            `json:"partial,omitempty"`
	Extracted  bool            `json:"final_extraction,omitempty"`
	Iterations int             `json:"iterations"`
	Usage      any             `json:"usage,omitempty"`
	ByModel    any             `json:"usage_by_model,omitempty"`
	CostUSD    float64         `json:"cost_usd,omitempty"`
	CostKnown  bool            `json:"cost_known,omitempty"`
	DurationMS int64           `json:"duration_ms"`
	Metrics    *Metrics        `json:"metrics,omitempty"`
	// TreeUsage is the model usage and time of the RLM and its children
	// (for the root: the whole tree).
	TreeUsage *usageData `json:"tree_usage,omitempty"`
}
