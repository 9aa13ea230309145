package server

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunViewServesTheLivePage(t *testing.T) {
	ts := newTestServer(t, nil)
	code, _, body := ts.do(t, "POST", "/v1/runs", chatBody("sub", nil))
	require.Equal(t, 202, code, string(body))
	var created RunResult
	require.NoError(t, json.Unmarshal(body, &created))

	code, hdr, page := ts.do(t, "GET", "/v1/runs/"+created.ID+"/view", nil)
	require.Equal(t, 200, code, string(page))
	assert.Equal(t, "text/html; charset=utf-8", hdr.Get("Content-Type"))
	assert.Contains(t, string(page), `"events_url":"events"`, "the page reads /v1/runs/{id}/events")
	assert.Contains(t, string(page), `"title":"run `+created.ID+`"`)
	assert.Contains(t, string(page), "connect-src 'self'")

	ts.waitRun(t, created.ID)
	code, _, _ = ts.do(t, "GET", "/v1/runs/"+created.ID+"/view", nil)
	assert.Equal(t, 200, code, "a finished run too")
	code, _, _ = ts.do(t, "GET", "/v1/runs/nope/view", nil)
	assert.Equal(t, 404, code)
}
