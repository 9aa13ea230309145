package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/numfmt"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
)

// run is one RLM of the tree (the root or a child).
type run struct {
	t       *tree
	id      string
	depth   int
	maxIter int
	schema  Schema
	env     *envelope
	exec    Executor
	node    *usageNode // the RLM's usage and active time

	iterations int
	curStep    int
	consecErrs int
	lastHash   string
	childMu    sync.Mutex
	childUsed  map[string]bool
	notes      []string // observation notes from child runs (childMu)

	summary    []summaryEntry
	llmSummary string          // the Summarizer's latest summary ("" when none or it failed)
	known      map[string]bool // globals seen so far

	lastRejected *rlmctx.Dict
	lastText     string
}

type runSpec struct {
	id, parent string
	depth      int
	query      string
	schema     Schema
	maxIter    int
	vars       []Var
	summaries  string
	infos      []varInfo
}

func newRun(ctx context.Context, t *tree, s runSpec) (*run, error) {
	cfg := t.cfg
	r := &run{t: t, id: s.id, depth: s.depth, maxIter: s.maxIter, schema: s.schema, known: map[string]bool{}}
	r.env = buildEnvelope(cfg, s.query, s.summaries, s.infos, s.schema, s.maxIter, s.depth)
	ex, err := cfg.Executors(ctx, ExecSpec{
		RunID: s.id, Depth: s.depth, Vars: s.vars, Child: r, Store: cfg.Store,
		Model: r.subModel(), SubModel: cfg.SubModel, Embedder: cfg.Embedder, Ledger: cfg.Ledger,
		SubMaxOutputTokens: cfg.MaxOutputTokens, Limits: cfg.Limits, Clock: t.clock,
		TraceOps: cfg.Trajectory != nil, TraceFull: cfg.TrajectoryFull, Now: t.now,
	})
	if err != nil {
		return nil, fmt.Errorf("orchestrator: creating the REPL: %w", err)
	}
	r.node = t.node(s.id)
	r.exec = timedExec{ex, r.node}
	for _, g := range ex.Globals() {
		r.known[g] = true
	}
	lim := cfg.Ledger.Limits()
	var notes *MetaNotes
	if s.depth == 0 {
		notes = &cfg.Meta
	}
	t.traj.emit(EventRunStart, r.id, 0, runStartData{
		Meta:  notes,
		Clock: t.clock.Format(time.RFC3339Nano),
		Query: s.query, Depth: s.depth, Parent: s.parent, Protocol: cfg.Protocol, Outputs: s.schema.String(),
		Variables: s.infos, Config: configFor(cfg, s.depth),
		Limits: limitsInfo{MaxIterations: s.maxIter, MaxDepth: cfg.MaxDepth, MaxCalls: lim.MaxCalls, MaxTokens: lim.MaxTokens,
			MaxCostUSD: lim.MaxCostUSD, TimeoutMS: cfg.Timeout.Milliseconds()},
		Budgets: budgetsInfo{
			System:     cfg.SystemBudget,
			Meta:       cfg.metaBudget(len(s.infos)) + cfg.notesTokens(),
			Dynamic:    cfg.DynamicBudget,
			CompressAt: cfg.CompressAt,
		},
	})
	return r, nil
}

func configFor(cfg Config, depth int) any {
	if depth > 0 {
		return nil
	}
	return cfg.RunConfig
}

// buildEnvelope renders the stable sections of an RLM's prompt.
func buildEnvelope(cfg Config, query, summaries string, infos []varInfo, schema Schema, maxIter, depth int) *envelope {
	var system string
	if cfg.HelperDocs != "" {
		system = systemPrompt(cfg.Protocol, cfg.HelperDocs, cfg.Limits.ObservationTokens)
	} else {
		// Each helper described once, as it behaves at this depth and
		// for these outputs.
		system = defaultSystemPrompt(cfg.Protocol, builtins.HelpOptions{
			AtDepthLimit:  depth+1 >= cfg.MaxDepth,
			MaxDepth:      cfg.MaxDepth,
			NoFinal:       !schema.singleAnswer(),
			Store:         cfg.Store != nil,
			StoreChildren: cfg.Store != nil && cfg.Store.Children != "" && depth+1 < cfg.MaxDepth,
		}, cfg.Limits.ObservationTokens)
	}
	env := &envelope{System: system, Query: query, nudge: nudgeText}
	if cfg.Protocol == ProtocolTools {
		env.nudge = nudgeTool
	}
	env.Meta = fitMeta(cfg, summaries, infos, schema, maxIter)
	if cfg.Meta.Text != "" {
		env.Meta += "\n\n" + cfg.Meta.Text
	}
	return env
}

