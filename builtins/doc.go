// Package builtins provides the helpers the root model's code calls in the
// sandbox to explore externalized context variables and to call sub-models:
// peek, search, chunk, outline and show_vars (explore), llm_query, llm_query_batched,
// summarize, find_relevant and rlm_query (sub-calls, returning deferred
// futures), store_keys and store_get (reading a run's stored results, see
// [StoreView]), and SUBMIT, FINAL and FINAL_VAR (finishing a run).
//
// Each helper's Go doc comment is its Python-style signature followed by a
// one-line description; [Docs] and [PromptHelp] return the same text for the
// root prompt (a test keeps the two identical).
//
// Host state (models, the deferred group, the session) lives in a [*Host]
// bound by [Predeclared] or attached to each step's thread with [Attach].
package builtins
