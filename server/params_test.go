package server

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/orchestrator"
)

// TestSamplingParamsReachRootCalls: seed, stop and top_p, sent by the
// go-openai client, reach every call to the root model in the OpenAI wire
// format, and not the sub-calls (llm_query), which keep the server's
// settings (issue 27).
func TestSamplingParamsReachRootCalls(t *testing.T) {
	ts := newTestServer(t, nil)
	seed := 1234
	resp, err := ts.client(nil).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "rlm", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "sub x"}},
		Seed: &seed, Stop: []string{"<END>", "<STOP>"}, TopP: 0.25,
	})
	require.NoError(t, err)
	assert.Equal(t, "sub:hello", resp.Choices[0].Message.Content)
	roots, subs := 0, 0
	for _, c := range ts.up.Calls() {
		switch c.Model {
		case rootModel:
			roots++
			require.NotNil(t, c.Seed, "root call: %s", c.Body)
			assert.Equal(t, 1234, *c.Seed)
			assert.Equal(t, []string{"<END>", "<STOP>"}, c.Stop)
			require.NotNil(t, c.TopP, "root call: %s", c.Body)
			assert.InDelta(t, 0.25, *c.TopP, 1e-6)
		case subModel:
			subs++
			assert.Nil(t, c.Seed, "sub-call: %s", c.Body)
			assert.Nil(t, c.Stop, "sub-call: %s", c.Body)
			assert.Nil(t, c.TopP, "sub-call: %s", c.Body)
		}
	}
	assert.Equal(t, 2, roots, "two root steps")
	assert.Equal(t, 1, subs, "one llm_query")

	// A single stop string, seed 0 and top_p 0 are sent as given.
	body := chatBody("echo hi", nil)
	body["stop"], body["seed"], body["top_p"] = "\n\n\n", 0, 0
	code, _, raw := ts.do(t, "POST", "/v1/chat/completions", body)
	require.Equal(t, 200, code, string(raw))
	calls := ts.up.Calls()
	last := calls[len(calls)-1]
	require.Equal(t, rootModel, last.Model)
	assert.Equal(t, []string{"\n\n\n"}, last.Stop)
	require.NotNil(t, last.Seed)
	assert.Equal(t, 0, *last.Seed)
	require.NotNil(t, last.TopP, "top_p 0 is sent, not omitted")
	assert.InDelta(t, 0, *last.TopP, 1e-6)
}

// TestSamplingParamsValidated: bad seed, stop and top_p values are 400s
// naming the field; null is the default.
func TestSamplingParamsValidated(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, tt := range []struct {
		param string
		value any
		msg   string
	}{
		{"seed", 1.5, "must be an integer"},
		{"seed", "7", "must be an integer"},
		{"seed", true, "must be an integer"},
		{"seed", 1e30, "must be an integer"},
		{"stop", []string{"a", "b", "c", "d", "e"}, "at most 4"},
		{"stop", "", "must not be empty"},
		{"stop", []string{"a", ""}, "sequence 1 is empty"},
		{"stop", 3, "want a string or an array"},
		{"stop", []any{"a", 3}, "want a string or an array"},
		{"top_p", 1.5, "between 0 and 1"},
		{"top_p", -0.1, "between 0 and 1"},
		{"top_p", "0.5", "top_p"},
	} {
		b := chatBody("echo hi", nil)
		b[tt.param] = tt.value
		code, _, raw := ts.do(t, "POST", "/v1/chat/completions", b)
		assert.Equal(t, 400, code, "%s=%v: %s", tt.param, tt.value, raw)
		var e errorBody
		require.NoError(t, json.Unmarshal(raw, &e), string(raw))
		require.NotNil(t, e.Error.Param, string(raw))
		assert.Equal(t, tt.param, *e.Error.Param, string(raw))
		assert.Contains(t, e.Error.Message, tt.msg)
	}
	assert.Zero(t, ts.up.Count(), "no bad request reached the upstream")

	b := chatBody("echo hi", nil)
	b["seed"], b["stop"], b["top_p"] = nil, nil, nil
	code, _, raw := ts.do(t, "POST", "/v1/chat/completions", b)
	require.Equal(t, 200, code, string(raw))
	c := ts.up.Calls()[0]
	assert.Nil(t, c.Seed)
	assert.Nil(t, c.Stop)
	assert.Nil(t, c.TopP)
}

// readmeFieldTable returns the rows of the README's table of OpenAI
// request fields under heading: field name to what rlm does (the first
// word of the second column: honoured, refused or ignored).
func readmeFieldTable(t *testing.T, heading string) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(b), heading+"\n")
	require.True(t, ok, "README.md has no %q section", heading)
	rows := map[string]string{}
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cols := strings.Split(line, "|")
		require.GreaterOrEqual(t, len(cols), 4, line)
		what, _, _ := strings.Cut(strings.TrimSpace(cols[2]), " ")
		what = strings.Trim(what, "*:,")
		for _, f := range strings.Split(cols[1], ",") {
			f = strings.Trim(strings.TrimSpace(f), "`")
			_, dup := rows[f]
			require.False(t, dup, "%s twice in the README table", f)
			rows[f] = what
		}
	}
	require.NotEmpty(t, rows)
	return rows
}

// TestReadmeFieldTable: the README's table of OpenAI request fields
// lists every field the server declares, each as what the server does:
// refused fields are 400s naming them, ignored ones have a reason, the
// others are honoured.
func TestReadmeFieldTable(t *testing.T) {
	rows := readmeFieldTable(t, "## OpenAI request fields (`rlm serve`)")
	known := knownFields(&chatRequest{})
	delete(known, "rlm") // rlm's own extension, documented in docs/serve.md
	refused := map[string]bool{}
	for _, p := range refusedParams {
		refused[p.name] = true
	}
	for f := range known {
		assert.Contains(t, rows, f, "the README table misses %s", f)
	}
	ts := newTestServer(t, nil)
	for f, what := range rows {
		if !assert.True(t, known[f], "README lists %s, which chatRequest does not declare", f) {
			continue
		}
		want := "honoured"
		switch {
		case refused[f]:
			want = "refused"
		case ignoredParams[f] != "":
			want = "ignored"
		}
		assert.Equal(t, want, what, "README row for %s", f)
		if want == "refused" {
			b := chatBody("echo hi", nil)
			b[f] = map[string]any{"x": 1}
			code, _, raw := ts.do(t, "POST", "/v1/chat/completions", b)
			assert.Equal(t, 400, code, "%s: %s", f, raw)
			var e errorBody
			require.NoError(t, json.Unmarshal(raw, &e), string(raw))
			if assert.NotNil(t, e.Error.Param, string(raw)) {
				assert.Equal(t, f, *e.Error.Param)
			}
		}
	}
}

// TestActiveTimeBudgetPerRequest: rlm.max_active_seconds lowers the
// server's active-time budget (or sets one on a server without).
func TestActiveTimeBudgetPerRequest(t *testing.T) {
	secs := func(f float64) *float64 { return &f }
	tests := []struct {
		name string
		cap  time.Duration
		req  *float64
		want time.Duration
	}{
		{"the server's cap when absent", time.Minute, nil, time.Minute},
		{"lowered", time.Minute, secs(1.5), 1500 * time.Millisecond},
		{"set on a server without one", 0, secs(30), 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{cfg: Config{Engine: orchestrator.Config{MaxActiveTime: tt.cap}}}
			var spec runSpec
			require.NoError(t, s.applyOptions(&spec, rlmOptions{MaxActiveSeconds: tt.req}))
			assert.Equal(t, tt.want, spec.engine.MaxActiveTime)
		})
	}
}
