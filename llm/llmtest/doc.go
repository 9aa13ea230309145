// Package llmtest provides offline fakes for package llm: an httptest
// [Server] speaking the OpenAI wire format (scriptable per model, with
// errors, rate limits and latency), an in-memory [Scripted] chat model
// that records what it was asked, and the deterministic [HashEmbedder].
package llmtest
