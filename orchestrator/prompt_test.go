package orchestrator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/builtins"
	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
)

func TestRootPromptSizeIndependentOfContextSize(t *testing.T) {
	sizes := []int{1 << 10, 100 << 20} // token counts above 4 MB are sampled, so 100 MB is cheap
	if testing.Short() {
		sizes = sizes[:1]
	}
	var prefixes []int
	for _, size := range sizes {
		text := needleText(size, 0.5)
		c := rlmctx.NewContext("What is the magic number?")
		_, err := c.Add("context", text)
		require.NoError(t, err)
		msgs, toks := RootPrompt(Config{}, c)
		require.Len(t, msgs, 2)
		assert.Equal(t, llm.RoleSystem, msgs[0].Role)
		assert.Less(t, toks.Prefix(), 1620, "size %d", size)
		prefixes = append(prefixes, toks.Prefix())
		all := msgs[0].Content + msgs[1].Content
		for _, must := range []string{"SUBMIT(", "peek(", "search(", "llm_query(", "rlm_query(", "outputs[N]", "Not supported", "Declared outputs: answer:str", "Query: What is the magic number?"} {
			assert.Contains(t, all, must)
		}
		assert.NotContains(t, all, needle, "the prompt never holds the content")
	}
	for _, p := range prefixes[1:] {
		assert.InDelta(t, prefixes[0], p, 12, "same prompt size whatever the context size (± the summary's digits): %v", prefixes)
	}
}

func TestMetaCutToBudget(t *testing.T) {
	c := rlmctx.NewContext("q")
	for i := 0; i < 60; i++ {
		_, err := c.Add("var_"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)), strings.Repeat("word ", 100+i))
		require.NoError(t, err)
	}
	// A cap equal to the base: the compact lines are cut to it too.
	cfg := Config{MaxMetaBudget: DefaultMetaBudget}
	msgs, toks := RootPrompt(cfg, c)
	assert.LessOrEqual(t, toks.Meta, DefaultMetaBudget+msgOverhead)
	assert.Contains(t, msgs[1].Content, "call show_vars()")
	assert.Less(t, toks.Prefix(), 1620)
}

func TestToolsPromptMentionsTools(t *testing.T) {
	c := rlmctx.NewContext("q")
	_, err := c.Add("context", "hello")
	require.NoError(t, err)
	msgs, _ := RootPrompt(Config{Protocol: ProtocolTools}, c)
	assert.Contains(t, msgs[0].Content, "execute_code")
	assert.Contains(t, msgs[1].Content, "submit tool")
}

// The meta budget grows with the number of variables up to a cap; when the
// summaries do not fit, each variable gets one compact line.
func TestMetaBudgetScalesWithVariables(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		vars      int
		allListed bool
	}{
		{"40 vars fit compactly", Config{}, 40, true},
		{"cap reached", Config{MaxMetaBudget: 500}, 40, false},
		{"3 vars keep summaries", Config{}, 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := rlmctx.NewContext("q")
			for i := 0; i < tc.vars; i++ {
				_, err := c.Add(fmt.Sprintf("doc_%02d", i), strings.Repeat(fmt.Sprintf("line %d of a document about topic %d\n", i, i), 50))
				require.NoError(t, err)
			}
			tc.cfg.HelperDocs = testHelpers
			cfg := New(tc.cfg).Config()
			msgs, toks := RootPrompt(tc.cfg, c)
			meta := msgs[1].Content
			assert.LessOrEqual(t, toks.Meta, cfg.metaBudget(tc.vars)+msgOverhead)
			listed := 0
			for i := 0; i < tc.vars; i++ {
				if strings.Contains(meta, fmt.Sprintf("doc_%02d", i)) {
					listed++
				}
			}
			if tc.allListed {
				assert.Equal(t, tc.vars, listed, meta)
				assert.NotContains(t, meta, "more variables not listed")
			} else {
				assert.Less(t, listed, tc.vars)
				assert.Contains(t, meta, "more variables not listed: call show_vars()")
			}
			if tc.vars <= 3 {
				assert.NotContains(t, meta, "one line per variable")
			}
		})
	}
}

