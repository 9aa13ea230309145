package runs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
)

// memMirror keeps what a run mirrors; failAfter > 0 fails the event
// with that number (1-based).
type memMirror struct {
	mu        sync.Mutex
	events    [][]byte
	answers   [][]byte
	failAfter int
}

func (m *memMirror) Event(line []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failAfter > 0 && len(m.events)+1 >= m.failAfter {
		return errors.New("fenced")
	}
	m.events = append(m.events, bytes.Clone(line))
	return nil
}

func (m *memMirror) Answer(line []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.answers = append(m.answers, bytes.Clone(line))
	return nil
}

type echoModel struct{}

func (echoModel) Chat(_ context.Context, req llm.Request) (*llm.Response, error) {
	return &llm.Response{Content: "answer to " + req.Messages[len(req.Messages)-1].Content}, nil
}

func lines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out [][]byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// TestMirrorSeesEveryDurableWrite: a mirror receives each trajectory line
// and each recording line the run writes, in file order, including a
// resume's marker and not the events a resume re-executes identically;
// the request kept with WithRequest is read back.
func TestMirrorSeesEveryDurableWrite(t *testing.T) {
	root := NewRoot(t.TempDir())
	m := &memMirror{}
	run, err := root.Create(Meta{Query: "q"}, WithMirror(m), WithRequest([]byte(`{"q":1}`)))
	require.NoError(t, err)
	chat, _, err := run.WrapModel(echoModel{}, nil)
	require.NoError(t, err)
	ev1 := `{"v":1,"type":"request","run":"0","step":1,"data":{"messages":2}}` + "\n"
	ev2 := `{"v":1,"type":"reply","run":"0","step":1,"data":{"content":"a"}}` + "\n"
	_, err = run.Trajectory().Write([]byte(ev1 + ev2[:10]))
	require.NoError(t, err)
	_, err = run.Trajectory().Write([]byte(ev2[10:]))
	require.NoError(t, err)
	_, err = chat.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	require.NoError(t, err)
	require.NoError(t, run.Finish(Outcome{Status: StatusStopped}))

	assert.Equal(t, lines(t, filepath.Join(run.Dir(), TrajectoryFile)), m.events)
	assert.Equal(t, lines(t, run.RecordingPath()), m.answers, "the meta line and the answer")
	require.Len(t, m.answers, 2)
	req, err := root.Request(run.ID())
	require.NoError(t, err)
	assert.JSONEq(t, `{"q":1}`, string(req))

	// A resume mirrors its marker and the new events only.
	m2 := &memMirror{}
	again, err := root.Resume(run.ID(), WithMirror(m2))
	require.NoError(t, err)
	ev3 := `{"v":1,"type":"reply","run":"0","step":2,"data":{"content":"b"}}` + "\n"
	_, err = again.Trajectory().Write([]byte(ev1 + ev2 + ev3))
	require.NoError(t, err)
	require.NoError(t, again.Finish(Outcome{Status: StatusDone}))
	require.Len(t, m2.events, 2)
	assert.Contains(t, string(m2.events[0]), `"type":"`+EventResume+`"`)
	assert.Equal(t, ev3, string(m2.events[1]))
	all := lines(t, filepath.Join(run.Dir(), TrajectoryFile))
	assert.Equal(t, append(m.events, m2.events...), all, "the mirrors together hold the file")
}

// TestMirrorFailureStopsTheRun: a mirror that fails (a lost lease) cancels
// the run's context with its error, and Finish records the run as
// interrupted whatever the engine said.
func TestMirrorFailureStopsTheRun(t *testing.T) {
	root := NewRoot(t.TempDir())
	m := &memMirror{failAfter: 2}
	run, err := root.Create(Meta{Query: "q"}, WithMirror(m))
	require.NoError(t, err)
	ctx, cancel := run.Context(context.Background())
	defer cancel()
	_, err = run.Trajectory().Write([]byte(`{"type":"request","run":"0","step":1,"data":{}}` + "\n"))
	require.NoError(t, err)
	require.NoError(t, ctx.Err())
	_, err = run.Trajectory().Write([]byte(`{"type":"request","run":"0","step":2,"data":{}}` + "\n"))
	require.NoError(t, err)
	<-ctx.Done()
	assert.ErrorContains(t, context.Cause(ctx), "fenced")
	assert.ErrorContains(t, run.Err(), "mirror the trajectory")
	require.NoError(t, run.Finish(Outcome{Status: StatusDone}))
	meta, err := root.Get(run.ID())
	require.NoError(t, err)
	assert.Equal(t, StatusInterrupted, meta.Status)
	assert.Contains(t, meta.Error, "fenced")
}

// failingTee is a model whose recording copy fails: the answer must not
// be used.
func TestRecordingMirrorFailureFailsTheCall(t *testing.T) {
	root := NewRoot(t.TempDir())
	run, err := root.Create(Meta{Query: "q"}, WithMirror(answerFails{}))
	require.Error(t, func() error {
		_, _, err := run.WrapModel(echoModel{}, nil)
		return err
	}(), "the meta line cannot be copied")
	require.NoError(t, err)
	require.NoError(t, run.Finish(Outcome{Status: StatusFailed}))
}

type answerFails struct{}

func (answerFails) Event([]byte) error  { return nil }
func (answerFails) Answer([]byte) error { return errors.New("fenced") }