// notesTokens counts the meta document's notes (and their separator) in
// the meta section.
func (c Config) notesTokens() int {
	if c.Meta.Text == "" {
		return 0
	}
	return c.Tokenizer.Count("\n\n" + c.Meta.Text)
}

// metaBudget is the meta section's budget for n variables: MetaBudget plus
// MetaTokensPerVar for each variable, up to MaxMetaBudget.
func (c Config) metaBudget(n int) int {
	b := c.MetaBudget + c.MetaTokensPerVar*n
	return max(min(b, c.MaxMetaBudget), c.MetaBudget)
}

// fitMeta renders the meta section within the meta budget: the variable
// summaries when they fit, else one compact line per variable (name, type,
// size), else as many compact lines as fit and a pointer to show_vars().
func fitMeta(cfg Config, summaries string, infos []varInfo, schema Schema, maxIter int) string {
	tok := cfg.Tokenizer
	budget := cfg.metaBudget(len(infos))
	meta := metaPrompt(summaries, schema, cfg.Protocol, maxIter)
	if tok.Count(meta) <= budget {
		return meta
	}
	if len(infos) > 1 {
		compact := compactVarLines(infos)
		if m := metaPrompt(compact, schema, cfg.Protocol, maxIter); tok.Count(m) <= budget {
			return m
		}
		summaries = compact
	}
	rest := tok.Count(metaPrompt("", schema, cfg.Protocol, maxIter))
	room := budget - rest
	if room < 40 {
		room = 40
	}
	cut := truncateToTokens(tok, summaries, room, "- … more variables not listed: call show_vars()")
	return metaPrompt(cut, schema, cfg.Protocol, maxIter)
}

// compactVarLines is one line per variable: name, type and size.
func compactVarLines(infos []varInfo) string {
	lines := make([]string, len(infos))
	for i, v := range infos {
		lines[i] = fmt.Sprintf("- %s: %s, %s bytes", v.Name, v.Type, numfmt.Group(v.SizeBytes))
	}
	return "(one line per variable; show_vars() describes them)\n" + strings.Join(lines, "\n")
}

// loop runs iterations until a stop condition and returns the result.
func (r *run) loop(ctx, parent context.Context) *Result {
	cfg := r.t.cfg
	for {
		if ctx.Err() != nil {
			reason, err := stopFor(ctx, parent)
			return r.partial(reason, err)
		}
		final := r.iterations >= r.maxIter
		if final {
			r.env.Directive = finalDirective(cfg.Protocol, r.schema)
		}
		if !r.t.startIteration() {
			return r.partial(StopBudget, fmt.Errorf("%w (%d)", ErrIterationBudget, cfg.MaxTotalIterations))
		}
		if res := r.step(ctx, parent, final); res != nil {
			return res
		}
	}
}

