package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/llm/llmtest"
	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/sandbox"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"
)

const (
	rootModel = "root-model"
	subModel  = "sub-model"
	// canaryKey and canaryToken must never leave the server.
	canaryKey   = "sk-canary-UPSTREAM-7f3a9c"
	canaryToken = "tok-canary-SERVER-42b1d8"
)

// queryOf finds the query in a root request (see orchestrator's envelope).
func queryOf(msgs []llm.Message) string {
	for _, m := range msgs {
		if _, q, ok := strings.Cut(m.Content, "\n\nQuery: "); ok {
			return q
		}
	}
	return ""
}

func assistants(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	return n
}

func code(s string) llmtest.Reply { return llmtest.Text("```python\n" + s + "\n```") }

// fakeUpstream scripts the root model by the query's first word and
// answers sub-calls with "sub:" and their prompt.
func fakeUpstream(t testing.TB, delay time.Duration) *llmtest.Server {
	up := llmtest.NewServer(t).RequireKey(canaryKey)
	up.SetDefault(func(c llmtest.Call) llmtest.Reply {
		r := rootReply(c)
		r.Delay = delay
		return r
	})
	return up
}

func rootReply(c llmtest.Call) llmtest.Reply {
	if c.Model == subModel {
		return llmtest.Text("sub:" + c.Messages[len(c.Messages)-1].Content)
	}
	q := queryOf(c.Messages)
	word, rest, _ := strings.Cut(q, " ")
	turn := assistants(c.Messages)
	switch word {
	case "echo":
		return code(fmt.Sprintf("SUBMIT(answer=%q)", rest))
	case "len":
		return code("SUBMIT(answer=str(len(" + rest + ")))")
	case "conv":
		return code(`SUBMIT(answer=conversation[0]["content"] + "|" + conversation[1]["content"])`)
	case "typed":
		return code(`SUBMIT(answer=str(data["n"] + 1), confidence=0.5)`)
	case "nested":
		return code(`SUBMIT(items=[{"name": "a", "file": "a.go"}, {"name": "b", "file": "b.go"}], total=2, by_region={"eu": 2})`)
	case "nestedfix":
		// An invalid SUBMIT first; again after the engine's error message.
		if turn == 0 {
			return code(`SUBMIT(items=[{"name": "a", "file": None}], total=1, by_region={"eu": "1"})`)
		}
		return code(`SUBMIT(items=[{"name": "a", "file": "a.go"}], total=1, by_region={"eu": 1})`)
	case "nestedextra":
		// Keys a closed schema does not declare: nested, refused; at the
		// top level, left out of the content.
		if turn == 0 {
			return code(`SUBMIT(items=[{"name": "a", "file": "a.go", "size": 3}], total=1, by_region={}, debug="x")`)
		}
		return code(`SUBMIT(items=[{"name": "a", "file": "a.go"}], total=1, by_region={}, debug="x")`)
	case "jsonobj":
		return code(`SUBMIT(answer={"a": 1, "b": [True, None]})`)
	case "sub":
		if turn == 0 {
			return code(`r = llm_query("hello")` + "\nprint(r)")
		}
		return code(`SUBMIT(answer=outputs[1].strip())`)
	case "memo":
		if turn == 0 {
			return code(`a = llm_query("hello")` + "\n" + `b = llm_query("hello")` + "\nprint(a, b)")
		}
		return code(`SUBMIT(answer=outputs[1].strip())`)
	case "storechild":
		// A child RLM, whose result the run then reads from the store.
		switch turn {
		case 0:
			return code(`r = rlm_query("childanswer ` + rest + `")` + "\nprint(r.value)")
		case 1:
			return code(`ks = [k["key"] for k in store_keys()]` + "\n" + `res = store_get(ks[0])` + "\n" + `print(len(ks), res["answer"])`)
		}
		return code(`SUBMIT(answer=outputs[2].strip())`)
	case "childanswer":
		return code(fmt.Sprintf("SUBMIT(answer=%q)", "child "+rest))
	case "slow":
		return code("print(1)")
	case "loop":
		return code("while True:\n    pass")
	case "fill":
		// Compression folds old turns away: count the iterations left.
		last := c.Messages[len(c.Messages)-1].Content
		if !strings.Contains(last, " 4 iterations left") {
			return code(`print("filler line %d " % len(outputs) * 300)`)
		}
		return code(`SUBMIT(answer="filled")`)
	case "huge":
		return code("x = 'a' * (10 ** 10)")
	case "bomb":
		return code("x = []\nwhile True:\n    x.append('a' * 10000000)")
	case "leak":
		// The upstream sends the key back: the client redacts it.
		return llmtest.Text("the key is " + canaryKey + "\n```python\nSUBMIT(answer=\"key " + canaryKey + "\")\n```")
	}
	return code(`SUBMIT(answer="unknown query")`)
}

