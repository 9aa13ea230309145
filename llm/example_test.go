package llm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

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

func ExampleClient_Embed() {
	srv := llmtest.NewServer(nil)
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), EmbeddingModel: "nomic-embed-text", EmbedBatchSize: 2})
	if err != nil {
		panic(err)
	}
	texts := []string{"alpha", "beta", "gamma", "alpha"}
	vecs, err := client.Embed(context.Background(), texts)
	if err != nil {
		panic(err)
	}
	// One vector per text, in order; the duplicate was sent once, and
	// three unique texts in batches of two made two requests.
	fmt.Println(len(vecs), srv.Count())
	// Embedding again is answered from the cache.
	_, _ = client.Embed(context.Background(), texts[:2])
	fmt.Println(srv.Count())
	// Output:
	// 4 2
	// 2
}

func ExampleError() {
	srv := llmtest.NewServer(nil)
	defer srv.Close()
	srv.Enqueue("", llmtest.ContextLengthExceeded())
	client, _ := llm.New(llm.Config{BaseURL: srv.URL(), Model: "gpt-4o-mini", APIKey: "sk-example-0123456789"})

	_, err := client.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "a very long prompt"}}})
	var le *llm.Error
	if errors.As(err, &le) && le.Kind == llm.KindContextLength {
		fmt.Println("too long: chunk the input and retry;", le.StatusCode, le.Retryable())
	}
	// Output: too long: chunk the input and retry; 400 false
}

func ExampleNewRecorder() {
	dir, _ := os.MkdirTemp("", "rlm-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.jsonl")
	req := llm.Request{Model: "gpt-4o-mini", Messages: []llm.Message{{Role: llm.RoleUser, Content: "2+2?"}}}

	// Record against a live model (here a scripted one).
	rec, err := llm.NewRecorder(llmtest.NewScripted(llmtest.Say("4")), path)
	if err != nil {
		panic(err)
	}
	resp, _ := rec.Chat(context.Background(), req)
	if err := rec.Close(); err != nil {
		panic(err)
	}
	fmt.Println("recorded:", resp.Content)

	// Replay offline: the same request gets the same answer; another fails.
	rp, err := llm.OpenReplay(path)
	if err != nil {
		panic(err)
	}
	resp, _ = rp.Chat(context.Background(), req)
	fmt.Println("replayed:", resp.Content)
	req.Messages[0].Content = "3+3?"
	_, err = rp.Chat(context.Background(), req)
	fmt.Println(llm.KindOf(err))
	// Output:
	// recorded: 4
	// replayed: 4
	// replay_miss
}

func ExampleTokenizer_Count() {
	tok := llm.TokenizerForModel("gpt-4o")
	fmt.Println(tok.Name(), tok.Count("Hello, world!"))
	fmt.Println(llm.TokenizerForModel("gpt-4").Name())
	// Output:
	// o200k_base 4
	// cl100k_base
}

func ExamplePriceTable_Cost() {
	prices := llm.DefaultPrices()
	cost, known := prices.Cost("gpt-4o-mini-2024-07-18", llm.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000})
	fmt.Printf("$%.2f %v\n", cost, known)
	_, known = prices.Cost("llama3.1", llm.Usage{PromptTokens: 1000})
	fmt.Println(known) // unknown, never zero
	// Output:
	// $0.21 true
	// false
}
