package orchestrator

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm/llmtest"
)

// eventRecorder is an EventWriter that keeps each line with the fields of
// its event; a Write (the line without its event) is an error.
type eventRecorder struct {
	lines  [][]byte
	events []Event
	fields []EventFields
}

func (r *eventRecorder) Write([]byte) (int, error) {
	return 0, errors.New("Write called on an EventWriter")
}

func (r *eventRecorder) WriteEvent(line []byte, ev *Event) error {
	r.lines = append(r.lines, append([]byte(nil), line...))
	r.events = append(r.events, *ev)
	r.fields = append(r.fields, ev.Fields())
	return nil
}

// TestEventWriterGetsEventsWithTheirFields: a trajectory writer that is
// an EventWriter gets every event through WriteEvent, with its line, and
// each event's Fields are what its line's data says.
func TestEventWriterGetsEventsWithTheirFields(t *testing.T) {
	var rec eventRecorder
	res, _ := runSandboxed(t, Config{Trajectory: &rec},
		llmtest.Say(code("print('seen')", "r = llm_query('ping')", "SUBMIT({'answer': r})")), llmtest.Say("pong"))
	require.Equal(t, StopSubmit, res.StopReason, "err: %v", res.Err)
	assert.Equal(t, "pong", res.Answer)
	types := map[string]int{}
	for i, line := range rec.lines {
		require.Equal(t, byte('\n'), line[len(line)-1])
		var e struct {
			Type string `json:"type"`
			Run  string `json:"run"`
			Step int    `json:"step"`
			Data struct {
				Model     string        `json:"model"`
				LatencyMS *int64        `json:"latency_ms"`
				FirstByte float64       `json:"first_byte_ms"`
				Memoized  bool          `json:"memoized"`
				Error     string        `json:"error"`
				Output    string        `json:"output"`
				Tokens    SectionTokens `json:"tokens"`
				Mode      string        `json:"mode"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(line, &e))
		ev, f := rec.events[i], rec.fields[i]
		assert.Equal(t, e.Type, ev.Type)
		assert.Equal(t, e.Run, ev.Run)
		assert.Equal(t, e.Step, ev.Step)
		types[e.Type]++
		switch e.Type {
		case EventRequest:
			assert.Equal(t, e.Data.Tokens, f.Tokens)
			assert.Positive(t, f.Tokens.System)
		case EventReply, EventSubCall:
			assert.Equal(t, e.Data.Model, f.Model)
			require.NotNil(t, f.LatencyMS)
			assert.Equal(t, *e.Data.LatencyMS, *f.LatencyMS)
			assert.Equal(t, e.Data.FirstByte, f.FirstByteMS)
			assert.Equal(t, e.Data.Memoized, f.Memoized)
			assert.Equal(t, e.Data.Error, f.Error)
		case EventExec:
			assert.Equal(t, e.Data.Output, f.Output)
			assert.Contains(t, f.Output, "seen")
		default:
			assert.Equal(t, EventFields{Mode: e.Data.Mode}, f)
		}
	}
	for _, typ := range []string{EventRunStart, EventRequest, EventReply, EventExec, EventSubCall, EventRunEnd} {
		assert.Positive(t, types[typ], typ)
	}
}
