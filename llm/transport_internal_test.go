package llm

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingConn counts the writes made on a connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestRequestInOneWrite: the default transport sends a request with a
// 6 KiB prompt (a root call's first request is about that) in one write
// to its connection; Go's default buffer took two.
func TestRequestInOneWrite(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer srv.Close()
	tests := []struct {
		name   string
		buffer int // 0: as newTransport makes it
		one    bool
	}{
		{"newTransport", 0, true},
		{"Go's default buffer", 4 << 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var writes atomic.Int64
			tr := newTransport(4)
			if tt.buffer > 0 {
				tr.WriteBufferSize = tt.buffer
			}
			dial := (&net.Dialer{}).DialContext
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := dial(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return countingConn{c, &writes}, nil
			}
			defer tr.CloseIdleConnections()
			c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: &http.Client{Transport: tr}})
			require.NoError(t, err)
			resp, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: strings.Repeat("x", 6<<10)}}})
			require.NoError(t, err)
			assert.Equal(t, "ok", resp.Content)
			if tt.one {
				assert.Equal(t, int64(1), writes.Load(), "the request in one write")
			} else {
				assert.Greater(t, writes.Load(), int64(1), "the control: the small buffer splits it")
			}
		})
	}
}
