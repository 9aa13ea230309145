package runs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rlmhq/rlm/internal/atomicfile"
)

// RequestFile is the file of a run directory holding the request that
// started the run, when the caller kept it ([WithRequest]): what a later
// process needs to start the run again (rlm serve resuming the runs it was
// running when it stopped).
const RequestFile = "request.json"

// A Mirror receives a kept run's durable writes as the run makes them, to
// keep a copy elsewhere (the cluster's database, a server's event
// streams). Event is called with each line appended to the trajectory
// file, in file order (resume markers included; events a resume
// re-executes identically are not appended again, so not mirrored);
// Answer with each line appended to the recording, before the answer is
// used. An error from either stops the run: [Run.Context]'s context is
// canceled with it as the cause and [Run.Err] returns it.
type Mirror interface {
	Event(line []byte) error
	Answer(line []byte) error
}

// An Option is a per-call knob of [Root.Create] and [Root.Resume].
type Option func(*options)

type options struct {
	mirror         Mirror
	request        []byte
	fromDivergence bool
	background     bool
}

// WithMirror makes the run hand its durable writes to m as well.
func WithMirror(m Mirror) Option { return func(o *options) { o.mirror = m } }

// WithRequest keeps body, the request that started the run, in the run
// directory's request.json (only on Create).
func WithRequest(body []byte) Option { return func(o *options) { o.request = body } }

// InBackground makes [Root.Create] return before the run's directory
// and files exist: they are made [BackgroundDelay] later, on another
// goroutine, while the run calls its model (a server's run answers
// sooner). The trajectory's lines wait in memory until then;
// [Run.WrapModel], the step outputs and [Run.Finish] wait for the
// directory. If it cannot be made, the run is stopped ([Run.Context] is
// canceled with the error, as [Run.Err] and Finish report). Ignored with
// [WithRequest]: a run kept to be resumed has its request on disk before
// Create returns.
func InBackground() Option { return func(o *options) { o.background = true } }

// BackgroundDelay is how long a run made [InBackground] waits before it
// makes its directory: time for its first model request to be sent, so
// that the directory's file system work does not compete with it for the
// processor (made at once, it delayed the request as much as it saved on
// a 2-core machine). A model answers in tens of milliseconds at best.
const BackgroundDelay = time.Millisecond

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// writeRequest keeps the request that started the run.
func (r *Run) writeRequest(body []byte) error {
	if err := atomicfile.Write(filepath.Join(r.dir, RequestFile), body, 0o600, r.root.syncOpts()...); err != nil {
		return fmt.Errorf("runs: write %s: %w", RequestFile, err)
	}
	return nil
}

// Request returns the request kept with run id ([WithRequest]); an error
// wrapping os.ErrNotExist when none was.
func (r *Root) Request(id string) ([]byte, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(r.Path(id), RequestFile))
	if err != nil {
		return nil, fmt.Errorf("runs: request of %s: %w", id, err)
	}
	return b, nil
}

// mirrorEvent hands a trajectory line to the mirror; a failure stops the
// run.
func (r *Run) mirrorEvent(line []byte) {
	if r.mirror == nil {
		return
	}
	if err := r.mirror.Event(line); err != nil {
		r.stop(fmt.Errorf("runs: mirror the trajectory: %w", err))
	}
}

// Import writes the directory of a run from a copy kept elsewhere (the
// cluster's database, written through a [Mirror] by the process that ran
// it before): run.json with m as an interrupted run, and the trajectory
// and recording lines as given. A directory of that id already here (an
// older copy) is replaced. [Root.Resume] then continues the run.
func (r *Root) Import(m Meta, trajectory, recording [][]byte) error {
	if err := CheckID(m.ID); err != nil {
		return err
	}
	dir := r.Path(m.ID)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("runs: import %s: %w", m.ID, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("runs: import %s: %w", m.ID, err)
	}
	m.Status, m.PID = StatusInterrupted, 0
	run := &Run{root: r, dir: dir, meta: m}
	if err := run.writeMeta(false); err != nil {
		return err
	}
	for name, lines := range map[string][][]byte{TrajectoryFile: trajectory, RecordingFile: recording} {
		if err := os.WriteFile(filepath.Join(dir, name), bytes.Join(lines, nil), 0o644); err != nil {
			return fmt.Errorf("runs: import %s: %w", m.ID, err)
		}
	}
	return nil
}
