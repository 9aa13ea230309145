package meta

import (
	"fmt"
	"sort"
)

// A template is an engine-authored lesson: its text is fixed here and
// takes only typed parameters, so no text from a run (context, model
// output, tool output) can become meta text.
type template struct {
	// text renders the lesson from its parameters.
	text func(p Params) string
	// params names the parameters the template needs.
	params []string
}

// Params are a lesson's typed parameters (see the schema).
type Params struct {
	// Iterations is the iteration target of iteration_target.
	Iterations int `json:"iterations,omitempty"`
}

func fixed(s string) func(Params) string { return func(Params) string { return s } }

// templates is the lesson catalog. Adding one also adds its name to the
// template enum of meta.schema.json (TestSchemaListsEveryTemplate).
var templates = map[string]template{
	"re_unsupported": {
		text: fixed("Some regular expressions are refused by re: read the error's advice and rewrite the pattern instead of retrying it."),
	},
	"no_with": {text: fixed("with statements are not supported (there are no files to open): work on the variables directly.")},
	"no_global_assign": {
		text: fixed("Assigning to a global name inside a function fails: return the new value, or keep shared state in a dict or list."),
	},
	"no_async": {
		text: fixed("async/await is not supported: call functions directly; llm_query_batched runs prompts concurrently."),
	},
	"module_missing": {text: fixed("Only the modules in the dialect notes can be imported: no os, subprocess, files or network.")},
	"step_limit": {
		text: fixed("Steps hit the step or time limit: work on a sample or use search() instead of looping over the whole data."),
	},
	"memory_limit":    {text: fixed("Steps hit the memory limit: build smaller values, e.g. process chunks one at a time.")},
	"recursion_limit": {text: fixed("Deep recursion fails: write loops instead of recursive functions.")},
	"name_error": {
		text: fixed("NameError often follows a failed earlier step: check that the step defining a name succeeded before using it."),
	},
	"lookup_error": {text: fixed("KeyError and IndexError were common: check keys with `in` or .get() and lengths before indexing.")},
	"type_error":   {text: fixed("TypeError was common: print type() and a short repr of a value before using it.")},
	"syntax_error": {text: fixed("SyntaxError was common: keep each code block short and complete, one statement per line.")},
	"submit_rejected": {
		text: fixed("SUBMIT was rejected for missing or mistyped fields: build the dict with exactly the declared outputs and types."),
	},
	"no_code": {
		text: fixed("Every reply must run code (a python block or a tool call); a reply without code wastes an iteration."),
	},
	"print_less": {
		text: fixed("Outputs were often cut to an excerpt: print counts, short slices and search hits, not whole values."),
	},
	"iteration_target": {
		text: func(p Params) string {
			return fmt.Sprintf(
				"Runs often reached the iteration limit: keep partial results in variables and SUBMIT by iteration %d.",
				p.Iterations,
			)
		},
		params: []string{"iterations"},
	},
}

// Templates lists the template names, sorted.
func Templates() []string {
	names := make([]string, 0, len(templates))
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LessonText renders template name with p: the only text a lesson may
// have. It fails for an unknown template or missing parameters.
func LessonText(name string, p Params) (string, error) {
	t, ok := templates[name]
	if !ok {
		return "", fmt.Errorf("%w %q", ErrUnknownTemplate, name)
	}
	for _, q := range t.params {
		if q == "iterations" && p.Iterations <= 0 {
			return "", fmt.Errorf("%w: template %s needs params.iterations", ErrInvalid, name)
		}
	}
	if len(t.params) == 0 && p != (Params{}) {
		return "", fmt.Errorf("%w: template %s takes no params", ErrInvalid, name)
	}
	return t.text(p), nil
}

// LessonID is the id of a lesson from template name scoped to model ("" for
// every model).
func LessonID(name, model string) string {
	if model == "" {
		return name
	}
	return name + "@" + model
}
