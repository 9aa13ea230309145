package runs

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/orchestrator"
)

// HashVars returns the content hash of each variable of c, by name, for
// [Meta.VarHashes]: 16 hex digits of an xxhash of its type and its JSON
// text as loaded ([rlmctx.Variable.WriteDocument]; the variable is not
// decoded), or of a sha256 of its JSON encoding when it has no text
// (valueHash, the hash every earlier version wrote for all variables).
//
// A NAME_chunks companion hashes its parent's hash and where its pieces
// end, so a large document's pieces are not made to be hashed.
func HashVars(c *rlmctx.ExternalizedContext) map[string]string {
	out := make(map[string]string, len(c.Vars))
	for _, v := range c.Vars {
		out[v.Name] = varHash(v)
	}
	return out
}

// varHash is HashVars' hash of one variable.
func varHash(v *rlmctx.Variable) string {
	h := sha256.New()
	if parent, ends, ok := v.Chunks(); ok {
		fmt.Fprintf(h, "%s\x00chunks\x00%s\x00%v", v.Type, varHash(parent), ends)
		return hex.EncodeToString(h.Sum(nil)[:8])
	}
	// A document's text by xxhash (a change check, not a defence against
	// crafted collisions: ~15x sha256's speed on the 77 MB file).
	d := xxhash.New()
	fmt.Fprintf(d, "%s\x00document\x00", v.Type)
	ok, err := v.WriteDocument(d)
	switch {
	case !ok:
		return valueHash(v)
	case err != nil:
		fmt.Fprintf(d, "\x00unreadable: %v", err)
	}
	return hex.EncodeToString(d.Sum(nil))
}

// valueHash is a variable's hash of its value (sha256 of its type and
// its text or JSON encoding, 16 hex digits): HashVars' hash of a variable
// without a document, and what runs kept before documents were hashed by
// their text recorded for them too.
func valueHash(v *rlmctx.Variable) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", v.Type)
	val := v.GoValue()
	if s, ok := val.(string); ok {
		io.WriteString(h, s)
	} else if err := pyjson.Encode(h, val); err != nil {
		fmt.Fprintf(h, "\x00unencodable %T", val)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// CheckVars compares the hashes of c's variables (HashVars) with those
// recorded when the resumed run started, and fails (wrapping
// ErrDiverged) naming every variable that changed, appeared or
// disappeared. A JSON document whose text's hash differs is compared by
// its encoding's hash too, which runs kept by earlier versions recorded.
func (r *Run) CheckVars(c *rlmctx.ExternalizedContext) error {
	was := r.Meta().VarHashes
	now := HashVars(c)
	var diffs []string
	for name, h := range was {
		switch g, ok := now[name]; {
		case !ok:
			diffs = append(diffs, name+" is missing")
		case g != h:
			if v, _ := c.Get(name); v != nil && valueHash(v) == h {
				continue
			}
			diffs = append(diffs, name+" changed")
		}
	}
	for name := range now {
		if _, ok := was[name]; !ok {
			diffs = append(diffs, name+" is new")
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	sort.Strings(diffs)
	err := fmt.Errorf("%w: the run's input variables are not the ones it started with (%s); restore them to resume, or start a new run",
		ErrDiverged, strings.Join(diffs, ", "))
	r.diverge(err)
	return err
}

// FromDivergence lets a resumed run go on past a divergence from its
// recording (only on Resume): instead of stopping with ErrDiverged at the
// first re-executed event that differs from the recorded one, the run
// writes a resume event there (which step, and why), stops comparing,
// and continues live; the engine learns of it through the run's
// TakeDivergence (orchestrator.Config.Resume) and gives the model one
// resume-context message. Without it a divergence stops the run.
func FromDivergence() Option { return func(o *options) { o.fromDivergence = true } }

// Resume reopens run id to continue it in this process: its recorded
// model answers are loaded to be replayed, a resume event is appended to
// its trajectory, and run.json says it is running again. A run that
// finished with a valid SUBMIT or one still running is refused. Call [Run.CheckVars] once the inputs are loaded,
// then wrap the model with [Run.WrapModel].
func (r *Root) Resume(id string, opts ...Option) (*Run, error) {
	m, err := r.Get(id)
	if err != nil {
		return nil, err
	}
	switch m.Status {
	case StatusRunning:
		return nil, fmt.Errorf("%w: %s (process %d)", ErrRunning, id, m.PID)
	case StatusDone:
		return nil, fmt.Errorf("%w: %s finished with a valid SUBMIT (see rlm runs show %s)", ErrNotResumable, id, id)
	}
	dir := r.Path(id)
	lock, err := lockDir(dir)
	if errors.Is(err, ErrRunning) {
		return nil, fmt.Errorf("%w: %s (another process is resuming it)", ErrRunning, id)
	}
	if err != nil {
		return nil, fmt.Errorf("runs: lock %s: %w", id, err)
	}
	run, err := r.reopen(id, dir, m, lock, collect(opts))
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	return run, nil
}

func (r *Root) reopen(id, dir string, m Meta, lock *os.File, o options) (*Run, error) {
	rec := filepath.Join(dir, RecordingFile)
	if _, err := os.Stat(rec); errors.Is(err, os.ErrNotExist) {
		// Killed before its first answer: nothing to replay.
		if err := os.WriteFile(rec, nil, 0o644); err != nil {
			return nil, fmt.Errorf("runs: %w", err)
		}
	}
	rs, err := llm.OpenResume(rec)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotResumable, id, err)
	}
	old, n, marks, err := readEvents(filepath.Join(dir, TrajectoryFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotResumable, id, err)
	}
	run := &Run{root: r, dir: dir, meta: m, prev: m.Status, resumer: rs, lock: lock, mirror: o.mirror}
	if err := run.openWriters(true); err != nil {
		return nil, err
	}
	run.sink.old, run.sink.marks, run.sink.fromDivergence = old, marks, o.fromDivergence
	run.sink.budgetCut = m.Status == StatusStopped && m.StopReason == string(orchestrator.StopBudget)
	now := r.now().UTC()
	mark := marker(now, rs.Recorded(), n)
	if _, err := run.traj.Write(mark); err != nil {
		run.traj.Close()
		return nil, fmt.Errorf("runs: trajectory: %w", err)
	}
	run.mirrorEvent(mark)
	run.meta.Status, run.meta.Error = StatusRunning, ""
	run.meta.PID = os.Getpid()
	run.meta.Host, _ = os.Hostname()
	run.meta.Resumes = append(run.meta.Resumes, now)
	if err := run.saveMeta(); err != nil {
		run.traj.Close()
		return nil, err
	}
	return run, nil
}

// SetClock sets the sandbox clock of the run (see orchestrator.Config.Clock)
// that [Run.WrapModel] records in a new recording's meta line, so that
// rlm run --replay of the recording sees the same times. Call it before
// WrapModel.
func (r *Run) SetClock(t time.Time) { r.clock = t }

// Clock returns the sandbox clock the resumed run started with, from the
// root's run_start event in its trajectory (zero for a new run, or one
// whose trajectory records no clock): pass it as orchestrator.Config.Clock
// so the re-executed code sees the same times.
func (r *Run) Clock() time.Time {
	if r.sink == nil {
		return time.Time{}
	}
	data := r.sink.old[orchestrator.EventRunStart+"|0|0|0"]
	var d struct {
		Clock string `json:"clock"`
	}
	if len(data) == 0 || json.Unmarshal(data, &d) != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, d.Clock)
	if err != nil {
		return time.Time{}
	}
	return t
}

