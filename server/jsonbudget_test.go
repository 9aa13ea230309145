package server

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckJSONBudget(t *testing.T) {
	tests := []struct {
		json      string
		values    int // the most values allowed that pass
		depth     int
		wantDepth bool
	}{
		{`{}`, 1, 1, false},
		{`{"a": 1, "b": [true, null, "x"]}`, 6, 2, false},
		{`{"a\"b": "c\\", "d": -1.5e3}`, 3, 1, false},
		{`[[[[]]]]`, 4, 4, false},
		{`[[[[]]]]`, 4, 3, true},
		{`"a,b{[" `, 1, 1, false},
		{`[1,2,3,4,5]`, 6, 1, false},
	}
	for _, tt := range tests {
		err := checkJSONBudget([]byte(tt.json), "", tt.values, tt.depth)
		if tt.wantDepth {
			require.ErrorIs(t, err, ErrJSONTooDeep, tt.json)
			continue
		}
		require.NoError(t, err, tt.json)
		err = checkJSONBudget([]byte(tt.json), "", tt.values-1, tt.depth)
		require.ErrorIs(t, err, ErrJSONTooLarge, tt.json)
	}
}

// TestRequestJSONBudget: a body with more JSON values than MaxJSONValues
// is refused with 413 naming the limit, one nested deeper than
// MaxJSONDepth with 400, before anything decodes it; the store's typed
// values too.
func TestRequestJSONBudget(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxJSONValues, c.MaxJSONDepth = 1000, 20 })
	dicts := "[" + strings.Repeat("{},", 5000) + "{}]"
	body := `{"model":"rlm","messages":[{"role":"user","content":"echo x"}],"rlm":{"variables":{"d":` + dicts + `}}}`
	for _, path := range []string{"/v1/chat/completions", "/v1/runs"} {
		code, _, out := ts.do(t, "POST", path, []byte(body))
		require.Equal(t, 413, code, string(out))
		assert.Contains(t, string(out), "more than 1000 JSON values (the server's JSON values limit)")
		assert.Contains(t, string(out), `"code":"json_too_large"`)
	}
	deep := `{"model":"rlm","messages":[{"role":"user","content":"echo x"}],"rlm":{"variables":{"d":` + strings.Repeat(
		"[",
		30,
	) + strings.Repeat(
		"]",
		30,
	) + `}}}`
	code, _, out := ts.do(t, "POST", "/v1/chat/completions", []byte(deep))
	require.Equal(t, 400, code, string(out))
	assert.Contains(t, string(out), "nested deeper than 20 levels (the server's JSON depth limit)")
	code, _, out = ts.do(t, "PUT", "/v1/vars/d", []byte(dicts))
	require.Equal(t, 413, code, string(out))
	// Within the budget all is served.
	code, _, out = ts.do(
		t,
		"POST",
		"/v1/chat/completions",
		chatBody("echo fine", map[string]any{"variables": map[string]any{"d": []int{1, 2, 3}}}),
	)
	require.Equal(t, 200, code, string(out))
}

// TestAdmissionBeforeDecoding: with every run place taken, a chat
// request is refused with 429 before its body is decoded (a malformed
// body gets 429, not 400).
func TestAdmissionBeforeDecoding(t *testing.T) {
	ts := newTestServerOn(t, fakeUpstream(t, 100*time.Millisecond), func(c *Config) {
		c.MaxRuns, c.Queue = 1, -1
		c.Engine.MaxIterations = 40
	})
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("slow", nil))
	require.Equal(t, 202, code, string(body))
	var r RunResult
	require.NoError(t, json.Unmarshal(body, &r))
	code, _, body = ts.do(t, "POST", "/v1/chat/completions", []byte(`{"model": "rlm", "messages": [`))
	assert.Equal(t, 429, code, string(body))
	ts.do(t, "POST", "/v1/runs/"+r.ID+"/cancel", nil)
	ts.waitRun(t, r.ID)
	// The place is free once the canceled run is retired.
	require.Eventually(t, func() bool {
		code, _, _ := ts.do(t, "POST", "/v1/chat/completions", []byte(`{"model": "rlm", "messages": [`))
		return code == 400
	}, 10*time.Second, 5*time.Millisecond)
	// A refused body gives its place back.
	for range 3 {
		code, _, body = ts.do(t, "POST", "/v1/chat/completions", []byte(`{"model": "rlm", "messages": [`))
		require.Equal(t, 400, code, string(body))
	}
	code, _, body = ts.do(t, "POST", "/v1/chat/completions", chatBody("echo free", nil))
	require.Equal(t, 200, code, string(body))
}

// TestBodyMemoryBudget: bodies being read at once are bounded by
// MaxBodyMemory: one that does not fit is refused with 503 and
// Retry-After at once, and one declared over MaxBodyBytes with 413
// before it is sent.
func TestBodyMemoryBudget(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxBodyBytes, c.MaxBodyMemory = 4096, 1000 })
	auth := "Authorization: Bearer " + canaryToken + "\r\n"
	// A client sending 800 bytes slowly holds 800 of the 1000.
	slow := ts.rawConn(t, "PUT /v1/vars/slow HTTP/1.1\r\nHost: x\r\n"+auth+"Content-Type: text/plain\r\nContent-Length: 800\r\n\r\na")
	time.Sleep(100 * time.Millisecond)
	code, hdr, out := ts.do(t, "PUT", "/v1/vars/other", strings.Repeat("b", 800))
	require.Equal(t, 503, code, string(out))
	assert.Equal(t, "1", hdr.Get("Retry-After"))
	assert.Contains(t, string(out), "the server's body memory limit (1000 bytes)")
	code, _, out = ts.do(t, "PUT", "/v1/vars/small", strings.Repeat("b", 100))
	require.Equal(t, 201, code, string(out), "a body that fits is served")
	_, err := slow.Write([]byte(strings.Repeat("a", 799)))
	require.NoError(t, err)
	require.NoError(t, slow.SetReadDeadline(time.Now().Add(5*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(slow), nil)
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode)
	code, _, out = ts.do(t, "PUT", "/v1/vars/other", strings.Repeat("b", 800))
	require.Equal(t, 201, code, string(out), "the budget was given back")
	// Declared over the maximum: 413 before any of it is sent.
	c := ts.rawConn(t, "PUT /v1/vars/big HTTP/1.1\r\nHost: x\r\n"+auth+"Content-Length: 1000000000\r\n\r\n")
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	resp, err = http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	assert.Equal(t, 413, resp.StatusCode)
}
