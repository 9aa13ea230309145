package builtins

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox"
)

// Doc documents one helper for the root prompt.
type Doc struct {
	Name      string // e.g. "peek"
	Signature string // Python-style, e.g. "peek(var, start=0, end=10)"
	Summary   string // one line
	Module    string // "explore", "llm", "store" or "control"
}

// helperFunc is the Go implementation of a helper; h is never nil.
type helperFunc func(h *Host, thread *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

type helper struct {
	Doc
	fn helperFunc // nil for helpers provided by the sandbox (len)
}

// The registry. Signature and Summary of each entry must equal the doc
// comment of its Go function (checked by TestDocCommentsMatchRegistry).
var helpers = []helper{
	{
		Doc{
			"peek",
			"peek(var, start=0, end=10)",
			"Return items start..end of a list, the entries start..end of a dict (as a dict, in key order), or characters start..end of a string.",
			"explore",
		},
		peek,
	},
	{
		Doc{
			"search",
			"search(var, pattern, regex=False, max_results=10, field=None)",
			"Find pattern (a Python regex if regex=True) in a str, list or dict; returns a list of dicts {line, offset, match, preview} per match in a str, {index or key, preview} per matching item (a multi-line str item adds its first match's line and count of matches; a dict item's preview is the whole item, field the matching field; field='x' searches only it); regex=True adds groups; if max_results cut the list, its last dict has more.",
			"explore",
		},
		search,
	},
	{
		Doc{
			"chunk",
			"chunk(var, size, overlap=0)",
			"Split a string into line-aligned pieces of about size characters, or a list or dict into pieces of size items; consecutive pieces share overlap characters or items.",
			"explore",
		},
		chunk,
	},
	{
		Doc{
			"outline",
			"outline(var, max_chars=4000)",
			"Survey many documents (dict of files, list of str or dicts, str bundling files): per item its size, docstring or first lines past licence headers, top-level defs or Markdown headings; returns a str to print.",
			"explore",
		},
		outline,
	},
	{Doc{"show_vars", "show_vars()", "Print the names, types and sizes of the variables defined so far.", "explore"}, showVars},
	{Doc{"len", "len(var)", "Number of characters of a string or items of a list or dict.", "explore"}, nil},
	{
		Doc{
			"llm_query",
			"llm_query(prompt, model=None, truncate=False)",
			"Ask a sub-model; returns a future str (stripped). A prompt larger than the model's context window is refused unless truncate=True (cuts its middle, marked).",
			"llm",
		},
		llmQuery,
	},
	{
		Doc{
			"llm_query_batched",
			"llm_query_batched(prompts, model=None, truncate=False)",
			"Ask a sub-model several prompts concurrently; returns a list of futures, one per prompt (stripped str).",
			"llm",
		},
		llmQueryBatched,
	},
	{
		Doc{
			"summarize",
			"summarize(var, max_tokens=500)",
			"Summarize a variable with a sub-model in at most max_tokens tokens; returns a future str (stripped).",
			"llm",
		},
		summarize,
	},
	{
		Doc{
			"find_relevant",
			"find_relevant(var, query, top_k=5)",
			"Rank the items of a list, the values of a dict or the chunks of a string by relevance to query (embeddings, else BM25); returns a future list of dicts {index or key, score, item, method}.",
			"llm",
		},
		findRelevant,
	},
	{
		Doc{
			"rlm_query",
			"rlm_query(query, outputs=None, **variables)",
			`Run a recursive sub-RLM that answers query with the variables as its context (shared, not copied); returns a handle: a future str (stripped) with .done, .result() (a dict of its outputs if outputs="a: int, ..." declares them, else the str), .usage, .cancel().`,
			"llm",
		},
		rlmQuery,
	},
	{
		Doc{
			"rlm_query_batched",
			"rlm_query_batched(queries, outputs=None, **variables)",
			"rlm_query for each query, run concurrently with the same variables; returns a list of handles.",
			"llm",
		},
		rlmQueryBatched,
	},
	{
		Doc{
			"children",
			"children()",
			"This run's rlm_query handles so far, as dicts {id, query, state: running/done/failed/cancelled, usage}.",
			"llm",
		},
		listChildren,
	},
	{
		Doc{
			"store_keys",
			`store_keys(prefix="", summaries=False)`,
			"List the stored keys this run may read (its rlm_query children's results, under the run's id, and keys given to the run) that start with prefix; returns a list of dicts {key, type, size_bytes, version}, without loading any value unless summaries=True adds each one's summary, as for a context variable.",
			"store",
		},
		storeKeys,
	},
	{
		Doc{
			"store_get",
			"store_get(key)",
			"Return the stored value of key (read-only: a str, list or dict, e.g. a run's outputs {answer, ...}), loaded when called; see store_keys() for the keys this run may read.",
			"store",
		},
		storeGet,
	},
	{
		Doc{
			"SUBMIT",
			"SUBMIT(outputs=None, **kwargs)",
			"Finish the run with a dict of outputs or keyword arguments, e.g. SUBMIT(answer=x); futures are resolved first.",
			"control",
		},
		submit,
	},
	{Doc{"FINAL", "FINAL(answer)", "Finish the run with answer as the output 'answer'.", "control"}, final},
	{
		Doc{"FINAL_VAR", "FINAL_VAR(name)", "Finish the run with the value of the variable called name as the output 'answer'.", "control"},
		finalVar,
	},
}

// atDepthLimit replaces a helper's summary where the recursion depth limit
// is reached: rlm_query then makes a plain sub-model call. %s is where
// the limit in force is named.
var atDepthLimit = map[string]string{
	"rlm_query": "No sub-RLM at this depth%s: one plain sub-model call with query and the variables' text appended " +
		`(asked for JSON if outputs="a: int, ..." declares them); returns a handle: a future str (stripped) ` +
		"with .done, .result() (a dict of the outputs if declared, else the str), .usage, .cancel().",
}

// The store module's title and store_keys' summary for a run whose
// children's outputs are not stored (at the depth limit, or not kept):
// only the keys given to the run are readable.
const (
	storeTitleGiven = "Read the store (read-only): the keys given to this run, loaded by reference instead of copied into the prompt"
	storeKeysGiven  = `List the stored keys given to this run that start with prefix; returns a list of dicts {key, type, size_bytes, version}, without loading any value unless summaries=True adds each one's summary, as for a context variable.`
)

// Docs returns the documentation of every helper, in prompt order.
func Docs() []Doc {
	out := make([]Doc, len(helpers))
	for i, hp := range helpers {
		out[i] = hp.Doc
	}
	return out
}

var moduleTitles = []struct{ name, title string }{
	{"explore", "Explore the variables"},
	{
		"llm",
		"Sub-calls. Each runs in the background and returns a future; using it in any way (print, f.value, ==, +, len, methods) waits for its result, even later in the same block or reply. This holds for every sub-call: llm_query, each future of llm_query_batched, summarize, find_relevant and rlm_query, so start them all first, then use the results",
	},
	{
		"store",
		"Read the store (read-only): every rlm_query child's outputs are stored as it ends, so a later step can load one by reference instead of copying its answer around",
	},
	{"control", "Finish"},
}

// HelpOptions selects the helper list that is true for one run.
type HelpOptions struct {
	// AtDepthLimit: no sub-RLM can start here, so rlm_query is described
	// as the plain sub-model call it makes; MaxDepth, when set, is the
	// depth limit in force, which the description names.
	AtDepthLimit bool
	MaxDepth     int
	// NoFinal leaves out FINAL and FINAL_VAR, which finish with the output
	// 'answer': for runs whose declared outputs are not a single answer.
	NoFinal bool
	// Store: the run can read the store (a [StoreView] is set), so
	// store_get and store_keys are listed.
	Store bool
	// StoreChildren: the run's rlm_query children's outputs are stored
	// and readable (a kept run that can start child RLMs), and the prompt
	// says so.
	StoreChildren bool
}

// PromptHelp renders the helper list for the root prompt from the same text
// as the helpers' doc comments (PromptHelpFor with no options).
func PromptHelp() string { return PromptHelpFor(HelpOptions{}) }

// PromptHelpFor renders the helper list for a run with options o: each
// helper is described once, as it behaves in that run.
func PromptHelpFor(o HelpOptions) string {
	var b strings.Builder
	for _, m := range moduleTitles {
		if m.name == "store" && !o.Store {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		title := m.title
		if m.name == "store" && !o.StoreChildren {
			title = storeTitleGiven
		}
		fmt.Fprintf(&b, "%s:\n", title)
		for _, hp := range helpers {
			if hp.Module != m.name || (o.NoFinal && (hp.Name == "FINAL" || hp.Name == "FINAL_VAR")) {
				continue
			}
			summary := hp.Summary
			if alt, ok := atDepthLimit[hp.Name]; ok && o.AtDepthLimit {
				limit := ""
				if o.MaxDepth > 0 {
					limit = fmt.Sprintf(" (the limit is %d RLM level(s))", o.MaxDepth)
				}
				summary = strings.Replace(alt, "%s", limit, 1)
			}
			if hp.Name == "store_keys" && !o.StoreChildren {
				summary = storeKeysGiven
			}
			fmt.Fprintf(&b, "- %s: %s\n", hp.Signature, summary)
		}
	}
	return b.String()
}

// Predeclared returns the helpers as Starlark builtins for
// sandbox.Config.Predeclared. If h is nil, each call uses the host attached
// to the calling thread ([Attach]) and fails if there is none.
func Predeclared(h *Host) starlark.StringDict {
	if h != nil {
		h.init()
	}
	d := make(starlark.StringDict, len(helpers))
	for _, hp := range helpers {
		if hp.fn == nil {
			continue
		}
		fn, name := hp.fn, hp.Name
		d[name] = sandbox.NewBuiltin(
			name,
			func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				host := h
				if host == nil {
					host = HostFrom(thread)
					if host == nil {
						return nil, fmt.Errorf("%s: no host attached to this thread", name)
					}
				}
				host.init()
				v, err := fn(host, thread, name, args, kwargs)
				return v, pyError(err)
			},
		)
	}
	d[helpName] = sandbox.NewBuiltin(helpName, pyHelp)
	return d
}

// stoppedByLimit reports whether err is a step's limit (time, memory,
// steps, output) or its cancellation, which the step reports as such.
func stoppedByLimit(err error) bool {
	for _, limit := range []error{sandbox.ErrTimeout, sandbox.ErrMemoryLimit, sandbox.ErrSessionMemoryLimit, sandbox.ErrStepLimit, sandbox.ErrOutputLimit, sandbox.ErrCanceled} {
		if errors.Is(err, limit) {
			return true
		}
	}
	return false
}

// pyError gives helper errors a Python exception kind (keeping the Go
// error in the chain): ValueError for a prompt over the context window,
// RecursionError at the depth limit, RuntimeError for other failures.
func pyError(err error) error {
	if err == nil {
		return nil
	}
	var pe *sandbox.PyError
	if errors.As(err, &pe) || errors.Is(err, ErrSubmit) || stoppedByLimit(err) {
		return err
	}
	kind := "RuntimeError"
	switch {
	case errors.Is(err, ErrContextWindow), errors.Is(err, ErrChildRequest):
		kind = "ValueError"
	case errors.Is(err, ErrDepthLimit):
		kind = "RecursionError"
	}
	return &sandbox.PyError{Kind: kind, Msg: err.Error(), Err: err}
}
