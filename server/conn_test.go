package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawConn dials the test server and sends text as it is.
func (ts *testServer) rawConn(t *testing.T, text string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.http.URL, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	_, err = io.WriteString(c, text)
	require.NoError(t, err)
	return c
}

// TestUnauthenticatedBodyIsNotRead: a request without the token is
// refused at once, before its body, and its connection closed — even when
// the client trickles a small body (net/http would drain it first).
func TestUnauthenticatedBodyIsNotRead(t *testing.T) {
	for _, tt := range []struct{ head string }{
		{"PUT /v1/vars/x HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\na"},
		{"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\na"}, // public, but takes no body
		{"POST /readyz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na"},
	} {
		t.Run(strings.Fields(tt.head)[1], func(t *testing.T) { unauthenticatedBodyIsNotRead(t, tt.head) })
	}
}

func unauthenticatedBodyIsNotRead(t *testing.T, head string) {
	ts := newTestServer(t, nil)
	c := ts.rawConn(t, head)
	go func() { // the trickle: one byte now and then
		for range 50 {
			time.Sleep(100 * time.Millisecond)
			if _, err := c.Write([]byte("a")); err != nil {
				return
			}
		}
	}()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "the answer comes before the body")
	assert.Contains(t, []int{400, 401}, resp.StatusCode)
	assert.True(t, resp.Close, "Connection: close")
	_, _ = io.Copy(io.Discard, resp.Body)
	_, err = c.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the server closed the connection")
}

// TestReadTimeoutCutsTricklingBody: a token holder trickling a body is cut
// off at ReadTimeout.
func TestReadTimeoutCutsTricklingBody(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.ReadTimeout = 300 * time.Millisecond })
	c := ts.rawConn(
		t,
		"PUT /v1/vars/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+canaryToken+"\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\na",
	)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := c.Write([]byte("a")); err != nil {
				return
			}
		}
	}()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err := io.ReadAll(c)
	// The server ends the connection (a close, or a reset when the
	// trickle left unread bytes) well before 5 s.
	var ne net.Error
	if errors.As(err, &ne) {
		require.False(t, ne.Timeout(), "the server did not end the connection: %v", err)
	}
}

// TestIdleTimeoutClosesKeepAlive: a keep-alive connection idle past
// IdleTimeout is closed.
func TestIdleTimeoutClosesKeepAlive(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.IdleTimeout = 200 * time.Millisecond })
	c := ts.rawConn(t, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.False(t, resp.Close)
	_, err = br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "closed when idle, well before 5 s")
}

// TestSlowReaderIsDropped: a client that stops reading a large response
// is dropped at WriteTimeout (the handler returns and logs the request).
func TestSlowReaderIsDropped(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.WriteTimeout = 200 * time.Millisecond })
	code, _, body := ts.do(t, "PUT", "/v1/vars/big", strings.Repeat("x", 16<<20))
	require.Equal(t, 201, code, string(body))
	c := ts.rawConn(t, "GET /v1/vars/big HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+canaryToken+"\r\n\r\n")
	_ = c.(*net.TCPConn).SetReadBuffer(4096)
	require.Eventually(t, func() bool { return strings.Contains(ts.logs.String(), `"path":"/v1/vars/big","status":200`) },
		10*time.Second, 10*time.Millisecond, "the handler gave up on the client")
}

// TestMaxConnsBoundsOpenConnections: at most MaxConns connections are
// accepted at once; idle keep-alive connections are closed to make room,
// so a new client is still served.
func TestMaxConnsBoundsOpenConnections(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxConns = 4 })
	ll := ts.http.Listener.(*limitListener)
	for range 4 { // keep-alive connections left idle after a request
		c := ts.rawConn(t, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(ts.http.URL + "/healthz")
	require.NoError(t, err, "served once idle connections are shed")
	resp.Body.Close()
	for range 6 { // connections that send nothing wait for a place
		ts.rawConn(t, "")
	}
	time.Sleep(100 * time.Millisecond)
	assert.LessOrEqual(t, ll.open.Load(), int64(4))
}