// step runs one iteration: the model call, the reply's code and the
// barrier. It returns the run's result when the step ends the run, nil to
// go on.
func (r *run) step(ctx, parent context.Context, final bool) (res *Result) {
	cfg := r.t.cfg
	stepCtx, endStep := r.t.startStep(ctx, StepInfo{Run: r.id, Depth: r.depth, Step: r.iterations + 1, Final: final})
	var failed bool
	defer func() {
		se := StepEnd{Failed: failed}
		if res != nil {
			se.Submitted = res.StopReason == StopSubmit || res.Extracted
			if !se.Submitted {
				se.StopReason, se.Err = res.StopReason, res.Err
			}
		}
		endStep(se)
	}()
	r.maybeCompress(stepCtx, false)
	resp, err := r.call(stepCtx, final)
	if err != nil && llm.KindOf(err) == llm.KindContextLength && len(r.env.Turns) > 1 && ctx.Err() == nil {
		// The prompt outgrew the model's window: fold all but the last
		// turn into the summary and try once more.
		r.maybeCompress(stepCtx, true)
		resp, err = r.call(stepCtx, final)
	}
	if err != nil {
		switch {
		case ctx.Err() != nil:
			reason, cerr := stopFor(ctx, parent)
			return r.partial(reason, cerr)
		case llm.KindOf(err) == llm.KindBudget || errors.Is(err, llm.ErrBudgetExceeded):
			return r.partial(StopBudget, err)
		default:
			return r.partial(StopModelError, err)
		}
	}
	r.iterations++
	r.curStep = r.iterations
	r.t.addMetrics(func(m *Metrics) { m.Iterations++ })
	out, err := r.handle(stepCtx, resp, final)
	if err != nil { // host failure: cancellation or a broken REPL
		if ctx.Err() != nil {
			reason, cerr := stopFor(ctx, parent)
			return r.partial(reason, cerr)
		}
		return r.partial(StopModelError, err)
	}
	failed = out.failed
	r.t.status(r, "exec", "")
	if out.submitted != nil {
		res := &Result{
			StopReason: StopSubmit,
			Outputs:    out.submitted,
			Answer:     answerText(out.submitted),
			Iterations: r.iterations,
			RunID:      r.id,
		}
		if final {
			res.StopReason = StopMaxIterations
			res.Extracted = true
			res.Err = ErrMaxIterations
		}
		return res
	}
	if final {
		return r.partial(StopMaxIterations, ErrMaxIterations)
	}
	if out.failed {
		r.consecErrs++
		if r.consecErrs >= cfg.MaxConsecutiveErrors {
			return r.partial(StopErrors, fmt.Errorf("%w: %d in a row", ErrTooManyErrors, r.consecErrs))
		}
	} else {
		r.consecErrs = 0
	}
	return nil
}

// partial ends the run with the best partial answer: the last rejected
// SUBMIT, else a REPL variable named answer (or the first declared
// field), else the last reply text without code.
func (r *run) partial(reason StopReason, err error) *Result {
	res := &Result{StopReason: reason, Err: err, Partial: true, Iterations: r.iterations, RunID: r.id}
	switch {
	case r.lastRejected != nil:
		res.Outputs = r.lastRejected
	default:
		d := rlmctx.NewDict(1)
		for _, name := range []string{"answer", r.schema[0].Name} {
			if s, ok := r.exec.Lookup(name); ok {
				d.Set(r.schema[0].Name, s)
				break
			}
		}
		if d.Len() == 0 && strings.TrimSpace(r.lastText) != "" {
			d.Set(r.schema[0].Name, strings.TrimSpace(r.lastText))
		}
		if d.Len() > 0 {
			res.Outputs = d
		}
	}
	res.Answer = answerText(res.Outputs)
	return res
}

// call sends the envelope to the root model. A resumed run that diverged
// from its recording (Config.Resume) first gets its resume-context
// message; when the request itself is where it diverged (its event came
// out differently), the message is added and the request built again.
func (r *run) call(ctx context.Context, final bool) (*llm.Response, error) {
	r.takeResume()
	req, count := r.request(ctx, final)
	if r.takeResume() {
		req, count = r.request(ctx, final)
	}
	r.t.addMetrics(count)
	r.t.status(r, "model", "")
	start := time.Now()
	resp, err := r.t.chat(ctx, r.id, CallRoot, req)
	rd := replyData{Model: r.t.cfg.RootModel, LatencyMS: time.Since(start).Milliseconds()}
	if err != nil {
		rd.Error = err.Error()
	} else {
		if r.depth == 0 {
			r.t.addMetrics(func(m *Metrics) {
				m.RootCalls++
				m.RootPromptTokens += resp.Usage.PromptTokens
				m.RootCompletionTokens += resp.Usage.CompletionTokens
			})
		}
		rd.Content, rd.FinishReason, rd.Usage = resp.Content, resp.FinishReason, resp.Usage
		rd.FirstByteMS = msOf(resp.FirstByte)
		for _, tc := range resp.ToolCalls {
			rd.ToolCalls = append(rd.ToolCalls, toolInfo(tc))
		}
	}
	r.t.traj.emit(EventReply, r.id, r.iterations+1, rd)
	return resp, err
}

