package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rlmhq/rlm/internal/atomicfile"
	"github.com/rlmhq/rlm/internal/jsonl"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
)

// Run is one run directory being written by this process: a new run
// ([Root.Create]) or a resumed one ([Root.Resume]). Its methods are safe
// for concurrent use.
type Run struct {
	root *Root
	dir  string

	mu       sync.Mutex
	meta     Meta
	prev     Status       // status before a resume (restored if the resume is refused)
	traj     *batchWriter // trajectory.jsonl
	sink     *sink
	resumer  *llm.Resumer // nil for a new run
	closers  []func() error
	cancel   context.CancelCauseFunc
	diverged error
	finished bool
	stopErr  error    // why the run was stopped other than by divergence (a failed mirror)
	mirror   Mirror   // nil: none (WithMirror)
	lock     *os.File // the run lock, held until Finish
	// created, for a run made InBackground, is closed once its directory
	// and files are made, or could not be (createErr).
	created   chan struct{}
	createErr error
	// spareResult and spareMeta are the temporary files of result.json
	// and of run.json's final version, made with the directory in a root
	// with Commit (nil: Finish makes its own).
	spareResult, spareMeta *atomicfile.Spare
	clock                  time.Time // recorded in a new recording's meta line (SetClock)
	// progressAt is when run.json's progress was last written (with the
	// root's Commit).
	progressAt time.Time
}

func (r *Run) unlock() {
	if r.lock != nil {
		r.lock.Close()
		r.lock = nil
	}
}

// ID is the run's id.
func (r *Run) ID() string { return r.meta.ID }

// Dir is the run's directory.
func (r *Run) Dir() string { return r.dir }

// Meta returns a copy of the run's run.json content.
func (r *Run) Meta() Meta {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.meta
}

// RecordingPath is the path of the run's recording of model traffic.
func (r *Run) RecordingPath() string { return filepath.Join(r.dir, RecordingFile) }

// Resumed reports whether the run continues an earlier one.
func (r *Run) Resumed() bool { return r.resumer != nil }

func (r *Run) saveMeta() error { return r.writeMeta(true) }

// syncOpts are the options of a write to be made durable: synced at
// once, or noted to the root's Commit.
func (root *Root) syncOpts() []atomicfile.Option {
	if root == nil || root.Commit == nil {
		return nil
	}
	return []atomicfile.Option{atomicfile.Deferred(root.Commit)}
}

// writeMeta writes run.json (synced if sync is set: progress updates are
// not).
func (r *Run) writeMeta(sync bool) error {
	if err := r.ready(); err != nil {
		return err
	}
	b, err := encodeMeta(r.meta)
	if err != nil {
		return err
	}
	opts := r.root.syncOpts()
	if !sync {
		opts = []atomicfile.Option{atomicfile.NoSync()}
	}
	write := func() error { return atomicfile.Write(filepath.Join(r.dir, MetaFile), b, 0o600, opts...) }
	if sync && r.spareMeta != nil {
		spare := r.spareMeta
		r.spareMeta = nil
		write = func() error { return spare.Write(b, 0o600, opts...) }
	}
	if err := write(); err != nil {
		return fmt.Errorf("runs: write %s: %w", filepath.Join(r.dir, MetaFile), err)
	}
	return nil
}

// encodeMeta returns run.json's content for m.
func encodeMeta(m Meta) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("runs: encode %s: %w", MetaFile, err)
	}
	return append(b, '\n'), nil
}

// createMeta writes a new run's run.json, b (not synced). The directory
// is new, so the file is created in place rather than renamed over: a
// reader sees the directory without a readable run.json for a moment
// either way, and a process killed before the write is done leaves an
// unreadable run.json where the rename left none (both are skipped, with
// a warning, by List). A directory that already has one (a caller's id
// used again) has it replaced atomically.
func (r *Run) createMeta(b []byte) error {
	path := filepath.Join(r.dir, MetaFile)
	err := atomicfile.Create(path, b, 0o600, atomicfile.NoSync())
	if errors.Is(err, fs.ErrExist) {
		err = atomicfile.Write(path, b, 0o600, atomicfile.NoSync())
	}
	if err != nil {
		return fmt.Errorf("runs: write %s: %w", path, err)
	}
	return nil
}

