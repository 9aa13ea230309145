package orchestrator

import (
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
		e, pf, err := ParseEvent(line)
		require.NoError(t, err)
		assert.Equal(t, pf, rec.fields[i], "the fields from the event are those its line holds")
		ev, f := rec.events[i], rec.fields[i]
		assert.Equal(t, e.Type, ev.Type)
		assert.Equal(t, e.Run, ev.Run)
		assert.Equal(t, e.Step, ev.Step)
		types[e.Type]++
		switch e.Type {
		case EventRequest:
			assert.Positive(t, f.Tokens.System)
		case EventReply, EventSubCall:
			require.NotNil(t, f.LatencyMS)
		case EventExec:
			assert.Contains(t, f.Output, "seen")
		}
	}
	for _, typ := range []string{EventRunStart, EventRequest, EventReply, EventExec, EventSubCall, EventRunEnd} {
		assert.Positive(t, types[typ], typ)
	}
}