// The prompt never contradicts itself: rlm_query (with its handle,
// rlm_query_batched and children()) is described once, as it behaves at
// the depth in force; FINAL and FINAL_VAR are offered only when
// the outputs are a single answer; it says that what a successful SUBMIT's
// block prints is not shown, and that using a future waits for it, for
// every kind of sub-call.
func TestPromptIsConsistent(t *testing.T) {
	type depthCase struct {
		depth, maxDepth int
		recursive       bool
	}
	depths := []depthCase{{0, 1, false}, {0, 2, true}, {1, 2, false}, {1, 3, true}, {2, 3, false}}
	outputs := []struct {
		spec   string
		finals bool
	}{
		{"answer:str", true},
		{"answer:int", true},
		{"answer:str, confidence:float", false},
		{"summary:str", false},
		{"items:list[closed{name:str}]", false},
		{"items:list[closed{name:str?}]", false},
	}
	for _, p := range []Protocol{ProtocolText, ProtocolTools} {
		for _, d := range depths {
			for _, o := range outputs {
				name := fmt.Sprintf("%s/depth %d of %d/%s", p, d.depth, d.maxDepth, o.spec)
				t.Run(name, func(t *testing.T) {
					schema, err := ParseSchema(o.spec)
					require.NoError(t, err)
					cfg := New(Config{Protocol: p, MaxDepth: d.maxDepth, Outputs: schema}).Config()
					env := buildEnvelope(
						cfg,
						"q",
						"- doc: text, 5 bytes",
						[]varInfo{{Name: "doc", Type: "text", SizeBytes: 5}},
						schema,
						10,
						d.depth,
					)
					system, meta := env.System, env.Meta
					all := system + "\n" + meta
					assert.LessOrEqual(t, cfg.Tokenizer.Count(system), cfg.SystemBudget, "the system section fits its budget")

					assert.Equal(t, 1, strings.Count(all, "- rlm_query("), "rlm_query is described once")
					assert.Equal(t, 1, strings.Count(all, "- rlm_query_batched("), "and its batch form")
					assert.Equal(t, 1, strings.Count(all, "- children():"), "and children()")
					// The handle, at every depth: a future str with the
					// child's state, typed outputs and usage.
					assert.Equal(t, 1, strings.Count(all, "returns a handle: a future str (stripped) with .done, .result() ("),
						"the handle is described once, as rlm_query's")
					assert.Contains(t, all, ".usage, .cancel().")
					assert.Contains(t, all, `outputs="a: int, ..." declares them`)
					assert.Contains(t, all, "returns a list of handles.")
					assert.NotContains(t, meta, "rlm_query", "and only in the helper list")
					assert.Equal(
						t,
						d.recursive,
						strings.Contains(all, "recursive sub-RLM"),
						"a sub-RLM is promised only below the depth limit",
					)
					assert.Equal(
						t,
						!d.recursive,
						strings.Contains(all, "No sub-RLM at this depth"),
						"a plain call is described only at the depth limit",
					)
					assert.Equal(
						t,
						!d.recursive,
						strings.Contains(all, fmt.Sprintf("(the limit is %d RLM level(s))", d.maxDepth)),
						"with the limit in force",
					)

					assert.Equal(t, o.finals, strings.Contains(all, "FINAL"), "FINAL and FINAL_VAR only for a single answer")
					assert.Equal(t, o.finals, strings.Contains(all, "- FINAL_VAR("))
					assert.Contains(t, meta, "Declared outputs: "+schema.String())
					assert.Equal(
						t,
						strings.Contains(o.spec, "?"),
						strings.Contains(meta, "T? accepts None or a missing key"),
						"T? explained when used",
					)
					assert.Equal(
						t,
						strings.Contains(o.spec, "closed{"),
						strings.Contains(meta, "closed{...} allows no other keys"),
						"closed explained when used",
					)

					assert.Regexp(t, `It ends the run: what the same (block|call) prints is never shown`, system)
					assert.Contains(t, system, "waits for its result, even later in the same block or reply")
					assert.Contains(
						t,
						system,
						"every sub-call: llm_query, each future of llm_query_batched, summarize, find_relevant and rlm_query, so start them all first",
					)
					assert.NotContains(t, system, "resolved by the end of each step", "no second, weaker statement of when futures resolve")
				})
			}
		}
	}
}

// TestDefaultSystemPromptCached: the cached system prompt for each
// protocol, set of helper options and observation budget is the one
// rendered for them, whatever was asked before (each field of the key
// changes the prompt).
func TestDefaultSystemPromptCached(t *testing.T) {
	keys := []systemPromptKey{
		{ProtocolText, builtins.HelpOptions{}, 1000},
		{ProtocolTools, builtins.HelpOptions{}, 1000},
		{ProtocolText, builtins.HelpOptions{}, 2000},
		{ProtocolText, builtins.HelpOptions{AtDepthLimit: true, MaxDepth: 1}, 1000},
		{ProtocolText, builtins.HelpOptions{AtDepthLimit: true, MaxDepth: 2}, 1000},
		{ProtocolText, builtins.HelpOptions{NoFinal: true}, 1000},
		{ProtocolText, builtins.HelpOptions{Store: true}, 1000},
		{ProtocolText, builtins.HelpOptions{Store: true, StoreChildren: true}, 1000},
	}
	seen := map[string]bool{}
	for range 2 {
		for _, k := range keys {
			want := systemPrompt(k.p, defaultHelperDocs(k.o), k.observationTokens)
			assert.Equal(t, want, defaultSystemPrompt(k.p, k.o, k.observationTokens), "%+v", k)
			seen[want] = true
		}
	}
	assert.Len(t, seen, len(keys), "every key renders its own prompt")
}
