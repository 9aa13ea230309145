package orchestrator

import (
	"fmt"
	"strings"
	"sync"

	"github.com/rlmhq/rlm/builtins"
)

const systemIntroText = `You are the root of a Recursive Language Model. The data for the task lives in variables inside a Python REPL; you never see it directly. Explore it by writing Python code, read what the code prints, and finish by calling SUBMIT.

How it works:
- Reply with one or more ` + "```python" + ` blocks (one iteration per reply); they run in order in a persistent REPL, so names you define stay for later steps.
- You only see what your code prints; over about %d tokens, whole lines from its head and tail. The full printed output of step N is kept in outputs[N] (a dict by step): search it instead of printing it again.
- Print small, targeted things: sizes, counts, search hits, short slices. Never print a whole large variable.
- To read or judge text, pass slices of it to llm_query (a sub-model that sees only the prompt you give it); fan out with llm_query_batched.
- When you know the answer, call SUBMIT({...}) in a code block with the declared outputs. It ends the run: what the same block prints is never shown.`

const systemIntroTools = `You are the root of a Recursive Language Model. The data for the task lives in variables inside a Python REPL; you never see it directly. Explore it by running Python code, read what the code prints, and finish by submitting.

How it works:
- Call the execute_code tool with Python code; it runs in a persistent REPL, so names you define stay for later steps. Calls in one reply run in order, as one iteration.
- You only see what your code prints; over about %d tokens, whole lines from its head and tail. The full printed output of step N is kept in outputs[N] (a dict by step): search it instead of printing it again.
- Print small, targeted things: sizes, counts, search hits, short slices. Never print a whole large variable.
- To read or judge text, pass slices of it to llm_query (a sub-model that sees only the prompt you give it); fan out with llm_query_batched.
- When you know the answer, call the submit tool with the declared outputs (or SUBMIT({...}) in code). It ends the run: what the same call prints is never shown.`

const dialectNotes = `Python dialect (Python 3 in a sandbox):
- Supported: def, lambda, class (and @dataclass), generators, comprehensions, f-strings, % and str.format specs, slicing, try/except/finally, with, raise, global, nonlocal, str/list/dict/set methods and the usual builtins; import ` + dialectModules + ` (clock: run start, UTC).
- Not supported: async, match, open(), other modules (no os, network). re is Python's (lookaround, backreferences).`

// dialectModules are the importable modules named in the dialect notes
// (TestDialectNotesAreTrue imports each one in the sandbox).
const dialectModules = "re, json, math, collections, itertools, functools, statistics, string, heapq, bisect, operator, textwrap, copy, datetime, time, dataclasses, random, hashlib, sys, base64, html, urllib.parse, io, csv, unicodedata, uuid, fractions, decimal, typing"

// systemPromptKey is what the system prompt with the default helper
// docs depends on.
type systemPromptKey struct {
	p                 Protocol
	o                 builtins.HelpOptions
	observationTokens int
}

// systemPrompts caches the system prompts with the default helper docs
// (rendering one took about 2% of rlm serve's CPU per short run), up to
// maxSystemPrompts of them.
var systemPrompts struct {
	sync.Mutex
	m map[systemPromptKey]string
}

const maxSystemPrompts = 64

// defaultSystemPrompt is systemPrompt with the default helper docs for o.
func defaultSystemPrompt(p Protocol, o builtins.HelpOptions, observationTokens int) string {
	k := systemPromptKey{p, o, observationTokens}
	systemPrompts.Lock()
	s, ok := systemPrompts.m[k]
	systemPrompts.Unlock()
	if ok {
		return s
	}
	s = systemPrompt(p, defaultHelperDocs(o), observationTokens)
	systemPrompts.Lock()
	if systemPrompts.m == nil {
		systemPrompts.m = map[systemPromptKey]string{}
	}
	if len(systemPrompts.m) < maxSystemPrompts {
		systemPrompts.m[k] = s
	}
	systemPrompts.Unlock()
	return s
}

// systemPrompt renders the system section: stable instructions, the
// helper list and the dialect notes.
func systemPrompt(p Protocol, helpers string, observationTokens int) string {
	intro := systemIntroText
	if p == ProtocolTools {
		intro = systemIntroTools
	}
	var b strings.Builder
	fmt.Fprintf(&b, intro, observationTokens)
	b.WriteString("\n\nHelpers available in the REPL:\n")
	b.WriteString(strings.TrimSpace(helpers))
	b.WriteString("\n\n")
	b.WriteString(dialectNotes)
	return b.String()
}

// metaPrompt renders the meta section: variable summaries, the output
// schema and the run's limits. summaries must already fit the budget.
func metaPrompt(summaries string, schema Schema, p Protocol, maxIter int) string {
	var b strings.Builder
	b.WriteString("Context variables in the REPL (summaries only; explore them with code):\n")
	b.WriteString(strings.TrimSpace(summaries))
	b.WriteString("\n\nDeclared outputs: ")
	b.WriteString(schema.String())
	switch opt, closed := schema.hasOptional(), schema.hasClosed(); {
	case opt && closed:
		b.WriteString(" (T? accepts None or a missing key; closed{...} allows no other keys)")
	case opt:
		b.WriteString(" (T? accepts None or a missing key)")
	case closed:
		b.WriteString(" (closed{...} allows no other keys)")
	}
	if p == ProtocolTools {
		b.WriteString("\nFinish with the submit tool, or in code: ")
	} else {
		b.WriteString("\nFinish with: ")
	}
	b.WriteString(schema.example())
	fmt.Fprintf(&b, "\nLimits: %d iterations.", maxIter)
	return b.String()
}

// Directive texts (engine-authored).
const (
	// emptyReply stands in the history for a reply with no text and no
	// tool calls.
	emptyReply = "(empty reply)"
	// cutOffNote follows the observation of a reply that hit the output
	// token limit (its last code block may be incomplete).
	cutOffNote = "[engine] Your reply was cut off at the output token limit, so its last code block may be incomplete: write shorter replies and less code per step."
	nudgeText  = "[engine] Your reply had no code block, so nothing ran. Write a ```python block to continue exploring, or call SUBMIT({...}) in a code block to finish."
	nudgeTool  = "[engine] Your reply had no tool call, so nothing ran. Call execute_code to continue exploring, or submit to finish."
)

func finalDirective(p Protocol, schema Schema) string {
	if p == ProtocolTools {
		return "[engine] The iteration limit is reached. Do not explore further: call the submit tool now with your best answer from what you already know (" + schema.String() + ")."
	}
	return "[engine] The iteration limit is reached. Do not explore further: reply with one ```python block that calls " + schema.example() + " with your best answer from what you already know."
}
