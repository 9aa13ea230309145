// Package llm is everything in rlm that talks to a model: OpenAI-compatible
// chat and embedding clients, retries and error classification, the shared
// per-endpoint scheduler, usage and cost accounting, offline token counting,
// and record/replay of model traffic.
//
// Every model call in the project goes through the small interfaces here
// ([ChatModel], [Embedder]) so that tests can substitute the fakes in
// package llmtest.
//
// A run builds one [Client] with [New] (one concurrency limiter for the
// endpoint, default 16 requests in flight), optionally wraps it in a
// [Recorder] (or replaces it by a [Replay]), and wraps the result with
// [Metered] so that every call is checked against the run's [Ledger]
// before it is sent. Failures are *[Error] values classified by [Kind];
// 429, 5xx, timeouts and connection errors are retried with backoff,
// honouring Retry-After. The API key never appears in an error.
package llm