// ready waits until the run's directory and files are made (a run made
// InBackground) and reports why they could not be.
func (r *Run) ready() error {
	if r.created == nil {
		return nil
	}
	<-r.created
	return r.createErr
}

// openWriters opens the trajectory for appending (after cutting a torn
// last line left by a killed process).
func (r *Run) openWriters(resume bool) error {
	path := filepath.Join(r.dir, TrajectoryFile)
	if resume {
		if err := cutTornTail(path); err != nil {
			return fmt.Errorf("runs: trajectory: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("runs: open trajectory: %w", err)
	}
	if r.traj != nil { // Create's, gathering lines meanwhile
		return r.traj.setFile(f)
	}
	r.initSink(f)
	return nil
}

// initSink makes the run's trajectory sink, writing to f (nil: set once
// the file is made).
func (r *Run) initSink(f io.WriteCloser) {
	r.traj = newBatchWriter(f, DefaultTrajectoryDelay)
	r.sink = &sink{run: r, w: r.traj, outDir: filepath.Join(r.dir, OutputsDir), seen: map[string]int{}}
}

// Trajectory is the writer to hand to the orchestrator as (part of) its
// trajectory: it appends the events to the run's trajectory.jsonl and
// each step's full output to outputs/RUN-STEP.txt. On a resume it drops
// the events the interrupted run already wrote and stops the run (see
// [Run.Context]) when a re-executed step differs from the recorded one.
func (r *Run) Trajectory() io.Writer { return r.sink }

// WriteEvent takes one trajectory event as [Run.Trajectory]'s Write takes
// its line (newline included), with the event's type, run, step and fields
// (f's text as the line has it: a caller that redacts the line redacts
// f's Error and Output alike), so that the line need not be parsed. It
// reports whether the line was appended: on a resume, an event the
// interrupted run already wrote is not.
func (r *Run) WriteEvent(line []byte, ev *orchestrator.Event, f orchestrator.EventFields) bool {
	return r.sink.writeEvent(line, ev.Type, ev.Run, ev.Step, f)
}

// Context returns ctx canceled when the resumed run diverges from the
// recording; [Run.Err] then says how.
func (r *Run) Context(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	r.mu.Lock()
	r.cancel = cancel
	if err := r.errLocked(); err != nil {
		cancel(err) // stopped before the run began (a resume marker not mirrored)
	}
	r.mu.Unlock()
	return ctx, func() { cancel(context.Canceled) }
}

// Err is the reason the run was stopped: a resumed run that diverged
// (wrapping ErrDiverged) or a failed [Mirror]; nil if neither.
func (r *Run) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errLocked()
}

func (r *Run) errLocked() error {
	if r.diverged != nil {
		return r.diverged
	}
	return r.stopErr
}

// stop stops the run for a reason other than a divergence (its mirror
// failed): [Run.Context]'s context is canceled with err.
func (r *Run) stop(err error) {
	r.mu.Lock()
	if r.diverged == nil && r.stopErr == nil {
		r.stopErr = err
		if r.cancel != nil {
			r.cancel(err)
		}
	}
	r.mu.Unlock()
}

// progressEvery is how often, at most, run.json's progress is rewritten
// in a root with Commit (a server's runs: most end within seconds, and
// Finish writes the final count).
const progressEvery = time.Second

func (r *Run) setIterations(n int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished || r.root == nil {
		return nil
	}
	r.meta.Iterations = n
	if r.root.Commit != nil {
		now := time.Now()
		if r.progressAt.IsZero() {
			r.progressAt = now // the run's start: run.json is fresh
		}
		if now.Sub(r.progressAt) < progressEvery {
			return nil
		}
		r.progressAt = now
	}
	return r.writeMeta(false)
}

func (r *Run) diverge(err error) {
	r.mu.Lock()
	if r.diverged == nil {
		r.diverged = err
		if r.cancel != nil {
			r.cancel(err)
		}
	}
	r.mu.Unlock()
}

// WrapModel puts the run's recorder over chat and emb (emb may be nil):
// every answer is appended to the run's recording and synced (or noted
// to the root's Commit) before it is returned. For a resumed run the recorded answers are served first
// (see llm.Resumer) and only requests without one reach chat. The
// returned func closes the recording; [Run.Finish] calls it too.
func (r *Run) WrapModel(chat llm.ChatModel, emb llm.Embedder) (llm.ChatModel, llm.Embedder, error) {
	if err := r.ready(); err != nil {
		return nil, nil, err
	}
	var opts []llm.RecordOption
	if !r.clock.IsZero() {
		opts = append(opts, llm.RecordClock(r.clock))
	}
	rec, err := llm.NewAppendRecorder(chat, r.RecordingPath(), opts...)
	if err != nil {
		return nil, nil, err
	}
	if r.root != nil && r.root.Commit != nil {
		rec.DeferSync(r.root.Commit.Note)
	}
	r.mu.Lock()
	r.closers = append(r.closers, rec.Close)
	r.mu.Unlock()
	var m llm.ChatModel = rec
	if emb != nil {
		emb = rec.Embedder(emb)
	}
	if r.mirror != nil {
		answer := func(line []byte) error {
			err := r.mirror.Answer(line)
			if err != nil {
				r.stop(fmt.Errorf("runs: mirror the recording: %w", err))
			}
			return err
		}
		if err := rec.Tee(answer); err != nil {
			return nil, nil, fmt.Errorf("runs: mirror the recording: %w", err)
		}
	}
	if r.resumer != nil {
		r.resumer.SetGate(func(llm.Request) error { return r.Err() })
		m, emb = r.resumer.Continue(rec, emb)
	}
	return m, emb, nil
}

// Outcome is how a run ended, for [Run.Finish].
type Outcome struct {
	Status     Status
	StopReason string
	Error      string
	Iterations int
	Tokens     int
	CostUSD    *float64 // nil: unknown
	// Result is the content of result.json (nil: none is written).
	Result []byte
}

// OutcomeOf maps an orchestrator result to an Outcome with result as the
// content of result.json.
func OutcomeOf(res *orchestrator.Result, result []byte) Outcome {
	o := Outcome{StopReason: string(res.StopReason), Iterations: res.Metrics.Iterations, Tokens: res.Usage.Tokens(), Result: result}
	if res.Err != nil {
		o.Error = llm.Redact(res.Err.Error(), "")
	}
	if res.Usage.CostKnown {
		c := res.Usage.CostUSD
		o.CostUSD = &c
	}
	switch res.StopReason {
	case orchestrator.StopSubmit:
		o.Status = StatusDone
	case orchestrator.StopCanceled:
		o.Status = StatusCanceled
	case orchestrator.StopModelError:
		o.Status = StatusFailed
	default:
		o.Status = StatusStopped
	}
	if o.Status == StatusStopped && !res.Partial {
		// The final extraction turn produced a valid SUBMIT.
		o.Status = StatusDone
	}
	return o
}

// Finish closes the run's files, writes result.json and records the
// outcome in run.json. A resumed run that diverged keeps its earlier
// status (so it can be resumed again once its inputs are restored), with
// the reason in run.json's error. Finish is idempotent.
func (r *Run) Finish(o Outcome) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return nil
	}
	r.finished = true
	if err := r.ready(); err != nil {
		return err
	}
	defer r.unlock()
	defer func() { // unused, or left by a failed write
		_ = r.spareResult.Close()
		_ = r.spareMeta.Close()
	}()
	var errs []error
	for _, c := range r.closers {
		errs = append(errs, c())
	}
	if r.traj != nil {
		errs = append(errs, r.traj.Close())
	}
	if r.sink != nil {
		errs = append(errs, r.sink.err)
	}
	if r.stopErr != nil {
		// Its copy elsewhere failed (the cluster took the run away): the
		// run did not end here, whatever o says.
		o = Outcome{Status: StatusInterrupted, Error: r.stopErr.Error(), Iterations: r.meta.Iterations}
	}
	if r.diverged != nil {
		r.meta.Status = r.prev
		r.meta.Error = r.diverged.Error()
		r.meta.PID = 0
		errs = append(errs, r.saveMeta())
		return errors.Join(errs...)
	}
	if o.Result != nil {
		// result.json is written before run.json says the run ended. A
		// server's run renames it into place from the spare made with
		// its directory; otherwise a new one is created in place (one
		// file less to make on the run's path): a process killed while
		// writing it leaves an interrupted run (run.json still says it
		// runs), and readers fall back to run.json when result.json
		// does not parse. A resumed run's replaces the old one
		// atomically.
		path := filepath.Join(r.dir, ResultFile)
		var err error
		if r.spareResult != nil {
			// Made with the directory: written and renamed into place.
			err = r.spareResult.Write(o.Result, 0o600, r.root.syncOpts()...)
		} else {
			err = atomicfile.Create(path, o.Result, 0o600, r.root.syncOpts()...)
			if errors.Is(err, fs.ErrExist) {
				err = atomicfile.Write(path, o.Result, 0o600, r.root.syncOpts()...)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("runs: write %s: %w", ResultFile, err))
		}
	}
	r.meta.Status, r.meta.StopReason, r.meta.Error = o.Status, o.StopReason, o.Error
	r.meta.Iterations, r.meta.Tokens, r.meta.CostUSD = o.Iterations, o.Tokens, o.CostUSD
	r.meta.Ended = r.root.now().UTC()
	r.meta.PID = 0
	errs = append(errs, r.saveMeta())
	return errors.Join(errs...)
}

