package orchestrator

import (
	"context"

	"github.com/rlmhq/rlm/deferred"
	"github.com/rlmhq/rlm/llm"
)

// Tracer observes the parts of a run tree as they run, for tracing
// (package telemetry implements it with OpenTelemetry). Each Start method
// returns the context the part runs under, which the parts inside it see
// (a step's model call, code and deferred operations; a sub-call's child
// RLM), and a function that ends the part; the end function is called
// exactly once. Nil [Config.Tracer] observes nothing.
//
// What a Tracer is given holds no prompt, reply or variable content: only
// names, counts and outcomes.
type Tracer interface {
	// StartRun starts one RLM: the root, or a child RLM started by
	// rlm_query (from the context of the step whose code called it).
	StartRun(ctx context.Context, info RunInfo) (context.Context, func(RunEnd))
	// StartStep starts one iteration of an RLM: its model call, its code
	// and the barrier settling the deferred operations the code started.
	StartStep(ctx context.Context, info StepInfo) (context.Context, func(StepEnd))
	// StartCall starts one model call: a step's root call, or a sub-call
	// made by the code (llm_query, llm_query_batched, summarize, rlm_query
	// at the depth limit).
	StartCall(ctx context.Context, info CallInfo) (context.Context, func(CallEnd))
}

// RunInfo describes an RLM of the tree as it starts.
type RunInfo struct {
	// ID is the RLM's id in the trajectory ("0" for the root; a child's
	// is PARENT.STEP.HASH); Parent is its parent's ("" for the root).
	ID, Parent string
	// Depth is 0 for the root, 1 for its children, and so on.
	Depth int
	// Model is the root model asked at every step ("" for the client's
	// default).
	Model string
	// MaxIterations bounds the RLM's steps.
	MaxIterations int
	Protocol      Protocol
}

// RunEnd is how an RLM ended.
type RunEnd struct {
	// Result is the RLM's result. For the root, Result.Usage holds the
	// whole tree's usage (the ledger's totals); a child's Usage is zero
	// (the ledger is shared by the tree).
	Result *Result
	// Err is set, and Result nil, when the RLM could not start (its REPL
	// could not be created).
	Err error
}

// StepInfo describes one step as it starts.
type StepInfo struct {
	// Run is the RLM's id (RunInfo.ID), Depth its depth.
	Run   string
	Depth int
	// Step is the step's number in its RLM, from 1.
	Step int
	// Final marks the final extraction turn after the iteration limit.
	Final bool
}

// StepEnd is how a step ended.
type StepEnd struct {
	// Submitted: the step's SUBMIT was valid and ends the RLM.
	Submitted bool
	// Failed: the step counts as an error for the model (no code, an
	// exception, a rejected SUBMIT).
	Failed bool
	// StopReason is set when the step ended its RLM without a valid
	// SUBMIT (the model call failed, a limit, cancellation).
	StopReason StopReason
	// Err is the error that stopped the RLM in this step (nil otherwise).
	Err error
}

// Roles of a model call (CallInfo.Role).
const (
	CallRoot = "root" // a step's call to the root model
	CallSub  = "sub"  // a sub-call made by the code
)

// CallInfo describes one model call as it starts.
type CallInfo struct {
	// Run is the id of the RLM the call serves (for a sub-call, the RLM
	// whose code made it).
	Run string
	// Role is CallRoot or CallSub.
	Role string
	// Helper names the helper that made a sub-call (llm_query,
	// llm_query_batched, summarize, rlm_query); "" for a root call.
	Helper string
	// Model is the model asked: the request's, else the client's default.
	Model string
	// Request is the request as sent; a Tracer must not record its
	// messages (prompt content).
	Request llm.Request
}

// CallEnd is how a model call ended.
type CallEnd struct {
	// Response is the reply (nil when Err is set); a Tracer must not
	// record its content.
	Response *llm.Response
	Err      error
	// CostUSD is the call's cost from the ledger's price table;
	// CostKnown is false when the model has no price.
	CostUSD   float64
	CostKnown bool
}

var (
	noRunEnd  = func(RunEnd) {}
	noStepEnd = func(StepEnd) {}
)

func (t *tree) startRun(ctx context.Context, info RunInfo) (context.Context, func(RunEnd)) {
	if t.cfg.Tracer == nil {
		return ctx, noRunEnd
	}
	return t.cfg.Tracer.StartRun(ctx, info)
}

func (t *tree) startStep(ctx context.Context, info StepInfo) (context.Context, func(StepEnd)) {
	if t.cfg.Tracer == nil {
		return ctx, noStepEnd
	}
	return t.cfg.Tracer.StartStep(ctx, info)
}

// chat sends req to the tree's model, reported to the Tracer as a call of
// role made for the RLM run, and counted in run's usage.
func (t *tree) chat(ctx context.Context, run, role string, req llm.Request) (*llm.Response, error) {
	return t.chatFor(ctx, t.node(run), run, role, req)
}

// chatFor is chat with the call's usage counted in node (a plain sub-call
// at the depth limit: the node of the rlm_query that made it).
func (t *tree) chatFor(ctx context.Context, node *usageNode, run, role string, req llm.Request) (*llm.Response, error) {
	if err := t.checkActive(); err != nil {
		return nil, err
	}
	model := req.Model
	if model == "" {
		if m, ok := t.cfg.Model.(interface{ Model() string }); ok {
			model = m.Model()
		}
	}
	start := t.now()
	resp, err := t.traced(ctx, model, run, role, req)
	d := t.now().Sub(start)
	if err != nil {
		node.addActive(d)
		return resp, err
	}
	if model == "" {
		model = resp.Model
	}
	cost, known := t.cfg.Ledger.Prices().Cost(model, resp.Usage)
	node.addCall(resp.Usage, cost, known, d)
	return resp, err
}

// traced sends req, reported to the Tracer.
func (t *tree) traced(ctx context.Context, model, run, role string, req llm.Request) (*llm.Response, error) {
	if t.cfg.Tracer == nil {
		return t.cfg.Model.Chat(ctx, req)
	}
	info := CallInfo{Run: run, Role: role, Model: model, Request: req}
	if role == CallSub {
		info.Helper = deferred.LabelOf(ctx)
	}
	ctx, end := t.cfg.Tracer.StartCall(ctx, info)
	resp, err := t.cfg.Model.Chat(ctx, req)
	ce := CallEnd{Response: resp, Err: err}
	if err == nil {
		if model == "" {
			model = resp.Model
		}
		ce.CostUSD, ce.CostKnown = t.cfg.Ledger.Prices().Cost(model, resp.Usage)
	}
	end(ce)
	return resp, err
}
