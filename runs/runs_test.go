package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/atomicfile"
	"github.com/rlmhq/rlm/orchestrator"
)

func TestParseAge(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"30d", 30 * 24 * time.Hour, false},
		{"1.5d", 36 * time.Hour, false},
		{"12h", 12 * time.Hour, false},
		{"1h30m", 90 * time.Minute, false},
		{"0s", 0, false},
		{"soon", 0, true},
		{"-1d", 0, true},
		{"d", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAge(tt.in)
			if tt.err {
				require.ErrorIs(t, err, ErrBadAge)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCheckID(t *testing.T) {
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`, ".hidden"} {
		assert.ErrorIs(t, CheckID(id), ErrBadID, id)
	}
	assert.NoError(t, CheckID(NewID(time.Now())))
}

// fakeClock returns a root whose clock reads *now.
func fakeRoot(t *testing.T, now *time.Time) *Root {
	r := NewRoot(t.TempDir())
	r.now = func() time.Time { return *now }
	return r
}

func TestListStatusRemoveGC(t *testing.T) {
	now := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	root := fakeRoot(t, &now)
	mk := func(age time.Duration, query string) *Run {
		t.Helper()
		at := now
		now = now.Add(-age)
		r, err := root.Create(Meta{Query: query})
		require.NoError(t, err)
		now = at
		return r
	}
	old := mk(40*24*time.Hour, "old")
	require.NoError(t, old.Finish(Outcome{Status: StatusDone, StopReason: "submit", Iterations: 3, Tokens: 100}))
	dead := mk(35*24*time.Hour, "killed")
	// A run whose process is gone (its lock released, as the kernel does
	// for a killed process) is reported as interrupted.
	m := dead.Meta()
	dead.unlock()
	live := mk(31*24*time.Hour, "live") // this process: running
	recent := mk(time.Hour, "recent")
	require.NoError(t, recent.Finish(Outcome{Status: StatusStopped, StopReason: "budget"}))

	list, warns, err := root.List()
	require.NoError(t, err)
	assert.Empty(t, warns)
	var got []string
	status := map[string]Status{}
	for _, x := range list {
		got = append(got, x.Query)
		status[x.Query] = x.Status
	}
	assert.Equal(t, []string{"recent", "live", "killed", "old"}, got, "newest first")
	assert.Equal(
		t,
		map[string]Status{"recent": StatusStopped, "live": StatusRunning, "killed": StatusInterrupted, "old": StatusDone},
		status,
	)

	assert.ErrorIs(t, root.Remove(live.ID()), ErrRunning)
	_, err = root.Resume(live.ID())
	assert.ErrorIs(t, err, ErrRunning, "a running run cannot be resumed")
	_, err = root.Get("nope")
	assert.ErrorIs(t, err, ErrNotFound)

	removed, err := root.GC(30 * 24 * time.Hour)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{old.ID(), m.ID}, removed, "the live run is kept")
	require.NoError(t, root.Remove(recent.ID()))
	list, _, _ = root.List()
	require.Len(t, list, 1)
	assert.Equal(t, "live", list[0].Query)
}

func TestCutTornTail(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a\nb\n", "a\nb\n"},
		{"a\nb\n{\"torn", "a\nb\n"},
		{"{\"torn", ""},
	}
	for _, tt := range tests {
		p := filepath.Join(t.TempDir(), "f")
		require.NoError(t, os.WriteFile(p, []byte(tt.in), 0o644))
		require.NoError(t, cutTornTail(p))
		b, _ := os.ReadFile(p)
		assert.Equal(t, tt.want, string(b))
	}
	assert.NoError(t, cutTornTail(filepath.Join(t.TempDir(), "missing")))
}

// TestSinkResumeFilter: on a resume the events the interrupted run wrote
// are not written again, new ones are, and a re-executed step whose output
// differs stops the run with ErrDiverged.
func TestSinkResumeFilter(t *testing.T) {
	dir := t.TempDir()
	traj := filepath.Join(dir, TrajectoryFile)
	oldLines := `{"v":1,"type":"request","run":"0","step":1,"elapsed_ms":5,"data":{"messages":2}}
{"v":1,"type":"exec","run":"0","step":1,"elapsed_ms":9,"data":{"block":1,"code":"print(1)","output":"1\n"}}
{"v":1,"type":"request","run":"0","step":2,"elapsed_ms":12,"data":{"messages":4}}
{"v":1,"type":"rep`
	require.NoError(t, os.WriteFile(traj, []byte(oldLines), 0o644))
	old, n, _, err := readEvents(traj)
	require.NoError(t, err)
	assert.Equal(t, 3, n, "the torn line is ignored")

	// The same run stopped by a budget that refused a sub-call in step 1.
	cut, _, _, err := readEvents(writeTemp(t, `{"v":1,"type":"request","run":"0","step":1,"elapsed_ms":5,"data":{"messages":2}}
{"v":1,"type":"exec","run":"0","step":1,"elapsed_ms":9,"data":{"block":1,"code":"x = llm_query('a')","error":"RuntimeError: llm_query: llm: budget: call limit 1 reached"}}
{"v":1,"type":"request","run":"0","step":2,"elapsed_ms":12,"data":{"messages":4}}
`))
	require.NoError(t, err)

	// A child's usage: its times differ when the run is replayed.
	timed, _, _, err := readEvents(writeTemp(t, `{"v":1,"type":"child_end","run":"0","step":1,"elapsed_ms":5,"data":{"child":"0.1.abcdef","answer":"a","usage":{"calls":2,"prompt_tokens":9,"completion_tokens":3,"cost_usd":0,"cost_known":false,"wall_ms":812,"active_ms":640}}}
`))
	require.NoError(t, err)

	tests := []struct {
		name      string
		old       map[string][]byte
		budgetCut bool
		events    string
		written   string
		diverged  bool
	}{
		{"replayed and new", old, false, `{"v":1,"type":"request","run":"0","step":1,"elapsed_ms":1,"data":{"messages":2}}
{"v":1,"type":"exec","run":"0","step":1,"elapsed_ms":2,"data":{"block":1,"code":"print(1)","output":"1\n"}}
{"v":1,"type":"request","run":"0","step":2,"elapsed_ms":3,"data":{"messages":4}}
{"v":1,"type":"reply","run":"0","step":2,"elapsed_ms":4,"data":{"content":"ok"}}
`, `{"v":1,"type":"reply","run":"0","step":2,"elapsed_ms":4,"data":{"content":"ok"}}
`, false},
		{"different output", old, true, `{"v":1,"type":"request","run":"0","step":1,"elapsed_ms":1,"data":{"messages":2}}
{"v":1,"type":"exec","run":"0","step":1,"elapsed_ms":2,"data":{"block":1,"code":"print(1)","output":"2\n"}}
{"v":1,"type":"reply","run":"0","step":2,"elapsed_ms":4,"data":{"content":"ok"}}
`, "", true},
		{
			"the step the budget cut, with a raised budget",
			cut,
			true,
			`{"v":1,"type":"request","run":"0","step":1,"elapsed_ms":1,"data":{"messages":2}}
{"v":1,"type":"exec","run":"0","step":1,"elapsed_ms":2,"data":{"block":1,"code":"x = llm_query('a')"}}
{"v":1,"type":"request","run":"0","step":2,"elapsed_ms":3,"data":{"messages":5}}
`,
			`{"v":1,"type":"exec","run":"0","step":1,"elapsed_ms":2,"data":{"block":1,"code":"x = llm_query('a')"}}
{"v":1,"type":"request","run":"0","step":2,"elapsed_ms":3,"data":{"messages":5}}
`,
			false,
		},
		{
			"a child's usage with other times is not written again",
			timed,
			false,
			`{"v":1,"type":"child_end","run":"0","step":1,"elapsed_ms":1,"data":{"child":"0.1.abcdef","answer":"a","usage":{"calls":2,"prompt_tokens":9,"completion_tokens":3,"cost_usd":0,"cost_known":false,"wall_ms":3,"active_ms":1}}}
`,
			"",
			false,
		},
		{
			"a refusal in a run not stopped by the budget",
			cut,
			false,
			`{"v":1,"type":"request","run":"0","step":1,"elapsed_ms":1,"data":{"messages":2}}
{"v":1,"type":"exec","run":"0","step":1,"elapsed_ms":2,"data":{"block":1,"code":"x = llm_query('a')"}}
`,
			"",
			true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "t")
			f, err := os.Create(out)
			require.NoError(t, err)
			defer f.Close()
			r := &Run{}
			s := &sink{run: r, w: f, outDir: t.TempDir(), old: tt.old, budgetCut: tt.budgetCut, seen: map[string]int{}}
			// Written in odd pieces: the sink splits lines itself.
			ev := []byte(tt.events)
			for len(ev) > 0 {
				k := min(7, len(ev))
				_, err := s.Write(ev[:k])
				require.NoError(t, err)
				ev = ev[k:]
			}
			b, _ := os.ReadFile(out)
			assert.Equal(t, tt.written, string(b))
			if tt.diverged {
				require.ErrorIs(t, r.Err(), ErrDiverged)
				assert.Contains(t, r.Err().Error(), "exec event 1 of run 0 step 1")
			} else {
				assert.NoError(t, r.Err())
			}
		})
	}
}

// TestSinkFromDivergence: a resume from the divergence writes a resume
// event where the re-executed run first differs, goes on writing what
// follows and hands the divergence to the engine once; a later resume
// of the same run compares against what the run wrote after it (the
// recorded events it superseded are dropped), writes nothing again, and
// hands the engine the same divergence at the same event, without the
// option.
func TestSinkFromDivergence(t *testing.T) {
	original := `{"v":1,"type":"request","run":"0","step":1,"elapsed_ms":5,"data":{"messages":2}}
{"v":1,"type":"exec","run":"0","step":1,"elapsed_ms":9,"data":{"block":1,"code":"print(1)","output":"1\n"}}
{"v":1,"type":"request","run":"0","step":2,"elapsed_ms":12,"data":{"messages":4}}
{"v":1,"type":"exec","run":"0","step":2,"elapsed_ms":13,"data":{"block":1,"code":"print(k)","output":"a\n"}}
{"v":1,"type":"request","run":"0","step":3,"elapsed_ms":14,"data":{"messages":6}}
`
	resumed := `{"v":1,"type":"request","run":"0","step":1,"elapsed_ms":1,"data":{"messages":2}}
{"v":1,"type":"exec","run":"0","step":1,"elapsed_ms":2,"data":{"block":1,"code":"print(1)","output":"1\n"}}
{"v":1,"type":"request","run":"0","step":2,"elapsed_ms":3,"data":{"messages":4}}
{"v":1,"type":"exec","run":"0","step":2,"elapsed_ms":4,"data":{"block":1,"code":"print(k)","output":"b\n"}}
{"v":1,"type":"resume_context","run":"0","step":2,"elapsed_ms":5,"data":{"message":"m"}}
{"v":1,"type":"request","run":"0","step":3,"elapsed_ms":6,"data":{"messages":7}}
`
	feed := func(t *testing.T, path string, from bool) (*Run, string) {
		t.Helper()
		old, _, marks, err := readEvents(path)
		require.NoError(t, err)
		var out bytes.Buffer
		r := &Run{}
		r.sink = &sink{run: r, w: &out, outDir: t.TempDir(), old: old, marks: marks, fromDivergence: from, seen: map[string]int{}}
		for _, line := range strings.SplitAfter(resumed, "\n") {
			_, err := r.sink.Write([]byte(line))
			require.NoError(t, err)
			if strings.Contains(line, `"output":"b`) && (from || len(marks) > 0) {
				_, ok := r.TakeDivergence("0.1.abc")
				assert.False(t, ok, "not a descendant's")
				d, ok := r.TakeDivergence("0")
				require.True(t, ok, "the divergence is handed on at the event that differs")
				assert.Equal(t, 2, d.Step)
				assert.Contains(t, d.Reason, `exec event 1 of run 0 step 2 differs from the recorded one (recorded …"a\\n\"}", now …"b\\n\"}")`)
				_, ok = r.TakeDivergence("0")
				assert.False(t, ok, "once")
			}
		}
		return r, out.String()
	}

	path := writeTemp(t, original)
	r, _ := feed(t, path, false)
	require.ErrorIs(t, r.Err(), ErrDiverged, "without the option")

	r, written := feed(t, path, true)
	require.NoError(t, r.Err())
	lines := strings.Split(strings.TrimSpace(written), "\n")
	require.Len(t, lines, 4, written)
	var ev struct {
		Type string         `json:"type"`
		Run  string         `json:"run"`
		Step int            `json:"step"`
		Data divergenceData `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &ev))
	assert.Equal(t, EventResume, ev.Type)
	assert.Equal(t, "0", ev.Run)
	assert.Equal(t, 2, ev.Step)
	assert.True(t, ev.Data.FromDivergence)
	assert.Equal(t, "exec|0|2|0", ev.Data.Event)
	assert.Equal(t, map[string]int{"exec|0|2": 0, "request|0|3": 0}, ev.Data.Kept)
	assert.Contains(t, lines[1], `"output":"b\n"`)

	// Killed after that, and resumed again.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(written)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	old, _, marks, err := readEvents(path)
	require.NoError(t, err)
	assert.Contains(t, string(old["exec|0|2|0"]), `"b\n"`)
	assert.Contains(t, string(old["request|0|3|0"]), `"messages":7`)
	assert.Len(t, marks, 1)
	r, written = feed(t, path, false)
	require.NoError(t, r.Err())
	assert.Empty(t, written, "everything was written before")
}

func writeTemp(t *testing.T, text string) string {
	p := filepath.Join(t.TempDir(), TrajectoryFile)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// TestCheckVars: a resumed run's variables must hash as recorded; a JSON
// document hashes its text (without decoding it), and the hash of its
// encoding that earlier versions recorded is accepted too.
func TestCheckVars(t *testing.T) {
	dir := t.TempDir()
	load := func(name, file, content string) *rlmctx.Variable {
		p := filepath.Join(dir, file)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		v, _, err := rlmctx.LoadVar(context.Background(), rlmctx.VarSpec{Name: name, Source: p}, rlmctx.LoadOptions{})
		require.NoError(t, err)
		return v
	}
	ctxOf := func(vs ...*rlmctx.Variable) *rlmctx.ExternalizedContext {
		c := rlmctx.NewContext("q")
		for _, v := range vs {
			require.NoError(t, c.AddVariable(v))
		}
		return c
	}
	a := load("a", "a.json", `{"k": [1, 2, "three"]}`)
	big := load("big", "big.json", "["+strings.Repeat(`"an item", `, 3000)+`"end"]`)
	chunked := ctxOf(big)
	require.Equal(t, []string{"big_chunks"}, chunked.AutoChunk(rlmctx.SizeConfig{ChunkThreshold: 4000, ChunkSize: 1000, MaxTotalSize: 1 << 20}))
	pieces, _ := chunked.Get("big_chunks")
	assert.NotEqual(t, valueHash(pieces), varHash(pieces), "pieces hash their parent's hash, not their values")
	old := &Run{meta: Meta{VarHashes: map[string]string{"big": valueHash(big), "big_chunks": valueHash(pieces)}}}
	require.NoError(t, old.CheckVars(chunked))
	r := &Run{meta: Meta{VarHashes: HashVars(chunked)}}
	require.NoError(t, r.CheckVars(chunked))
	rechunked := ctxOf(big)
	rechunked.AutoChunk(rlmctx.SizeConfig{ChunkThreshold: 4000, ChunkSize: 2000, MaxTotalSize: 1 << 20})
	require.ErrorContains(t, r.CheckVars(rechunked), "(big_chunks changed)")

	b := load("b", "b.txt", "some text")
	c := load("c", "c.json", `[1, 2]`)
	was := HashVars(ctxOf(a, b, c))
	assert.NotEqual(t, valueHash(a), was["a"], "a document's text is hashed")
	assert.Equal(t, valueHash(b), was["b"], "a text's hash is unchanged")

	r = &Run{meta: Meta{VarHashes: was}}
	require.NoError(t, r.CheckVars(ctxOf(a, b, c)))
	// A run kept by an earlier version recorded the encoding's hash.
	old = &Run{meta: Meta{VarHashes: map[string]string{"a": valueHash(a), "b": was["b"], "c": valueHash(c)}}}
	require.NoError(t, old.CheckVars(ctxOf(a, b, c)))

	err := r.CheckVars(ctxOf(a, load("b", "b2.txt", "other text"), load("d", "d.json", `1`)))
	require.ErrorIs(t, err, ErrDiverged)
	assert.Contains(t, err.Error(), "(b changed, c is missing, d is new)")
	assert.True(t, errors.Is(r.Err(), ErrDiverged))
	// The same value written differently is a changed file.
	r = &Run{meta: Meta{VarHashes: was}}
	err = r.CheckVars(ctxOf(load("a", "a2.json", `{"k":[1,2,"three"]}`), b, c))
	require.ErrorIs(t, err, ErrDiverged)
	assert.Contains(t, err.Error(), "(a changed)")
}

// TestEventType: the sink reads a trajectory line's type without parsing
// the line, as the orchestrator writes it.
func TestEventType(t *testing.T) {
	line := func(e orchestrator.Event) []byte {
		b, err := json.Marshal(e)
		require.NoError(t, err)
		return b
	}
	tests := []struct {
		name string
		line []byte
		want string
	}{
		{
			"request",
			line(orchestrator.Event{V: 1, Type: orchestrator.EventRequest, Run: "0", Data: map[string]any{"type": "x"}}),
			orchestrator.EventRequest,
		},
		{"exec", line(orchestrator.Event{V: 1, Type: orchestrator.EventExec, Run: "0.1", Step: 2}), orchestrator.EventExec},
		{"no type", []byte(`{"v":1}`), ""},
		{"torn", []byte(`{"v":1,"type":"req`), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, eventType(tt.line))
		})
	}
}