// cutTornTail truncates path after its last newline (a line torn by a
// killed writer); a missing file is fine.
func cutTornTail(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = jsonl.CutTorn(f)
	return err
}

// sink receives the trajectory, one JSON event per line.
type sink struct {
	run    *Run
	w      io.Writer
	outDir string

	mu  sync.Mutex
	buf []byte
	old map[string][]byte // resume: event key -> data of the interrupted run's event
	// budgetCut: the resumed run was stopped by a budget, so a recorded
	// step whose event shows the refusal may differ when re-executed.
	budgetCut bool
	redo      bool // the event being written re-executes a cut step
	// fromDivergence: go on past a divergence (see FromDivergence).
	fromDivergence bool
	// marks are the divergences earlier resumes went on from, by the key
	// of the event that diverged; pending is the one the engine has not
	// taken yet (TakeDivergence).
	marks   map[string]orchestrator.Divergence
	pending *orchestrator.Divergence
	seen    map[string]int // occurrences of type|run|step so far
	stopped bool
	err     error
	replies int // root replies so far (the root's iterations)
}

// Write takes trajectory bytes; complete lines are handled as events. It
// never fails (a write error is kept and reported by Finish), so it cannot
// break a trajectory file written alongside.
func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(p)
}

func (s *sink) writeLocked(p []byte) (int, error) {
	data := p
	if len(s.buf) > 0 {
		s.buf = append(s.buf, p...)
		data = s.buf
	}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		s.event(data[:i+1])
		data = data[i+1:]
	}
	s.buf = append(s.buf[:0], data...)
	return len(p), nil
}

