package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
)

func envOf(vars map[string]string) *cliEnv {
	return &cliEnv{stdin: bytes.NewReader(nil), stdout: io.Discard, stderr: io.Discard, getenv: func(k string) string { return vars[k] }}
}

func parseModelFlags(t *testing.T, args ...string) *modelFlags {
	t.Helper()
	var m modelFlags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	m.register(fs)
	require.NoError(t, fs.Parse(args))
	return &m
}

func TestModelFlagsConfig(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		want    llm.Config // compared on the fields below
		wantErr string
	}{
		{
			name: "env only",
			env: map[string]string{
				"OPENAI_BASE_URL":     "http://h/v1",
				"OPENAI_API_KEY":      "k",
				"RLM_MODEL":           "m",
				"RLM_SUB_MODEL":       "s",
				"RLM_EMBEDDING_MODEL": "e",
			},
			want: llm.Config{BaseURL: "http://h/v1", APIKey: "k", Model: "m", SubModel: "s", EmbeddingModel: "e"},
		},
		{
			name: "flags override env",
			env:  map[string]string{"OPENAI_BASE_URL": "http://h/v1", "OPENAI_API_KEY": "k", "RLM_MODEL": "m"},
			args: []string{
				"--base-url",
				"http://other/v1",
				"--api-key",
				"k2",
				"--model",
				"m2",
				"--sub-model",
				"s2",
				"--embedding-model",
				"e2",
			},
			want: llm.Config{BaseURL: "http://other/v1", APIKey: "k2", Model: "m2", SubModel: "s2", EmbeddingModel: "e2"},
		},
		{
			name: "only key: OpenAI default model",
			env:  map[string]string{"OPENAI_API_KEY": "k"},
			want: llm.Config{APIKey: "k", Model: "gpt-4o-mini"},
		},
		{
			name: "local server needs no key",
			args: []string{"--base-url", "http://localhost:11434/v1", "--model", "llama3.1"},
			want: llm.Config{BaseURL: "http://localhost:11434/v1", Model: "llama3.1"},
		},
		{
			name:    "nothing configured",
			wantErr: "OPENAI_BASE_URL",
		},
		{
			name:    "base url without model",
			env:     map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"},
			wantErr: "RLM_MODEL",
		},
		{
			name:    "model without endpoint or key",
			env:     map[string]string{"RLM_MODEL": "gpt-4o"},
			wantErr: "OPENAI_API_KEY",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := parseModelFlags(t, tc.args...)
			cfg, err := m.config(envOf(tc.env))
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, llm.ErrNoModel)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want.BaseURL, cfg.BaseURL)
			assert.Equal(t, tc.want.APIKey, cfg.APIKey)
			assert.Equal(t, tc.want.Model, cfg.Model)
			assert.Equal(t, tc.want.SubModel, cfg.SubModel)
			assert.Equal(t, tc.want.EmbeddingModel, cfg.EmbeddingModel)
		})
	}
}

func TestNoModelMessage(t *testing.T) {
	_, _, closeFn, err := parseModelFlags(t).chatModel(envOf(nil), nil)
	require.Error(t, err)
	require.NotNil(t, closeFn)
	assert.ErrorIs(t, err, llm.ErrNoModel)
	for _, want := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "RLM_MODEL", "--base-url http://localhost:11434/v1", "--model llama3.1"} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestModelFlagsKnobs(t *testing.T) {
	m := parseModelFlags(
		t,
		"--model",
		"m",
		"--base-url",
		"http://h/v1",
		"--temperature",
		"0",
		"--max-output-tokens",
		"99",
		"--request-timeout",
		"7s",
		"--max-retries",
		"0",
		"--max-concurrency",
		"3",
		"--rpm",
		"60",
		"--tpm",
		"1000",
		"--embed-batch-size",
		"10",
	)
	cfg, err := m.config(envOf(nil))
	require.NoError(t, err)
	require.NotNil(t, cfg.Temperature)
	assert.Equal(t, float32(0), *cfg.Temperature)
	assert.Equal(t, 99, cfg.MaxOutputTokens)
	assert.Equal(t, "7s", cfg.Timeout.String())
	assert.Equal(t, -1, cfg.MaxRetries, "--max-retries 0 means no retries")
	assert.Equal(t, 3, cfg.MaxConcurrency)
	assert.Equal(t, 60, cfg.RequestsPerMinute)
	assert.Equal(t, 1000, cfg.TokensPerMinute)
	assert.Equal(t, 10, cfg.EmbedBatchSize)

	cfg, err = parseModelFlags(t, "--model", "m", "--base-url", "http://h/v1").config(envOf(nil))
	require.NoError(t, err)
	assert.Nil(t, cfg.Temperature, "unset temperature is the server's default")

	var fs flag.FlagSet
	fs.SetOutput(io.Discard)
	(&modelFlags{}).register(&fs)
	assert.Error(t, fs.Parse([]string{"--temperature", "hot"}))

	for _, args := range [][]string{
		{"--max-concurrency", "0"},
		{"--record", "a", "--replay", "b"},
		{"--max-output-tokens", "-1"},
		{"--base-url", "localhost:11434/v1"},
		{"--rpm", "-1"},
		{"--embed-batch-size", "0"},
		{"--request-timeout", "-1s"},
		{"--max-retries", "-2"},
	} {
		_, err := parseModelFlags(t, append([]string{"--model", "m", "--base-url", "http://h/v1"}, args...)...).config(envOf(nil))
		assert.ErrorIs(t, err, errUsage, "%v", args)
	}
}

