// Package deferred runs the slow operations started by the model's code (LLM
// sub-calls, embedding searches, child RLM runs) as futures.
//
// [Group.Go] starts an operation at once on its own goroutine, so a
// comprehension such as [summarize(c) for c in chunks] fans out in parallel;
// the overall concurrency is bounded by the LLM client's shared limiter (and
// optionally by [Config].MaxConcurrency). Identical operations, identified by
// a content-hash key, are computed once per Group (a run).
//
// A [*Future] is a Starlark value. It renders as its result once resolved
// (print, str and repr wait for it through the sandbox's Proxy protocol);
// its attributes .value (waits, raises the operation's error), .done and
// .error inspect it. A failed operation renders as a short error note rather
// than failing the step that prints it. Otherwise a future acts as its
// result where Starlark lets a value decide: attributes and methods
// (f.upper()), indexing (f[0]["item"]), iteration, `x in f`, + and other
// binary operators, hashing and ordering among futures. Comparing a future
// with == to a plain value is decided by Starlark by type and is False:
// compare f.value (or a method's result) instead.
//
// Between steps the orchestrator calls [Group.Wait], the barrier that settles
// every pending operation. Operations outlive a step that ends normally, but
// a step stopped by a limit (time, memory, steps) cancels the operations it
// started, so the barrier after it does not wait for their sub-calls.
package deferred