// eventHead is the part of a trajectory event the sink reads.
type eventHead struct {
	Type string          `json:"type"`
	Run  string          `json:"run"`
	Step int             `json:"step"`
	Data json.RawMessage `json:"data"`
}

// nextEventKey returns e's event key (type, run, step and occurrence) and
// its occurrence n: how many events of the same type, run and step seen
// counted before it. It counts e.
func nextEventKey(seen map[string]int, e eventHead) (key string, n int) {
	base := fmt.Sprintf("%s|%s|%d", e.Type, e.Run, e.Step)
	n = seen[base]
	seen[base] = n + 1
	return fmt.Sprintf("%s|%d", base, n), n
}

// budgetRefusal is in a trajectory event that shows a budget refusal
// (llm.Error of KindBudget).
const budgetRefusal = "llm: budget: "

// deterministic are the event types whose data must be the same when a
// resumed run re-executes a recorded step.
var deterministic = map[string]bool{orchestrator.EventRequest: true, orchestrator.EventExec: true}

// latencyField is an event's measured wall time (and an upstream's time
// to first byte, and a usage's wall and active time), which a replay does
// not reproduce.
var latencyField = regexp.MustCompile(`"(latency_ms|first_byte_ms|wall_ms|active_ms)":[0-9.eE+-]+,?`)