func TestChatModelRecordReplay(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.RequireKey("sk-secret-key-123456")
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.jsonl")
	env := envOf(
		map[string]string{
			"OPENAI_BASE_URL":     srv.URL(),
			"OPENAI_API_KEY":      "sk-secret-key-123456",
			"RLM_MODEL":           "m1",
			"RLM_EMBEDDING_MODEL": "e1",
		},
	)

	ledger := llm.NewLedger(llm.LedgerConfig{})
	chat, emb, closeFn, err := parseModelFlags(t, "--record", rec).chatModel(env, ledger)
	require.NoError(t, err)
	require.NotNil(t, emb)
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: "hello"}}}
	resp1, err := chat.Chat(context.Background(), req)
	require.NoError(t, err)
	vec1, err := emb.Embed(context.Background(), []string{"x"})
	require.NoError(t, err)
	require.NoError(t, closeFn())
	assert.Equal(t, 1, ledger.Totals().Calls-ledger.ByModel()["e1"].Calls)
	data, err := os.ReadFile(rec)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "sk-secret")

	// Replay needs no endpoint and takes the model names from the recording.
	n := srv.Count()
	ledger2 := llm.NewLedger(llm.LedgerConfig{})
	m := parseModelFlags(t, "--replay", rec)
	cfg, err := m.config(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, "m1", cfg.Model)
	chat, emb, closeFn, err = m.chatModel(envOf(nil), ledger2)
	require.NoError(t, err)
	require.NotNil(t, emb)
	resp2, err := chat.Chat(context.Background(), req)
	require.NoError(t, err)
	vec2, err := emb.Embed(context.Background(), []string{"x"})
	require.NoError(t, err)
	require.NoError(t, closeFn())
	assert.Positive(t, resp1.FirstByte, "a live answer's time to first byte is measured")
	resp1.FirstByte = 0 // and not recorded: the replayed answer has none
	assert.Equal(t, resp1, resp2)
	assert.Equal(t, vec1, vec2)
	assert.Equal(t, n, srv.Count())
	assert.Equal(t, ledger.Totals(), ledger2.Totals(), "the replay's usage, embeddings included, is the recorded run's")
	assert.Equal(t, ledger.ByModel(), ledger2.ByModel())
	assert.Equal(t, 1, ledger2.ByModel()["e1"].Calls)
	_, err = emb.Embed(context.Background(), []string{"never embedded"})
	assert.Equal(t, llm.KindReplayMiss, llm.KindOf(err), "err: %v", err)
	assert.ErrorContains(t, err, "never embedded")

	// A diverging request is named.
	_, err = chat.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "something else"}}})
	assert.Equal(t, llm.KindReplayMiss, llm.KindOf(err))
	assert.ErrorContains(t, err, "something else")

	// No embedding model: no embedder.
	_, emb, _, err = parseModelFlags(t).chatModel(envOf(map[string]string{"OPENAI_BASE_URL": srv.URL(), "RLM_MODEL": "m"}), nil)
	require.NoError(t, err)
	assert.Nil(t, emb)

	// Wrong key: the error never shows it.
	bad := envOf(map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-wrong-key-98765432", "RLM_MODEL": "m"})
	chat, _, _, err = parseModelFlags(t).chatModel(bad, nil)
	require.NoError(t, err)
	_, err = chat.Chat(context.Background(), req)
	assert.Equal(t, llm.KindAuth, llm.KindOf(err))
	assert.NotContains(t, err.Error(), "wrong-key-98765432")
	assert.True(t, errors.As(err, new(*llm.Error)))
}
