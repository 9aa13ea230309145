package server

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmhq/rlm/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closedURL is the address of a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestReadyzSaysOnlyReadyWithoutToken: an unreachable upstream whose base
// URL carries credentials in its query (a code, a percent-encoded
// api-key): the public /readyz says only that the server is not ready;
// token holders see what failed, with every query value redacted.
func TestReadyzSaysOnlyReadyWithoutToken(t *testing.T) {
	const code, key = "SECRETcode123", "abc/def=ghi+jk"
	base := closedURL(t) + "/v1?code=" + code + "&api-key=abc%2Fdef%3Dghi%2Bjk"
	ts := newTestServer(t, func(c *Config) { c.LLM.BaseURL = base })
	resp, err := http.Get(ts.http.URL + "/readyz")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 503, resp.StatusCode)
	assert.JSONEq(t, `{"ready": false}`, string(body))
	status, _, out := ts.do(t, "GET", "/readyz", nil)
	assert.Equal(t, 503, status)
	assert.Contains(t, string(out), "unreachable")
	for _, secret := range []string{code, key, "abc%2Fdef%3Dghi%2Bjk", "abc%2Fdef"} {
		assert.NotContains(t, string(out), secret)
	}
	resp, err = http.Get(ts.http.URL + "/healthz")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.JSONEq(t, `{"status": "ok"}`, string(body))
}

// TestClientTextHidesSecretsAndPaths: errors bound for clients carry no
// URL query value, no percent-encoded secret and no absolute server path.
func TestClientTextHidesSecretsAndPaths(t *testing.T) {
	store, runsDir := t.TempDir(), t.TempDir()
	s, err := New(
		Config{LLM: llm.Config{BaseURL: "http://h/v1?api-key=k%2F123456", APIKey: "sk-key/with+chars"}, StoreDir: store, RunsDir: runsDir},
	)
	require.NoError(t, err)
	defer s.Close()
	got := s.clientText(`Post "http://h/v1/chat?code=XYZ123&api-key=k%2F123456": open ` + runsDir + `/r1/trajectory.jsonl: ` +
		`permission denied; key sk-key%2Fwith%2Bchars; store ` + store + "/a")
	for _, secret := range []string{"XYZ123", "k%2F123456", "k/123456", "sk-key%2Fwith%2Bchars", runsDir, store} {
		assert.NotContains(t, got, secret)
	}
	assert.Contains(t, got, "<runs>/r1/trajectory.jsonl")
	assert.Contains(t, got, "<store>/a")
	assert.True(t, strings.Contains(got, "code=REDACTED"), got)
}

// TestReadyzChecksTheRunsDirectory: a runs directory that cannot be
// written makes the server not ready, and says so to token holders
// without its absolute path.
func TestReadyzChecksTheRunsDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	ts := newTestServer(t, func(c *Config) { c.RunsDir = file })
	code, _, out := ts.do(t, "GET", "/readyz", nil)
	assert.Equal(t, 503, code, string(out))
	assert.Contains(t, string(out), `"runs":"not writable`)
	assert.NotContains(t, string(out), file)
	assert.Contains(t, string(out), `"store":"ok"`)
}