// testServer is a server over a fake upstream, served by httptest.
type testServer struct {
	s    *Server
	http *httptest.Server
	up   *llmtest.Server
	logs *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newTestServer(t testing.TB, edit func(*Config)) *testServer {
	t.Helper()
	return newTestServerOn(t, fakeUpstream(t, 0), edit)
}

func newTestServerOn(t testing.TB, up *llmtest.Server, edit func(*Config)) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	lim := sandbox.DefaultLimits()
	lim.Timeout = 500 * time.Millisecond
	lim.MaxMemory = 64 << 20
	lim.MaxSessionMemory = 256 << 20
	cfg := Config{
		LLM: llm.Config{BaseURL: up.URL(), APIKey: canaryKey, Model: rootModel, SubModel: subModel, MaxRetries: -1, MaxConcurrency: 4},
		Engine: orchestrator.Config{MaxIterations: 4, MaxDepth: 1, ChildMaxIterations: 3, MaxConsecutiveErrors: 2,
			Limits: lim, Timeout: time.Minute},
		Token:    canaryToken,
		StoreDir: t.TempDir(),
		RunsDir:  t.TempDir(),
		Version:  "test",
		Logger:   slog.New(slog.NewJSONHandler(logs, nil)),
	}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg)
	require.NoError(t, err)
	hs := httptest.NewUnstartedServer(nil)
	hs.Config = s.HTTPServer()
	hs.Listener = s.LimitListener(hs.Listener)
	hs.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Drain(ctx, 0)
		hs.Close()
		s.Close()
	})
	return &testServer{s: s, http: hs, up: up, logs: logs}
}

// rlmTransport adds an "rlm" field to the JSON bodies of requests, as the
// OpenAI Python client's extra_body does.
type rlmTransport struct{ rlm any }

func (t rlmTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.rlm != nil && r.Body != nil {
		var m map[string]any
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) == nil {
			m["rlm"] = t.rlm
			b, _ = json.Marshal(m)
		}
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

// client is the official go-openai client pointed at the server.
func (ts *testServer) client(rlm any) *openai.Client {
	cfg := openai.DefaultConfig(canaryToken)
	cfg.BaseURL = ts.http.URL + "/v1"
	cfg.HTTPClient = &http.Client{Transport: rlmTransport{rlm: rlm}}
	return openai.NewClientWithConfig(cfg)
}

// do sends a request with the token and returns status, headers, body.
func (ts *testServer) do(t testing.TB, method, path string, body any, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, ts.http.URL+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+canaryToken)
	if _, ok := body.(string); !ok && body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, out
}

// chatBody is a chat request body with a query and an rlm field.
func chatBody(query string, rlm map[string]any) map[string]any {
	b := map[string]any{"model": "rlm", "messages": []map[string]any{{"role": "user", "content": query}}}
	if rlm != nil {
		b["rlm"] = rlm
	}
	return b
}

// waitRun polls GET /v1/runs/{id} until the run is no longer queued or
// running.
func (ts *testServer) waitRun(t testing.TB, id string) RunResult {
	t.Helper()
	for range 2000 {
		code, _, body := ts.do(t, "GET", "/v1/runs/"+id, nil)
		require.Equal(t, 200, code, string(body))
		var r RunResult
		require.NoError(t, json.Unmarshal(body, &r))
		if r.Status != StateQueued && r.Status != StateRunning {
			return r
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("run %s did not finish", id)
	return RunResult{}
}

// readTree concatenates every file under dir.
func readTree(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		b.Write(data)
		return err
	})
	require.NoError(t, err)
	return b.String()
}

// metricLines returns the lines of a /metrics text for one metric name.
func metricLines(text, name string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, name+"{") || strings.HasPrefix(l, name+" ") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
