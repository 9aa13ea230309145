package llm_test

import (
	"context"
	"fmt"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

func ExampleNew() {
	// A fake OpenAI-compatible server; in real use BaseURL is e.g.
	// http://localhost:11434/v1 (Ollama) or empty for OpenAI.
	srv := llmtest.NewServer(nil)
	defer srv.Close()
	srv.Enqueue("llama3.1", llmtest.Text("Paris"))

	client, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "llama3.1"})
	if err != nil {
		panic(err)
	}
	resp, err := client.Chat(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "Capital of France?"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Content, resp.FinishReason)
	// Output: Paris stop
}

func ExampleMetered() {
	model := llmtest.NewScripted(llmtest.Say("42"))
	ledger := llm.NewLedger(llm.LedgerConfig{Limits: llm.Limits{MaxCalls: 1}})
	m := llm.Metered(model, ledger)

	req := llm.Request{Model: "gpt-4o-mini", Messages: []llm.Message{{Role: llm.RoleUser, Content: "answer?"}}}
	resp, _ := m.Chat(context.Background(), req)
	fmt.Println(resp.Content)
	_, err := m.Chat(context.Background(), req)
	fmt.Println(llm.KindOf(err))
	t := ledger.Totals()
	fmt.Println(t.Calls, t.CostKnown)
	// Output:
	// 42
	// budget
	// 1 true
}

func ExampleConfig_String() {
	cfg := llm.Config{BaseURL: "http://localhost:11434/v1", APIKey: "sk-secret-value", Model: "llama3.1"}
	fmt.Println(cfg)
	// Output: llm.Config{BaseURL:"http://localhost:11434/v1" APIKey:[REDACTED] Model:"llama3.1" Timeout:5m0s MaxRetries:4 MaxConcurrency:16}
}