// readEvents loads the data of every complete event of a trajectory by
// event key (type, run, step and occurrence), ignoring a torn last line,
// and the divergences earlier resumes went on from (see [FromDivergence]),
// by the key of the event that diverged. At such a divergence, the
// recorded events the resumed run had not re-executed yet are dropped:
// the events after it replace them.
func readEvents(path string) (map[string][]byte, int, map[string]orchestrator.Divergence, error) {
	marks := map[string]orchestrator.Divergence{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]byte{}, 0, marks, nil
	}
	if err != nil {
		return nil, 0, nil, err
	}
	defer f.Close()
	out := map[string][]byte{}
	seen := map[string]int{}
	br := bufio.NewReaderSize(f, 1<<20)
	n := 0
	for {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, 0, nil, rerr
		}
		if rerr == io.EOF && (len(line) == 0 || line[len(line)-1] != '\n') {
			break // end, or a torn last line
		}
		if b := bytes.TrimSpace(line); len(b) > 0 {
			var e eventHead
			if err := json.Unmarshal(b, &e); err != nil {
				return nil, 0, nil, fmt.Errorf("trajectory %s: %w", path, err)
			}
			if e.Type == EventResume {
				var d divergenceData
				if json.Unmarshal(e.Data, &d) == nil && d.FromDivergence {
					for base, keep := range d.Kept {
						for i := keep; i < seen[base]; i++ {
							delete(out, fmt.Sprintf("%s|%d", base, i))
						}
						seen[base] = keep
					}
					marks[d.Event] = orchestrator.Divergence{Run: e.Run, Step: e.Step, Reason: d.Reason}
				}
				continue
			}
			key, _ := nextEventKey(seen, e)
			out[key] = e.Data
			n++
		}
		if rerr == io.EOF {
			break
		}
	}
	return out, n, marks, nil
}

// divergenceData is the payload of the resume event a resume from the
// divergence writes where the run diverged.
type divergenceData struct {
	At             string `json:"at"`
	FromDivergence bool   `json:"from_divergence"`
	// Event is the key of the event that diverged (type|run|step|n).
	Event  string `json:"event"`
	Reason string `json:"reason"`
	// Kept is, for each type|run|step of which the resumed run had not
	// re-executed every recorded event yet, how many it had: the
	// recorded ones after them are superseded.
	Kept map[string]int `json:"kept,omitempty"`
}

// TakeDivergence implements orchestrator.ResumeHook: the divergence the
// resumed run went on from (see [FromDivergence]), or one an earlier
// resume went on from, once the re-executed run reaches it, if it was
// found in run or one of its descendants and not taken yet.
func (r *Run) TakeDivergence(run string) (orchestrator.Divergence, bool) {
	if r.sink == nil {
		return orchestrator.Divergence{}, false
	}
	s := r.sink
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.pending
	if d == nil || (d.Run != run && !strings.HasPrefix(d.Run, run+".")) {
		return orchestrator.Divergence{}, false
	}
	s.pending = nil
	return *d, true
}