// request builds the root request from the envelope and emits its
// request event; count adds it to the metrics.
func (r *run) request(ctx context.Context, final bool) (req llm.Request, count func(*Metrics)) {
	cfg := r.t.cfg
	over := r.fitHistory(ctx)
	msgs := r.env.Messages()
	toks := r.env.tokens(cfg.Tokenizer)
	hash := r.env.PrefixHash()
	changed := r.lastHash != "" && hash != r.lastHash
	r.lastHash = hash
	last := r.env.Turns
	nudge := len(last) > 0 && last[len(last)-1].NoCode && r.env.Directive == ""
	count = func(m *Metrics) {
		m.Requests++
		m.TokensBySection.System += toks.System
		m.TokensBySection.Meta += toks.Meta
		m.TokensBySection.Query += toks.Query
		m.TokensBySection.Dynamic += toks.Dynamic
		m.LastRequest = toks
		if toks.Total() > m.MaxRequestTokens {
			m.MaxRequestTokens = toks.Total()
		}
		if m.FirstPrefixTokens == 0 {
			m.FirstPrefixTokens = toks.Prefix()
		}
		if changed {
			m.PrefixChanges++
		}
		if nudge {
			m.Nudges++
		}
		if over > 0 {
			m.OverBudgetRequests++
		}
	}
	req = llm.Request{Model: cfg.RootModel, Messages: msgs, MaxTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature,
		TopP: cfg.TopP, Seed: cfg.Seed, Stop: cfg.Stop}
	if cfg.Protocol == ProtocolTools {
		req.Tools = toolsFor(r.schema)
	}
	r.t.traj.emit(EventRequest, r.id, r.iterations+1, requestData{
		Model: cfg.RootModel, Messages: len(msgs), Tokens: toks, Total: toks.Total(), PrefixHash: hash, Final: final, Nudge: nudge,
		OverBudget: over,
	})
	return req, count
}

// outcome of handling one reply.
type outcome struct {
	submitted *rlmctx.Dict // valid SUBMIT outputs
	failed    bool         // the step counts as an error (no code, script error, rejected SUBMIT)
}