// withoutLatency is an event's data without its measured times (latencyField).
func withoutLatency(data []byte) []byte {
	if !bytes.Contains(data, []byte(`_ms"`)) {
		return data
	}
	return latencyField.ReplaceAll(data, nil)
}

// originField is an exec event's error origin, added after version 1's
// first trajectories were written.
var originField = regexp.MustCompile(`,"origin":"[a-z]+"`)

// withoutNewOrigin is data without its origin field when the recorded
// event prev has none (it was written by an older rlm), so resuming such a
// run does not take the new field for a divergence.
func withoutNewOrigin(prev, data []byte) []byte {
	if bytes.Contains(prev, []byte(`"origin"`)) || !bytes.Contains(data, []byte(`"origin"`)) {
		return data
	}
	return originField.ReplaceAll(data, nil)
}

func (s *sink) event(line []byte) bool {
	if s.stopped {
		return false
	}
	if s.old == nil {
		if t := eventType(line); t != "" && t != orchestrator.EventReply && t != orchestrator.EventExec {
			// Nothing to read in it (the request events carry the whole
			// prompt): append it as it is.
			if _, err := s.w.Write(line); err != nil {
				s.keep(err)
				return false
			}
			s.run.mirrorEvent(line)
			s.flushAt(t)
			return true
		}
	}
	var e eventHead
	if err := json.Unmarshal(line, &e); err != nil {
		s.keep(fmt.Errorf("runs: trajectory event: %w", err))
		return false
	}
	progress := false
	if e.Type == orchestrator.EventReply && e.Run == "0" {
		var d struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(e.Data, &d) == nil && d.Error == "" {
			s.replies++
			progress = true
		}
	}
	if s.old != nil {
		key, n := nextEventKey(s.seen, e)
		if d, ok := s.marks[key]; ok {
			// Where an earlier resume went on from a divergence: the
			// engine adds the same resume context again.
			delete(s.marks, key)
			s.pending = &d
		}
		if prev, ok := s.old[key]; ok {
			if bytes.Equal(withoutLatency(prev), withoutLatency(withoutNewOrigin(prev, e.Data))) {
				return false // written before the interruption (a replayed call takes no time)
			}
			if deterministic[e.Type] && s.budgetCut && bytes.Contains(prev, []byte(budgetRefusal)) {
				// The step the budget cut short, re-executed under a
				// raised budget: the refused call is made now, and the
				// run goes on live from here (nothing after a refusal
				// was answered, so there is nothing more to compare).
				s.old = nil
				s.redo = e.Type == orchestrator.EventExec
			} else if deterministic[e.Type] {
				reason := fmt.Sprintf("%s event %d of run %s step %d differs from the recorded one (%s)",
					e.Type, n+1, e.Run, e.Step, firstDiff(prev, e.Data))
				if !s.fromDivergence {
					s.stopped = true
					s.run.diverge(fmt.Errorf("%w: %s; the inputs or the rlm version changed, so the state cannot be rebuilt: "+
						"resume it from the divergence (the steps before it replayed, then live with a resume-context message), "+
						"or start a new run", ErrDiverged, reason))
					return false
				}
				s.goOnFrom(e, key, n, reason)
			}
		}
	}
	output := ""
	if e.Type == orchestrator.EventExec {
		var d struct {
			Output string `json:"output"`
		}
		if json.Unmarshal(e.Data, &d) == nil {
			output = d.Output
		}
	}
	return s.appendEvent(line, e.Type, e.Run, e.Step, progress, output)
}

// appendEvent appends an event's line to the trajectory (and mirrors
// it), follows the root's iterations in run.json (progress: a root reply
// without error) and keeps an exec's output in its step's file. It
// reports whether the line was appended.
func (s *sink) appendEvent(line []byte, typ, run string, step int, progress bool, output string) bool {
	_, err := s.w.Write(line)
	if err != nil {
		s.keep(err)
	} else {
		s.run.mirrorEvent(line)
		s.flushAt(typ)
	}
	if progress {
		// run.json follows the root's iterations, so a killed run shows
		// how far it got.
		s.keep(s.run.setIterations(s.replies))
	}
	if typ == orchestrator.EventExec {
		if output != "" && s.run.ready() == nil {
			path := filepath.Join(s.outDir, run+"-"+strconv.Itoa(step)+".txt")
			if s.redo {
				// The step cut short by the budget, run again: its
				// output replaces the cut one.
				s.keep(atomicfile.Write(path, []byte(output), 0o644))
			} else {
				s.keep(appendFile(path, output))
			}
		}
		s.redo = false
	}
	return err == nil
}