// TestCreateWritesRunJSON: Create writes a new run's run.json in place
// (nothing else is left in the directory but the trajectory), and
// replaces the run.json of a directory that already has one (an id used
// again).
func TestCreateWritesRunJSON(t *testing.T) {
	root := NewRoot(t.TempDir())
	tests := []struct {
		name  string
		stale bool
	}{
		{"new directory", false},
		{"stale run.json", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := fmt.Sprintf("20260131-120000-00000000000%d", i)
			if tt.stale {
				require.NoError(t, os.MkdirAll(root.Path(id), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(root.Path(id), MetaFile), []byte(`{"id":"old","query":"a much longer stale query than the new one"}`), 0o600))
			}
			r, err := root.Create(Meta{ID: id, Query: "q"})
			require.NoError(t, err)
			defer r.Finish(Outcome{Status: StatusDone})
			m, err := root.Get(id)
			require.NoError(t, err)
			assert.Equal(t, "q", m.Query)
			assert.Equal(t, StatusRunning, m.Status)
			ents, err := os.ReadDir(root.Path(id))
			require.NoError(t, err)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			assert.ElementsMatch(t, []string{MetaFile, TrajectoryFile}, names)
		})
	}
}

// TestWriteEvent: a whole event handed with its fields is appended and
// mirrored like a line written, root replies without error count as
// iterations and an exec's output (the fields', the line is not read)
// goes to its step's file; once the run is resumed, an event the
// interrupted run wrote is not appended again (WriteEvent says so).
func TestWriteEvent(t *testing.T) {
	root := NewRoot(t.TempDir())
	r, err := root.Create(Meta{Query: "q"})
	require.NoError(t, err)
	events := []struct {
		line string
		ev   orchestrator.Event
		f    orchestrator.EventFields
	}{
		{`{"v":1,"type":"reply","run":"0","step":1,"data":{"content":"a"}}`, orchestrator.Event{Type: "reply", Run: "0", Step: 1}, orchestrator.EventFields{}},
		{`{"v":1,"type":"reply","run":"0","step":2,"data":{"error":"x"}}`, orchestrator.Event{Type: "reply", Run: "0", Step: 2}, orchestrator.EventFields{Error: "x"}},
		{`{"v":1,"type":"reply","run":"0.1","step":1,"data":{}}`, orchestrator.Event{Type: "reply", Run: "0.1", Step: 1}, orchestrator.EventFields{}},
		{`{"v":1,"type":"exec","run":"0","step":1,"data":{"output":"in the line"}}`, orchestrator.Event{Type: "exec", Run: "0", Step: 1}, orchestrator.EventFields{Output: "the output"}},
	}
	var want string
	for _, e := range events {
		assert.True(t, r.WriteEvent([]byte(e.line+"\n"), &e.ev, e.f))
		want += e.line + "\n"
	}
	out, err := os.ReadFile(filepath.Join(r.Dir(), OutputsDir, "0-1.txt"))
	require.NoError(t, err)
	assert.Equal(t, "the output", string(out))
	require.NoError(t, r.Finish(Outcome{Status: StatusStopped, Iterations: r.Meta().Iterations}))
	b, err := os.ReadFile(filepath.Join(r.Dir(), TrajectoryFile))
	require.NoError(t, err)
	assert.Equal(t, want, string(b))
	m, err := root.Get(r.ID())
	require.NoError(t, err)
	assert.Equal(t, 1, m.Iterations, "one root reply without error")

	res, err := root.Resume(r.ID())
	require.NoError(t, err)
	e := events[0]
	assert.False(t, res.WriteEvent([]byte(e.line+"\n"), &e.ev, e.f), "written before the interruption")
	next := `{"v":1,"type":"reply","run":"0","step":3,"data":{"content":"b"}}`
	assert.True(t, res.WriteEvent([]byte(next+"\n"), &orchestrator.Event{Type: "reply", Run: "0", Step: 3}, orchestrator.EventFields{}))
	require.NoError(t, res.Finish(Outcome{Status: StatusDone}))
	b, err = os.ReadFile(filepath.Join(r.Dir(), TrajectoryFile))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	assert.Equal(t, next, lines[len(lines)-1])
	assert.Len(t, lines, len(events)+2, "the resume marker and the new reply")
}

