package viewer_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/orchestrator"
	"github.com/rlmhq/rlm/viewer"
)

func TestKnownVersionIsTheOrchestrators(t *testing.T) {
	assert.Equal(t, orchestrator.TrajectoryVersion, viewer.KnownVersion)
}

func TestReadRejectsWhatIsNotATrajectory(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
		msg      string
	}{
		{"empty", "", viewer.ErrEmpty, "has no events"},
		{"blank lines", "\n\n  \n", viewer.ErrEmpty, "has no events"},
		{"html", "<!doctype html><html>", viewer.ErrNotTrajectory, "line 1 of x.jsonl is not a trajectory event"},
		{"json without v", `{"type":"x"}` + "\n", viewer.ErrNotTrajectory, `{"type":"x"}`},
		{"json array", "[1,2]\n", viewer.ErrNotTrajectory, "[1,2]"},
		{"a recording", `{"request":{"model":"m"},"response":{}}` + "\n", viewer.ErrNotTrajectory, "not a trajectory event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := viewer.Read("x.jsonl", strings.NewReader(tt.in))
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestReadKeepsBadAndCutLines(t *testing.T) {
	in := `{"v":1,"type":"run_start","run":"0","data":{"query":"q"}}` + "\n" +
		"garbage in the middle\n" +
		`{"v":2,"type":"brand_new","run":"0","step":1,"data":{}}` + "\n" +
		`{"v":1,"type":"reply","run":"0","step":1,"data":{"content":"cut he`
	tr, err := viewer.Read("t.jsonl", strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, 2, tr.Info.Events)
	assert.Equal(t, 1, tr.Info.BadLines)
	assert.True(t, tr.Info.Truncated)
	assert.Equal(t, len(`{"v":1,"type":"reply","run":"0","step":1,"data":{"content":"cut he`), tr.Info.TruncatedBytes)
	assert.Equal(t, map[int]int{1: 1, 2: 1}, tr.Info.Versions)
}

// pageData returns the embedded event lines of source i of a page.
func pageData(t *testing.T, page string, i int) []string {
	t.Helper()
	re := regexp.MustCompile(`(?s)<script type="application/x-ndjson" id="rlm-src-` + string(rune('0'+i)) + `">\n(.*?)</script>`)
	m := re.FindStringSubmatch(page)
	require.NotNil(t, m, "source %d embedded", i)
	return strings.Split(strings.TrimSuffix(m[1], "\n"), "\n")
}

func TestWriteEmbedsEventsSafely(t *testing.T) {
	evil := `{"v":1,"type":"exec","run":"0","step":1,"data":{"output":"</script><script>alert(1)</script><!-- x"}}`
	in := `{"v":1,"type":"run_start","run":"0","data":{"query":"q"}}` + "\n" + evil + "\nnot json <b>\n"
	tr, err := viewer.Read("t.jsonl", strings.NewReader(in))
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, viewer.Write(&b, tr))
	page := b.String()
	assert.Equal(t, 3, strings.Count(page, "</script>"), "config, data and code: no other script ends")
	assert.Equal(t, 3, strings.Count(page, "<script"), "no other script starts")
	assert.NotContains(t, page, "alert(1)</script>")
	lines := pageData(t, page, 0)
	require.Len(t, lines, 3)
	var ev map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &ev), "escaped lines are still JSON")
	assert.Equal(t, "</script><script>alert(1)</script><!-- x", ev["data"].(map[string]any)["output"])
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &ev))
	assert.Equal(t, "rlm.unparsed", ev["type"])
	assert.Equal(t, "not json <b>", ev["raw"])
	assert.Contains(t, page, "connect-src 'none'", "the file may not make requests")
	assert.NotRegexp(t, `(?i)(src|href)=["']?(https?:)?//`, page, "nothing loaded from outside")
}

func TestWriteLiveReadsTheEventStream(t *testing.T) {
	var b bytes.Buffer
	require.ErrorIs(t, viewer.WriteLive(&b, viewer.Live{}), viewer.ErrNoEventsURL)
	b.Reset()
	require.NoError(t, viewer.WriteLive(&b, viewer.Live{Title: "run 42", EventsURL: "/v1/runs/42/events"}))
	page := b.String()
	assert.Contains(t, page, `"events_url":"/v1/runs/42/events"`)
	assert.Contains(t, page, "connect-src 'self'")
	assert.NotContains(t, page, `id="rlm-src-0"`)
}

func TestWriteTakesOneOrTwo(t *testing.T) {
	tr, err := viewer.Read("t.jsonl", strings.NewReader(`{"v":1,"type":"run_start","run":"0","data":{}}`+"\n"))
	require.NoError(t, err)
	var b bytes.Buffer
	require.ErrorIs(t, viewer.Write(&b), viewer.ErrSources)
	require.ErrorIs(t, viewer.Write(&b, tr, tr, tr), viewer.ErrSources)
	require.NoError(t, viewer.Write(&b, tr, tr))
	assert.Len(t, pageData(t, b.String(), 1), 1)
}

func TestWriteCompressesLargeTrajectories(t *testing.T) {
	big := synthetic(50, 20, 3<<20)
	tr, err := viewer.Read("big.jsonl", bytes.NewReader(big))
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, viewer.Write(&b, tr))
	page := b.String()
	assert.Less(t, len(page), len(big)/4, "the repetitive outputs compress")
	m := regexp.MustCompile(`(?s)<script type="application/x-ndjson\+gzip\+base64" id="rlm-src-0">\n(.*?)\n</script>`).
		FindStringSubmatch(page)
	require.NotNil(t, m)
	gz, err := base64.StdEncoding.DecodeString(m[1])
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	require.NoError(t, err)
	got, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, string(big), string(got), "the same lines")
}