// flushAt writes the gathered trajectory lines out after an event of
// type typ that the engine waits after (a model request), so that the
// file has the run's events while it waits.
func (s *sink) flushAt(typ string) {
	if typ != orchestrator.EventRequest {
		return
	}
	if f, ok := s.w.(interface{ Flush() error }); ok {
		s.keep(f.Flush())
	}
}

// writeEvent is Write for one whole event line whose type, run, step and
// fields the caller has (see Run.WriteEvent): outside a resume's
// comparison with the recorded events, nothing is parsed.
func (s *sink) writeEvent(line []byte, typ, run string, step int, f orchestrator.EventFields) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.old != nil || len(s.buf) > 0 {
		// A resume compares the events' data, and a line Write left
		// incomplete comes first: the line is read as Write reads it.
		if len(s.buf) > 0 {
			_, _ = s.writeLocked(line)
			return true
		}
		return s.event(line)
	}
	if s.stopped {
		return false
	}
	progress := false
	if typ == orchestrator.EventReply && run == "0" && f.Error == "" {
		s.replies++
		progress = true
	}
	return s.appendEvent(line, typ, run, step, progress, f.Output)
}

// goOnFrom makes the resumed run go on live from e, the event that
// diverged (key, occurrence n): it writes the resume event that says
// where and why (and which recorded events the run had not re-executed
// yet, superseded from here), stops comparing, and leaves the
// divergence for the engine to take.
func (s *sink) goOnFrom(e eventHead, key string, n int, reason string) {
	base := strings.TrimSuffix(key, fmt.Sprintf("|%d", n))
	reached := maps.Clone(s.seen)
	reached[base] = n // e itself is written after the resume event
	recorded := map[string]int{}
	for k := range s.old {
		recorded[k[:strings.LastIndexByte(k, '|')]]++
	}
	kept := map[string]int{}
	for b, c := range recorded {
		if reached[b] < c {
			kept[b] = reached[b]
		}
	}
	b, _ := json.Marshal(orchestrator.Event{V: orchestrator.TrajectoryVersion, Type: EventResume, Run: e.Run, Step: e.Step,
		Data: divergenceData{At: time.Now().UTC().Format(time.RFC3339), FromDivergence: true, Event: key, Reason: reason, Kept: kept}})
	line := append(b, '\n')
	if _, err := s.w.Write(line); err != nil {
		s.keep(err)
	} else {
		s.run.mirrorEvent(line)
	}
	s.old, s.marks = nil, nil
	s.pending = &orchestrator.Divergence{Run: e.Run, Step: e.Step, Reason: reason}
}

// eventType returns the type of a trajectory event line without parsing
// it ("" if not found): the orchestrator writes "type" before the event's
// data (see orchestrator.Event).
func eventType(line []byte) string {
	const key = `"type":"`
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return ""
	}
	rest := line[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

func (s *sink) keep(err error) {
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("runs: write run files: %w", err)
	}
}

// firstDiff describes where two JSON payloads first differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	cut := func(x []byte) string {
		x = x[min(i, len(x)):]
		if len(x) > 40 {
			x = x[:40]
		}
		return string(x)
	}
	return fmt.Sprintf("recorded …%q, now …%q", cut(a), cut(b))
}

// appendFile appends text to path, making its directory if need be.
func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		}
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// marker is the trajectory line written when a run is resumed.
func marker(at time.Time, replayable int, events int) []byte {
	b, _ := json.Marshal(orchestrator.Event{V: orchestrator.TrajectoryVersion, Type: EventResume, Run: "0",
		Data: map[string]any{"at": at.UTC().Format(time.RFC3339), "recorded_answers": replayable, "recorded_events": events}})
	return append(b, '\n')
}

// EventResume is the trajectory event type marking a resume: the events
// after it continue the interrupted run.
const EventResume = "resume"
