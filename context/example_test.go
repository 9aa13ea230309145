package rlmctx_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	rlmctx "github.com/rlmhq/rlm/context"
)

// The root model is shown only the summaries; the values live in the REPL.
func ExampleExternalizedContext() {
	c := rlmctx.NewContext("Which user posted most?")
	posts := []any{
		map[string]any{"user": "ann", "text": "hello"},
		map[string]any{"user": "bob", "text": "hi there"},
	}
	if _, err := c.Add("posts", posts); err != nil {
		panic(err)
	}
	if _, err := c.Add("readme", "# Forum export\nOne post per item.\n"); err != nil {
		panic(err)
	}
	fmt.Println(c.VariableSummaries())
	// Output:
	// - posts: json list of 2 items, 71 bytes, 27 tokens, items are dicts with keys [text, user]; preview [{"text": "hello", "user": "ann"}, {"text": "hi there", "user": "bob"}]
	// - readme: text, 34 bytes, 9 tokens, 2 lines; preview "# Forum export\nOne post per item.\n"
}

func ExampleParseVarSpec() {
	spec, err := rlmctx.ParseVarSpec("history:conversation=chat.json")
	if err != nil {
		panic(err)
	}
	fmt.Println(spec.Name, spec.Type, spec.Source)
	_, err = rlmctx.ParseVarSpec("my-data=x.txt")
	fmt.Println(err)
	// Output:
	// history conversation chat.json
	// variable spec "my-data=x.txt": rlmctx: invalid variable name "my-data": character '-' at position 2; use letters, digits and underscores, not starting with a digit (e.g. my_data)
}

func ExampleLoadSource() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "scores.jsonl")
	os.WriteFile(path, []byte("{\"name\": \"ann\", \"score\": 3}\n{\"name\": \"bob\", \"score\": 4.5}\n"), 0o644)

	l, err := rlmctx.LoadSource(context.Background(), path, rlmctx.LoadOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(l.Type)
	for _, rec := range l.Value.([]any) {
		score, _ := rec.(*rlmctx.Dict).Get("score")
		fmt.Printf("%T %v\n", score, score)
	}
	// Output:
	// json
	// int64 3
	// float64 4.5
}

func ExampleExternalizedContext_AutoChunk() {
	c := rlmctx.NewContext("q")
	c.Add("log", "line one\nline two\nline three\n")
	added := c.AutoChunk(rlmctx.SizeConfig{ChunkThreshold: 16, ChunkSize: 10})
	chunks, _ := c.Get(added[0])
	fmt.Printf("%s %q\n", added[0], chunks.Value)
	// Output:
	// log_chunks ["line one\n" "line two\n" "line " "three\n"]
}

func ExampleStore() {
	dir, _ := os.MkdirTemp("", "store")
	defer os.RemoveAll(dir)
	s, err := rlmctx.OpenStore(rlmctx.StoreConfig{Dir: dir})
	if err != nil {
		panic(err)
	}
	defer s.Close()

	ref, _ := s.Set("findings", []any{"disk full at 03:00"}, rlmctx.WithScope(rlmctx.AgentScope("7")), rlmctx.WithPersist())
	fmt.Println(ref.Key, ref.Type, ref.Scope, ref.SizeBytes, ref.Version)

	// Compare-and-swap: only one of two writers holding version 1 wins.
	_, err = s.SetIfVersion("findings", []any{"a"}, 1)
	fmt.Println(err == nil)
	_, err = s.SetIfVersion("findings", []any{"b"}, 1)
	fmt.Println(err)

	v, _ := s.Get("findings")
	fmt.Println(v)
	// Output:
	// findings json agent:7 22 1
	// true
	// store key "findings": rlmctx: version mismatch: expected version 1, current is 2
	// [a]
}