// TestTrajectoryBatched checks when a run's trajectory lines reach the
// file: gathered until a model request (the engine waits after it),
// within DefaultTrajectoryDelay otherwise, and at Finish; the mirror sees
// each line at once.
func TestTrajectoryBatched(t *testing.T) {
	root := NewRoot(t.TempDir())
	var mirrored collectMirror
	r, err := root.Create(Meta{Query: "q"}, WithMirror(&mirrored))
	require.NoError(t, err)
	path := filepath.Join(r.Dir(), TrajectoryFile)
	read := func() string {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return string(b)
	}
	start := `{"v":1,"type":"run_start","run":"0","step":0,"data":{}}` + "\n"
	request := `{"v":1,"type":"request","run":"0","step":1,"data":{}}` + "\n"
	reply := `{"v":1,"type":"reply","run":"0","step":1,"data":{"content":"a"}}` + "\n"
	end := `{"v":1,"type":"run_end","run":"0","step":1,"data":{}}` + "\n"

	begin := time.Now()
	assert.True(t, r.WriteEvent([]byte(start), &orchestrator.Event{Type: "run_start", Run: "0"}, orchestrator.EventFields{}))
	if time.Since(begin) < DefaultTrajectoryDelay/2 {
		assert.Empty(t, read(), "a line is gathered, not written at once")
	}
	assert.Equal(t, []string{start}, mirrored.get(), "the mirror sees the line at once")
	_, err = r.Trajectory().Write([]byte(request)) // the io.Writer path
	require.NoError(t, err)
	assert.Equal(t, start+request, read(), "written before the engine waits on the model")

	assert.True(t, r.WriteEvent([]byte(reply), &orchestrator.Event{Type: "reply", Run: "0", Step: 1}, orchestrator.EventFields{}))
	assert.Eventually(t, func() bool { return read() == start+request+reply }, 5*time.Second, 10*time.Millisecond,
		"a lingering line is written within the delay")

	assert.True(t, r.WriteEvent([]byte(end), &orchestrator.Event{Type: "run_end", Run: "0", Step: 1}, orchestrator.EventFields{}))
	require.NoError(t, r.Finish(Outcome{Status: StatusDone}))
	assert.Equal(t, start+request+reply+end, read(), "Finish writes the rest")
	assert.Len(t, mirrored.get(), 4)
}

