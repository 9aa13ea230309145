package orchestrator_test

import (
	"context"
	"fmt"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/orchestrator"
)

func ExampleEngine_Run() {
	// A scripted root model: it searches the context, then submits.
	model := llmtest.NewScripted(
		llmtest.Say("```python\nhits = search(notes, \"password\")\nprint(hits[0][\"line\"])\n```"),
		llmtest.Say("```python\nline = notes.splitlines()[hits[0][\"line\"] - 1]\nSUBMIT(answer=line.split(\": \")[1])\n```"),
	)
	ledger := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxCalls: 10}})
	eng := orchestrator.New(orchestrator.Config{Model: llm.Metered(model, ledger), Ledger: ledger})

	c := rlmctx.NewContext("What is the wifi password?")
	c.Add("notes", "groceries: milk\nwifi password: hunter2\nplants: water on friday\n")
	res, err := eng.Run(context.Background(), c)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Answer, res.StopReason, res.Iterations, res.Usage.Calls)
	// Output: hunter2 submit 2 2
}

func ExampleRootPrompt() {
	c := rlmctx.NewContext("How many lines mention ERROR?")
	c.Add("logs", "INFO start\nERROR disk full\nINFO stop\n")
	msgs, tokens := orchestrator.RootPrompt(orchestrator.Config{}, c)
	fmt.Println(len(msgs), msgs[0].Role, msgs[1].Role, tokens.Prefix() < 1500)
	// Output: 2 system user true
}
