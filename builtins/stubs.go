package builtins

import "go.starlark.net/starlark"

// summarize(var, max_tokens=500)
// Summarize a variable with a sub-model in at most max_tokens tokens; returns a future str.
func summarize(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return nil, typeErr("%s: not implemented yet", name)
}

// find_relevant(var, query, top_k=5)
// Rank the items of a list, the values of a dict or the chunks of a string by relevance to query (embeddings, else BM25); returns a future list of dicts {index or key, score, item, method}.
func findRelevant(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return nil, typeErr("%s: not implemented yet", name)
}