// handle runs the code of a reply and appends the turn.
func (r *run) handle(ctx context.Context, resp *llm.Response, final bool) (outcome, error) {
	step := r.iterations
	content := resp.Content
	if strings.TrimSpace(content) == "" && len(resp.ToolCalls) == 0 {
		// An assistant message needs content or tool calls: OpenAI's API
		// refuses one with neither, which would end the run.
		content = emptyReply
	}
	turn := &exchange{
		Step:  step,
		Reply: llm.Message{Role: llm.RoleAssistant, Content: content, ToolCalls: withCallIDs(resp.ToolCalls, step)},
	}
	turn.digest = StepDigest{Step: step}
	if len(resp.ToolCalls) > 0 {
		out, err := r.handleTools(ctx, turn, turn.Reply.ToolCalls, final)
		if err != nil {
			return out, err
		}
		r.env.Turns = append(r.env.Turns, turn)
		r.env.Directive = ""
		od := observationData{Engine: turn.Engine}
		for _, m := range turn.ToolResults {
			od.ToolResults = append(od.ToolResults, toolResult{ID: m.ToolCallID, Content: m.Content})
		}
		r.t.traj.emit(EventObservation, r.id, step, od)
		return out, nil
	}
	text := StripReasoning(resp.Content)
	blocks, prose := splitReply(text)
	if f := bareFinish(prose); f != "" {
		// A finishing line outside the fences (the RLM paper's protocol)
		// runs after the reply's code, e.g. a block then FINAL_VAR(result).
		blocks = append(blocks, f)
	}
	if len(blocks) == 0 {
		turn.NoCode = true
		turn.digest.NoCode = true
		turn.digest.Reply = text
		r.lastText = text
		r.env.Turns = append(r.env.Turns, turn)
		if final {
			r.env.Directive = ""
		}
		return outcome{failed: true}, nil
	}
	var sr stepRun
	for i, code := range blocks {
		n := len(sr.parts)
		if err := r.runBlock(ctx, &sr, step, i+1, code, ""); err != nil {
			return outcome{}, err
		}
		if len(blocks) > 1 && len(sr.parts) > n {
			// Several blocks share one step output: say which printed what.
			sr.parts[n] = blockMarker(i+1, len(blocks)) + "\n" + sr.parts[n]
		}
		if sr.stopped {
			if i+1 < len(blocks) {
				sr.parts = append(sr.parts, fmt.Sprintf("[engine] blocks %d-%d not run.", i+2, len(blocks)))
			}
			break
		}
	}
	out, err := r.settle(ctx, &sr, step)
	if err != nil {
		return out, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[engine] Step %d output:\n", step)
	b.WriteString(strings.Join(sr.parts, "\n"))
	if out.submitted == nil {
		b.WriteString("\n" + r.remaining())
	}
	if resp.FinishReason == "length" {
		b.WriteString("\n" + cutOffNote)
	}
	turn.Engine = b.String()
	turn.digest = sr.digest(step)
	r.env.Turns = append(r.env.Turns, turn)
	r.env.Directive = ""
	r.t.traj.emit(EventObservation, r.id, step, observationData{Engine: turn.Engine})
	return out, nil
}

// blockMarker heads the output of block i of n in a step's observation.
func blockMarker(i, n int) string {
	return fmt.Sprintf("[block %d of %d]", i, n)
}

func (r *run) remaining() string {
	left := r.maxIter - r.iterations
	if left <= 0 {
		return "[engine] No iterations left."
	}
	return fmt.Sprintf("[engine] %d iterations left.", left)
}

// stepRun accumulates the blocks of one step.
type stepRun struct {
	full      strings.Builder
	parts     []string
	code      string
	blocks    int
	errText   string
	failed    bool
	stopped   bool
	submitted *rlmctx.Dict
	submitRaw bool
	defined   []string
}

func (s *stepRun) digest(step int) StepDigest {
	out := s.full.String()
	head := out
	if i := strings.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return StepDigest{
		Step:        step,
		Code:        s.code,
		Blocks:      s.blocks,
		Defined:     s.defined,
		OutputChars: len(out),
		OutputHead:  head,
		Error:       s.errText,
	}
}

// runBlock runs one code block, appending its observation part.
func (r *run) runBlock(ctx context.Context, sr *stepRun, step, block int, code, callID string) error {
	if sr.code == "" {
		sr.code = code
	}
	sr.blocks++
	res, err := r.exec.Exec(ctx, code)
	if err != nil {
		return err
	}
	sr.full.WriteString(res.Output)
	for _, g := range r.exec.Globals() {
		if !r.known[g] {
			r.known[g] = true
			sr.defined = append(sr.defined, g)
		}
	}
	ed := execData{Block: block, Code: code, Output: res.Output, Truncated: res.Truncated, Submitted: res.Submitted, ToolCall: callID}
	if res.Err != nil && !res.Submitted {
		ed.Error, ed.Origin = res.ErrText, res.ErrOrigin
		if ed.Error == "" {
			ed.Error = res.Err.Error()
		}
	}
	r.t.traj.emit(EventExec, r.id, step, ed)
	part := res.Excerpt
	if part == "" && !res.Truncated {
		part = res.Output
	}
	part = strings.TrimRight(part, "\n")
	if res.Truncated {
		part += fmt.Sprintf(
			"\n[engine] output truncated: %d chars printed, an excerpt shown (head and tail, repeated lines collapsed); the full output is in outputs[%d]",
			len(res.Output),
			step,
		)
	}
	if res.Submitted {
		sr.submitRaw = true
		sr.stopped = true
		sr.submitted = res.Outputs
		if sr.submitted == nil {
			sr.submitted = rlmctx.NewDict(0)
		}
		if res.Alias == "FINAL" || res.Alias == "FINAL_VAR" {
			sr.submitted = r.schema.finalOutputs(sr.submitted)
		}
	} else if res.Err != nil {
		msg := ed.Error
		sr.errText = lastLine(msg)
		sr.failed = true
		sr.stopped = true
		if part != "" {
			part += "\n"
		}
		part += msg
	}
	if part == "" {
		part = "(no output)"
	}
	sr.parts = append(sr.parts, part)
	return nil
}

// lastLine is the last non-blank line of s (the "Kind: message" line of a
// traceback).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// settle runs the barrier, stores the step's full output and validates a
// SUBMIT.
func (r *run) settle(ctx context.Context, sr *stepRun, step int) (outcome, error) {
	rep, err := r.exec.Settle(ctx)
	for _, op := range rep.Ops {
		r.t.traj.emit(EventSubCall, r.id, step, op)
	}
	if rep.Started > 0 || len(rep.Failed) > 0 || rep.Memoized > 0 {
		r.t.traj.emit(EventDeferred, r.id, step, rep)
	}
	if rep.Memoized > 0 {
		r.t.addMetrics(func(m *Metrics) { m.MemoHits += rep.Memoized })
	}
	if err != nil {
		return outcome{}, err
	}
	sr.parts = append(sr.parts, r.takeNotes()...)
	if len(rep.Failed) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "[engine] %d deferred operation(s) failed:", len(rep.Failed))
		for i, op := range rep.Failed {
			if i == 5 {
				fmt.Fprintf(&b, "\n- … and %d more", len(rep.Failed)-5)
				break
			}
			fmt.Fprintf(&b, "\n- %s: %s", op.Kind, quoteShort(op.Error, 160))
		}
		sr.parts = append(sr.parts, b.String())
	}
	r.exec.SetOutput(step, sr.full.String())
	out := outcome{failed: sr.failed}
	if sr.submitRaw {
		raw, _ := MarshalValue(sr.submitted)
		if verr := r.schema.Validate(sr.submitted); verr != nil {
			r.lastRejected = sr.submitted
			sr.parts = append(sr.parts, "[engine] SUBMIT rejected: "+strings.TrimPrefix(verr.Error(), ErrInvalidSubmit.Error()+": "))
			sr.errText = "SUBMIT rejected"
			out.failed = true
			r.t.traj.emit(
				EventSubmit,
				r.id,
				step,
				submitData{Outputs: raw, Valid: false, Error: verr.Error(), Final: r.env.Directive != ""},
			)
		} else {
			out.submitted = sr.submitted
			r.t.traj.emit(EventSubmit, r.id, step, submitData{Outputs: raw, Valid: true, Final: r.env.Directive != ""})
		}
	}
	return out, nil
}