// collectMirror is a Mirror keeping the lines it is given.
type collectMirror struct {
	mu    sync.Mutex
	lines []string
}

func (m *collectMirror) Event(line []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lines = append(m.lines, string(line))
	return nil
}

func (m *collectMirror) Answer([]byte) error { return nil }

func (m *collectMirror) get() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.lines...)
}

// TestCreateInBackground: a run made InBackground takes its trajectory
// at once and has its directory, run.json and every line by Finish; one
// whose directory cannot be made is stopped with the reason (its context
// canceled, Err and Finish say why).
func TestCreateInBackground(t *testing.T) {
	root := NewRoot(t.TempDir())
	r, err := root.Create(Meta{Query: "q"}, InBackground())
	require.NoError(t, err)
	ctx, cancel := r.Context(context.Background())
	defer cancel()
	line := `{"v":1,"type":"request","run":"0","step":1,"data":{}}` + "\n"
	_, err = r.Trajectory().Write([]byte(line))
	require.NoError(t, err)
	require.NoError(t, r.Finish(Outcome{Status: StatusDone, Result: []byte(`{"ok":true}`)}))
	require.NoError(t, ctx.Err())
	b, err := os.ReadFile(filepath.Join(r.Dir(), TrajectoryFile))
	require.NoError(t, err)
	assert.Equal(t, line, string(b))
	m, err := root.Get(r.ID())
	require.NoError(t, err)
	assert.Equal(t, StatusDone, m.Status)

	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	bad := NewRoot(filepath.Join(blocked, "runs")) // under a file: no directory can be made
	r, err = bad.Create(Meta{Query: "q"}, InBackground())
	require.NoError(t, err, "Create returns before the directory is made")
	ctx, cancel = r.Context(context.Background())
	defer cancel()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the run is not stopped when its directory cannot be made")
	}
	assert.ErrorContains(t, context.Cause(ctx), "create run directory")
	assert.ErrorContains(t, r.Err(), "create run directory")
	assert.ErrorContains(t, r.Finish(Outcome{Status: StatusDone}), "create run directory")

	_, err = bad.Create(Meta{Query: "q"})
	assert.ErrorContains(t, err, "create run directory", "without InBackground, Create says it at once")
}

