// Package orchestrator runs Recursive Language Model (RLM) tasks: the root
// model sees only the query and short summaries of the context variables,
// explores the variables by writing Python-style code that runs in the
// sandbox, and finishes by calling SUBMIT({...}).
//
// An [Engine] owns the loop. Each iteration sends the prompt envelope
// (system, meta and dynamic sections, with a byte-identical prefix across iterations), extracts the code from
// the reply, runs it, settles deferred operations (the barrier) and appends a
// bounded observation. The full output of step N is kept in the sandbox
// variable outputs[N] so the model can search it instead of reprinting it.
// Old iterations are compressed into an engine-authored rolling summary when
// the dynamic section passes 80% of its token budget.
//
// Every model call of a run, including sub-calls and child RLMs started by
// rlm_query, goes through one [llm.Ledger], so budgets hold for the whole tree.
// A run can be recorded as a JSONL trajectory; see TRAJECTORY.md. A
// [Tracer] (Config.Tracer, e.g. package telemetry's OpenTelemetry spans)
// observes each RLM, step and model call of the tree.
package orchestrator
