// Package docs holds rlm's documentation pages (Markdown files next to this
// one) and renders the ones generated from the code, so they cannot drift
// from it: helpers.md from [builtins.Docs], the table the root prompt is
// made of. cmd/rlm's TestCLIReference generates cli.md from the commands'
// help.
//
// Regenerate the generated pages with
//
//	go generate ./docs
//
// (which runs the tests with -update); the tests fail when a committed page
// is stale.
package docs

//go:generate go test -count=1 -run TestHelpersReference . -update
//go:generate go test -count=1 -run TestCLIReference ../cmd/rlm -update

import (
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/builtins"
)

// HelpersFile is the generated helper reference, relative to this directory.
const HelpersFile = "helpers.md"

// moduleNames titles the helper groups of [builtins.Doc.Module].
var moduleNames = []struct{ module, title, intro string }{
	{"explore", "Explore the variables", "Offline helpers: they work in `rlm exec` and `rlm repl` without a model."},
	{
		"llm",
		"Sub-calls",
		"Each sub-call runs in the background and returns a future; using it in any way (print, `f.value`, `==`, `+`, `len`, methods) waits for its result. Start them all first, then use the results. Offline (`rlm exec`), `summarize` and `find_relevant` fall back to extractive summaries and BM25 ranking.",
	},
	{
		"store",
		"Read the store",
		"Read-only access to the variable store: a run's `rlm_query` children's results and the keys given to the run (`--var NAME=store:KEY`, `--store-read KEY`).",
	},
	{"control", "Finish", "End a run with its outputs."},
}

// Examples holds a short example of each helper, keyed by helper name;
// every helper of [builtins.Docs] must have one (TestHelpersReference).
var Examples = map[string]string{
	"peek":              "print(peek(doc, 0, 200))         # the first 200 characters\nprint(peek(rows, 10, 15))        # items 10..14 of a list",
	"search":            "for hit in search(doc, \"error\", max_results=5):\n    print(hit[\"line\"], hit[\"preview\"])\nfor hit in search(changelog, r\"v(\\d+)\\.(\\d+)\\.(\\d+)\", regex=True):\n    print(hit[\"groups\"])",
	"chunk":             "parts = chunk(doc, 20000, overlap=200)\nprint(len(parts), len(parts[0]))",
	"outline":           "print(outline(files))            # a directory loaded with --var files=src/",
	"show_vars":         "show_vars()",
	"len":               "print(len(doc), len(doc.splitlines()))",
	"llm_query":         "a = llm_query(\"Summarize in one line:\\n\" + doc[:8000])\nprint(a)                         # waits for the answer",
	"llm_query_batched": "answers = llm_query_batched([\"Key facts:\\n\" + p for p in chunk(doc, 20000)])\nfor a in answers:\n    print(a)",
	"summarize":         "s = summarize(doc, max_tokens=200)\nprint(s)",
	"find_relevant":     "for r in find_relevant(chunk(doc, 4000), \"release date\", top_k=3):\n    print(r[\"score\"], r[\"item\"][:80])",
	"rlm_query": "part = rlm_query(\"Which functions changed?\", diff=diffs[0])\nprint(part)\n" +
		"h = rlm_query(\"Count the errors\", outputs=\"count: int, kinds: list[str]\", log=log)\n" +
		"print(h.result()[\"count\"], h.usage[\"calls\"])",
	"rlm_query_batched": "hs = rlm_query_batched([\"Summarize \" + n for n in names], files=files)\n" +
		"print([h.value for h in hs if h.state == \"done\"])",
	"children":   "slow = [c for c in children() if c[\"state\"] == \"running\"]\nprint(len(slow))",
	"store_keys": "for k in store_keys(summaries=True):\n    print(k[\"key\"], k[\"size_bytes\"])",
	"store_get":  "prev = store_get(\"report/2026-01\")\nprint(prev[\"answer\"])",
	"SUBMIT":     "SUBMIT(answer=\"42\", confidence=0.9)",
	"FINAL":      "FINAL(\"The magic number is 42.\")",
	"FINAL_VAR":  "result = \"\\n\".join(lines)\nFINAL_VAR(\"result\")",
}

// Helpers renders helpers.md: every helper of [builtins.Docs] with its
// Python signature, its description (the text of the root prompt and of
// the helper's __doc__) and the example from [Examples].
func Helpers() string {
	var b strings.Builder
	b.WriteString("<!-- Generated from builtins.Docs() by `go generate ./docs`; DO NOT EDIT. -->\n\n")
	b.WriteString("# REPL helpers\n\n")
	b.WriteString("The helpers model code (and your code in `rlm exec` and `rlm repl`) calls to explore\n" +
		"the context variables, make sub-calls and finish a run. The descriptions are\n" +
		"the text the root prompt gives the model and each helper's `__doc__`;\n" +
		"in the REPL, `help()` lists them and `help(search)` describes one.\n" +
		"Python's builtins and modules work as usual (see [python.md](python.md)).\n\n")
	docs := builtins.Docs()
	for _, m := range moduleNames {
		fmt.Fprintf(&b, "- [%s](#%s):", m.title, anchor(m.title))
		for _, d := range docs {
			if d.Module == m.module {
				fmt.Fprintf(&b, " [`%s`](#%s)", d.Name, strings.ToLower(d.Name))
			}
		}
		b.WriteString("\n")
	}
	for _, m := range moduleNames {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", m.title, m.intro)
		for _, d := range docs {
			if d.Module != m.module {
				continue
			}
			fmt.Fprintf(&b, "\n### %s\n\n```python\n%s\n```\n\n%s\n\n", d.Name, d.Signature, d.Summary)
			fmt.Fprintf(&b, "Example:\n\n```python\n%s\n```\n", Examples[d.Name])
		}
	}
	return b.String()
}

// anchor is GitHub's heading anchor for a plain title.
func anchor(title string) string {
	return strings.ReplaceAll(strings.ToLower(title), " ", "-")
}
