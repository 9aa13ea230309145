package viewer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/orchestrator"
)

// Strings the browser tests look for in the fixture's pages.
const (
	fixtureAnswer = "The launch code is 7731"
	outputNeedle  = "zebra-quokka-42"
	childQuery    = "Find the launch code in part"
)

func code(lines ...string) string {
	return "```python\n" + strings.Join(lines, "\n") + "\n```"
}

// realTrajectory runs the orchestrator with a scripted model and returns
// its trajectory: four root steps (sub-calls and a ranking, a child RLM and
// an error, a rejected SUBMIT, an accepted one) and a two-step child.
func realTrajectory(t testing.TB) []byte {
	t.Helper()
	root := llmtest.NewScripted(
		llmtest.Say("Let me look at the data first.\n"+code(
			`a = llm_query("Summarize: "+context[:200])`,
			`b = llm_query("Summarize: "+context[:200])`,
			`r = find_relevant(context.splitlines(), "launch code", top_k=2)`,
			`for i in range(30):`,
			`    print("row", i, "`+outputNeedle+`" if i == 17 else "hay")`,
			`print(a, r[0]["item"])`)),
		llmtest.Say(code(
			`code = rlm_query("`+childQuery+`", part=context)`,
			`print("child says", code)`,
			`x = 1/0`)),
		// The child's two steps.
		llmtest.Say(code(`print(search(part, "launch code"))`)),
		llmtest.Say(code(`SUBMIT(answer="7731")`)),
		// Back in the root.
		llmtest.Say(code(`SUBMIT(wrong=1)`)),
		llmtest.Say("Done.\n"+code(`SUBMIT(answer="`+fixtureAnswer+`")`)),
	).WithModel("root-model")
	for range 2 {
		root.OnModel("sub-model", func(req llm.Request) (*llm.Response, error) {
			return llmtest.Say("A text about launches.")(req)
		})
	}
	var traj bytes.Buffer
	l := llm.NewLedger(llm.LedgerConfig{})
	cfg := orchestrator.Config{Model: llm.Metered(root, l), Ledger: l, RootModel: "root-model", SubModel: "sub-model",
		MaxDepth: 2, Trajectory: &traj, RunConfig: map[string]any{"model": "root-model", "sub_model": "sub-model", "api_key_set": false}}
	c := rlmctx.NewContext("What is the launch code?")
	_, err := c.Add(
		"context",
		strings.Repeat("filler line about nothing\n", 40)+"the launch code is 7731\n"+strings.Repeat("more filler\n", 40),
	)
	require.NoError(t, err)
	res, err := orchestrator.New(cfg).Run(context.Background(), c)
	require.NoError(t, err)
	require.Equal(t, orchestrator.StopSubmit, res.StopReason, "err: %v\n%s", res.Err, traj.String())
	require.Equal(t, fixtureAnswer, res.Answer)
	return traj.Bytes()
}

// synthetic builds a trajectory of steps root steps, subs sub-calls spread
// over them and about outBytes of outputs, without running anything.
func synthetic(steps, subs, outBytes int) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	ms := 0
	emit := func(typ, run string, step int, data any) {
		ms += 3
		_ = enc.Encode(map[string]any{"v": 1, "type": typ, "run": run, "step": step, "elapsed_ms": ms, "data": data})
	}
	emit("run_start", "0", 0, map[string]any{"query": "Aggregate every record", "depth": 0, "protocol": "text", "outputs": "answer:str",
		"variables": []any{map[string]any{"name": "context", "type": "string", "size_bytes": 50 << 20}},
		"limits":    map[string]any{"max_iterations": steps + 10, "max_depth": 2, "max_tokens": steps * 9000},
		"budgets":   map[string]any{"system": 2000, "meta": 1000, "dynamic": 6000, "compress_at": 0.8},
		"config":    map[string]any{"model": "big-model", "sub_model": "small-model"}})
	perStep := outBytes / max(steps, 1)
	line := "record 000000: alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima\n"
	sub := 0
	for s := 1; s <= steps; s++ {
		emit(
			"request",
			"0",
			s,
			map[string]any{
				"model":        "big-model",
				"messages":     2 * s,
				"tokens":       map[string]int{"system": 1800, "meta": 700, "query": 20, "dynamic": 1000 + s%5000},
				"total_tokens": 3520 + s%5000,
				"prefix_hash":  "0123456789abcdef",
			},
		)
		emit(
			"reply",
			"0",
			s,
			map[string]any{"content": fmt.Sprintf("Step %d.\n```python\nfor r in records[%d:%d]:\n    print(r)\n```", s, s*10, s*10+10),
				"finish_reason": "stop", "usage": map[string]int{"prompt_tokens": 3520 + s%5000, "completion_tokens": 60}},
		)
		var out strings.Builder
		for out.Len() < perStep {
			out.WriteString(line)
		}
		if s == steps/2 {
			out.WriteString("the needle " + outputNeedle + " is here\n")
		}
		emit(
			"exec",
			"0",
			s,
			map[string]any{
				"block":     1,
				"code":      fmt.Sprintf("for r in records[%d:%d]:\n    print(r)", s*10, s*10+10),
				"output":    out.String(),
				"truncated": out.Len() > 4000,
			},
		)
		n := subs / steps
		if s <= subs%steps {
			n++
		}
		for i := 0; i < n; i++ {
			sub++
			emit(
				"sub_call",
				"0",
				s,
				map[string]any{"seq": i + 1, "kind": "llm_query", "model": "small-model", "prompt_hash": fmt.Sprintf("%016x", sub),
					"prompt": fmt.Sprintf("Classify record %d", sub), "prompt_chars": 20, "response": "positive", "response_chars": 8,
					"usage": map[string]int{"prompt_tokens": 30, "completion_tokens": 2}, "latency_ms": 120},
			)
		}
		if n > 0 {
			emit("deferred", "0", s, map[string]any{"started": n})
		}
		emit("observation", "0", s, map[string]any{"engine": "[engine] output excerpt of step " + fmt.Sprint(s)})
	}
	emit("submit", "0", steps, map[string]any{"outputs": map[string]any{"answer": "done"}, "valid": true})
	emit("run_end", "0", 0, map[string]any{"stop_reason": "submit", "answer": "done", "iterations": steps, "duration_ms": ms,
		"usage": map[string]any{"Calls": steps + subs, "PromptTokens": steps * 5000, "CompletionTokens": steps * 60}})
	return b.Bytes()
}