// TestFinishWritesSpares: a run of a root with Commit (a server's) makes
// the temporary files of result.json and of its final run.json with its
// directory, and Finish renames them into place, leaving no temporary
// file once committed; a Finish without a result removes the unused
// spare.
func TestFinishWritesSpares(t *testing.T) {
	hidden := func(dir string) []string {
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				names = append(names, strings.SplitN(e.Name(), ".tmp", 2)[0])
			}
		}
		return names
	}
	for _, result := range [][]byte{[]byte(`{"answer":"ok"}` + "\n"), nil} {
		dir := t.TempDir()
		root := NewRoot(dir)
		root.Commit = atomicfile.NewCommitter(dir, time.Hour)
		r, err := root.Create(Meta{Query: "q"})
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{"." + ResultFile, "." + MetaFile}, hidden(r.Dir()), "the spares, made with the directory")
		require.NoError(t, r.Finish(Outcome{Status: StatusDone, Result: result}))
		require.NoError(t, root.Commit.Flush())
		assert.Empty(t, hidden(r.Dir()), "no temporary file left")
		m, err := root.Get(r.ID())
		require.NoError(t, err)
		assert.Equal(t, StatusDone, m.Status)
		b, err := os.ReadFile(filepath.Join(r.Dir(), ResultFile))
		if result == nil {
			assert.ErrorIs(t, err, os.ErrNotExist)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, string(result), string(b))
	}
}