// handleTools answers every tool call of a reply (one result per call id,
// in order) and adds the engine directive after them.
func (r *run) handleTools(ctx context.Context, turn *exchange, calls []llm.ToolCall, final bool) (outcome, error) {
	step := turn.Step
	var sr stepRun
	ended := false
	var out outcome
	for i, tc := range calls {
		var content string
		switch {
		case ended:
			content = "[engine] not run: the run already ended with submit."
		case tc.Name == toolExecute:
			var args struct {
				Code string `json:"code"`
			}
			if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil || strings.TrimSpace(args.Code) == "" {
				content = `[engine] error: execute_code needs JSON arguments {"code": "<python code>"}`
				sr.failed = true
				break
			}
			n := len(sr.parts)
			if err := r.runBlock(ctx, &sr, step, i+1, unfence(args.Code), tc.ID); err != nil {
				return out, err
			}
			content = strings.Join(sr.parts[n:], "\n")
			if sr.submitRaw {
				so, err := r.settle(ctx, &sr, step)
				if err != nil {
					return so, err
				}
				out = so
				content = strings.Join(sr.parts[n:], "\n")
				if out.submitted != nil {
					ended = true
				} else {
					sr.submitRaw = false
				}
			}
			sr.stopped = false
		case tc.Name == toolSubmit:
			v, err := pyjson.Decode([]byte(tc.Arguments))
			d, ok := v.(*rlmctx.Dict)
			if err != nil || !ok {
				content = "[engine] error: submit needs a JSON object with the declared outputs: " + r.schema.String()
				sr.failed = true
				break
			}
			if o, ok := d.Get("outputs"); ok && d.Len() == 1 {
				if od, ok := o.(*rlmctx.Dict); ok {
					d = od
				}
			}
			raw, _ := MarshalValue(d)
			if verr := r.schema.Validate(d); verr != nil {
				r.lastRejected = d
				msg := strings.TrimPrefix(verr.Error(), ErrInvalidSubmit.Error()+": ")
				msg, _, _ = strings.Cut(msg, "; call ")
				content = "[engine] submit rejected: " + msg + "; call the submit tool again with the corrected outputs"
				sr.failed = true
				sr.errText = "submit rejected"
				r.t.traj.emit(
					EventSubmit,
					r.id,
					step,
					submitData{Outputs: raw, Valid: false, Error: verr.Error(), Final: final, ToolCall: tc.ID},
				)
			} else {
				out.submitted = d
				ended = true
				content = "[engine] submitted."
				r.t.traj.emit(EventSubmit, r.id, step, submitData{Outputs: raw, Valid: true, Final: final, ToolCall: tc.ID})
			}
		default:
			content = fmt.Sprintf("[engine] error: unknown tool %q; use %s or %s.", tc.Name, toolExecute, toolSubmit)
			sr.failed = true
		}
		turn.ToolResults = append(turn.ToolResults, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: content})
	}
	var extra []string
	if out.submitted == nil {
		n := len(sr.parts)
		so, err := r.settle(ctx, &sr, step)
		if err != nil {
			return so, err
		}
		sr.failed = sr.failed || so.failed
		extra = sr.parts[n:]
	} else {
		r.exec.SetOutput(step, sr.full.String())
	}
	out.failed = sr.failed && out.submitted == nil
	turn.digest = sr.digest(step)
	if out.submitted == nil {
		turn.Engine = fmt.Sprintf("[engine] Step %d done. %s", step, strings.TrimPrefix(r.remaining(), "[engine] "))
		if len(extra) > 0 {
			turn.Engine = strings.Join(extra, "\n") + "\n" + turn.Engine
		}
	} else {
		turn.Engine = fmt.Sprintf("[engine] Step %d done: submitted.", step)
	}
	return out, nil
}

