// Package llm is everything in rlm that talks to a model: OpenAI-compatible
// chat and embedding clients, retries and error classification, the shared
// per-endpoint scheduler, usage and cost accounting, offline token counting,
// and record/replay of model traffic.
//
// Every model call in the project goes through the small interfaces here
// ([ChatModel], [Embedder]) so that tests can substitute the fakes in
// package llmtest.
package llm
