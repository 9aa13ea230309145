package llmtest_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

func ExampleNewScripted() {
	m := llmtest.NewScripted(llmtest.Say("first")).
		OnModel("small", llmtest.Say("from the small model")).
		Default(func(req llm.Request) (*llm.Response, error) {
			return &llm.Response{Content: strings.ToUpper(req.Messages[0].Content)}, nil
		})
	ask := func(model, q string) string {
		resp, err := m.Chat(context.Background(), llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: q}}})
		if err != nil {
			return err.Error()
		}
		return resp.Content
	}
	fmt.Println(ask("big", "a"))
	fmt.Println(ask("small", "b"))
	fmt.Println(ask("big", "echo me"))
	fmt.Println(len(m.Requests()), m.Requests()[1].Model)
	// Output:
	// first
	// from the small model
	// ECHO ME
	// 3 small
}

func ExampleNewServer() {
	srv := llmtest.NewServer(nil) // nil: no *testing.T; Close it yourself
	defer srv.Close()
	// One 429 asking for a retry after 0 seconds, then an answer.
	srv.Enqueue("gpt-4o-mini", llmtest.RateLimited("0"), llmtest.Text("hello"))

	client, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "gpt-4o-mini", RetryBaseDelay: time.Millisecond})
	if err != nil {
		panic(err)
	}
	resp, err := client.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Content, srv.Count())
	for _, c := range srv.Calls() {
		fmt.Println(c.Path, c.Model)
	}
	// Output:
	// hello 2
	// /v1/chat/completions gpt-4o-mini
	// /v1/chat/completions gpt-4o-mini
}

func ExampleHashEmbedder() {
	var e llmtest.HashEmbedder
	vecs, _ := e.Embed(context.Background(), []string{"a", "a", "b"})
	fmt.Println(len(vecs[0]) == llmtest.DefaultDim, llmtest.Cosine(vecs[0], vecs[1]) > 0.999, e.Texts())
	// Output: true true 3
}