// withCallIDs returns calls with every missing or repeated ID replaced by a
// unique one (some servers send tool calls without IDs), so each tool
// result answers exactly one call.
func withCallIDs(calls []llm.ToolCall, step int) []llm.ToolCall {
	seen := map[string]bool{}
	var out []llm.ToolCall
	for i, tc := range calls {
		if tc.ID == "" || seen[tc.ID] {
			if out == nil {
				out = append([]llm.ToolCall(nil), calls...)
			}
			tc.ID = fmt.Sprintf("call_%d_%d", step, i+1)
			out[i] = tc
		}
		seen[tc.ID] = true
	}
	if out == nil {
		return calls
	}
	return out
}

const (
	toolExecute = "execute_code"
	toolSubmit  = "submit"
)

func toolsFor(s Schema) []llm.Tool {
	props := map[string]any{}
	req := []string{}
	for _, f := range s {
		props[f.Name] = f.Type.JSONSchema()
		if !f.Optional {
			req = append(req, f.Name)
		}
	}
	submit, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": req})
	exec := json.RawMessage(
		`{"type":"object","properties":{"code":{"type":"string","description":"Python code to run in the persistent REPL"}},"required":["code"]}`,
	)
	return []llm.Tool{
		{
			Name:        toolExecute,
			Description: "Run Python code in the REPL that holds the context variables; returns what it prints (an excerpt when long; the full output is kept in outputs[step]).",
			Parameters:  exec,
		},
		{Name: toolSubmit, Description: "Finish the run with the declared outputs.", Parameters: submit},
	}
}

// msOf is d in milliseconds, to the microsecond.
func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
