package runs

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rlmhq/rlm/internal/atomicfile"
)

// File names inside a run directory.
const (
	MetaFile       = "run.json"
	TrajectoryFile = "trajectory.jsonl"
	RecordingFile  = "recording.jsonl"
	OutputsDir     = "outputs"
	ResultFile     = "result.json"
)

// Status is the state of a run: the one outcome vocabulary of rlm, as
// run.json records it, the run API reports it, rlm runs lists it and the
// viewer and the steward read it.
type Status string

// Statuses.
const (
	// StatusQueued: accepted by rlm serve, waiting for a run slot.
	StatusQueued Status = "queued"
	// StatusRunning: the run's process is writing it (or was killed while
	// it did: List reports such a run as StatusInterrupted).
	StatusRunning Status = "running"
	// StatusDone: the run ended with a valid SUBMIT.
	StatusDone Status = "done"
	// StatusStopped: a limit or budget stopped the run before a valid
	// SUBMIT; it can be resumed with raised limits.
	StatusStopped Status = "stopped"
	// StatusFailed: the model failed, the run could not start, or a resume
	// refused to continue.
	StatusFailed Status = "failed"
	// StatusCanceled: the run was asked to stop (Ctrl-C or SIGTERM, a
	// cancel request, a client that went away, the drain of a server that
	// cannot resume it); its partial answer is kept and it can be
	// resumed.
	StatusCanceled Status = "canceled"
	// StatusInterrupted: the process died while the run ran (kill -9, a
	// crash, a power loss), or a server's drain handed the run on to the
	// next server (which resumes it); it can be resumed.
	StatusInterrupted Status = "interrupted"
)

// Meta is the content of run.json.
type Meta struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	Query   string    `json:"query"`
	// ConfigDigest is the sha256 of the run configuration the caller
	// passed (see [Digest]); Config is that configuration.
	ConfigDigest string  `json:"config_digest"`
	Config       *Config `json:"config,omitempty"`
	// Args are the caller's arguments needed to start the run again (a
	// resume), without secrets.
	Args []string `json:"args,omitempty"`
	// VarHashes are the content hashes of the run's input variables, by
	// name, checked on resume.
	VarHashes map[string]string `json:"var_hashes,omitempty"`
	Version   string            `json:"version,omitempty"`
	// MetaVersion and MetaDigest identify the meta document the run used
	// (version 0: none).
	MetaVersion int    `json:"meta_version"`
	MetaDigest  string `json:"meta_digest,omitempty"`
	// MetaPath is the meta document's file ("" when none existed),
	// MetaNotesTokens the token budget of its lessons (nil in runs from
	// before it was recorded) and MetaLessons the lessons rendered: a
	// resume checks that they are unchanged.
	MetaPath        string   `json:"meta_path,omitempty"`
	MetaNotesTokens *int     `json:"meta_notes_tokens,omitempty"`
	MetaLessons     []string `json:"meta_lessons,omitempty"`

	Status     Status   `json:"status"`
	StopReason string   `json:"stop_reason,omitempty"`
	Error      string   `json:"error,omitempty"`
	Iterations int      `json:"iterations"`
	Tokens     int      `json:"tokens"`
	CostUSD    *float64 `json:"cost_usd"` // nil: unknown
	// PID and Host identify the process writing a running run.
	PID  int    `json:"pid,omitempty"`
	Host string `json:"host,omitempty"`
	// Resumes lists when the run was resumed.
	Resumes []time.Time `json:"resumes,omitempty"`
}

// Digest is the first 16 hex digits of the sha256 of v's JSON encoding.
func Digest(v any) string {
	b, _ := json.Marshal(v)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// Root is a directory of run directories.
type Root struct {
	Dir string
	// Commit, if set, makes the run files durable against a power loss
	// in batches (group commit): the writes that are synced one by one
	// without it (each model answer in the recording, result.json and
	// the final run.json) are noted to Commit instead, which syncs the
	// file system within its interval. A killed process loses nothing
	// either way. With Commit, run.json's progress (the iterations so
	// far) is also rewritten at most once a second. For a server writing
	// many runs at once.
	Commit *atomicfile.Committer
	// now is the clock (tests).
	now func() time.Time
}

// NewRoot returns the runs root at dir (created on the first run).
func NewRoot(dir string) *Root { return &Root{Dir: dir, now: time.Now} }

// NewID returns a fresh run id: the UTC start time and 12 random hex
// digits, so ids sort by start time. (With 6 digits, a server starting a
// few hundred runs a second gave two runs the same id about once in a
// thousand seconds: the second failed on the first's run lock.)
func NewID(t time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// CheckID rejects ids that are not a single plain path element.
func CheckID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`+"\x00") || strings.HasPrefix(id, ".") {
		return fmt.Errorf("%w %q (see rlm runs ls)", ErrBadID, id)
	}
	return nil
}

// hostname is the machine's name, read once (each run records it).
var hostname = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return h
})

// Path is the directory of run id.
func (r *Root) Path(id string) string { return filepath.Join(r.Dir, id) }

// Create makes the directory of a new run and writes its run.json with
// status running. A zero m.ID gets [NewID], a zero m.Started the clock.
func (r *Root) Create(m Meta, opts ...Option) (*Run, error) {
	o := collect(opts)
	if m.Started.IsZero() {
		m.Started = r.now().UTC()
	}
	if m.ID == "" {
		m.ID = NewID(m.Started)
	}
	if err := CheckID(m.ID); err != nil {
		return nil, err
	}
	m.Status = StatusRunning
	m.PID = os.Getpid()
	m.Host = hostname()
	run := &Run{root: r, dir: r.Path(m.ID), meta: m, mirror: o.mirror}
	run.initSink(nil)
	if !o.background || o.request != nil {
		if err := run.create(m, o.request); err != nil {
			return nil, err
		}
		return run, nil
	}
	run.created = make(chan struct{})
	time.AfterFunc(BackgroundDelay, func() {
		// m, not run.meta, which the run may update meanwhile: its
		// first run.json is encoded here too, off the run's path.
		err := run.create(m, nil)
		run.createErr = err
		close(run.created)
		if err != nil {
			run.stop(err)
		}
	})
	return run, nil
}

// create makes a new run's directory, takes its run lock and writes its
// request (if any), its run.json (m, not synced: the recording's first
// answer is the first thing worth a sync, and Finish syncs run.json) and
// an empty trajectory. outputs/ is made with the first step output
// (appendFile).
func (run *Run) create(m Meta, request []byte) error {
	meta, err := encodeMeta(m)
	if err != nil {
		return err
	}
	err = os.Mkdir(run.dir, 0o755)
	if errors.Is(err, os.ErrNotExist) {
		err = os.MkdirAll(run.dir, 0o755) // the root's first run
	}
	if err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("runs: create run directory: %w", err)
	}
	lock, err := lockDir(run.dir)
	if err != nil {
		return fmt.Errorf("runs: lock %s: %w", run.meta.ID, err)
	}
	run.lock = lock
	if request != nil {
		if err := run.writeRequest(request); err != nil {
			run.unlock()
			return err
		}
	}
	if err := run.createMeta(meta); err != nil {
		run.unlock()
		return err
	}
	if err := run.openWriters(false); err != nil {
		run.unlock()
		return err
	}
	if run.root.Commit != nil {
		// A server's run makes the temporary files of its last writes
		// now, while its model is called (see Spare): Finish then only
		// writes and renames them. Without them it makes its own.
		run.spareResult, _ = atomicfile.NewSpare(filepath.Join(run.dir, ResultFile))
		run.spareMeta, _ = atomicfile.NewSpare(filepath.Join(run.dir, MetaFile))
	}
	return nil
}

// Get reads the run.json of run id.
func (r *Root) Get(id string) (Meta, error) {
	if err := CheckID(id); err != nil {
		return Meta{}, err
	}
	m, err := readMeta(r.Path(id))
	if errors.Is(err, os.ErrNotExist) {
		return Meta{}, fmt.Errorf("%w: %s in %s (see rlm runs ls)", ErrNotFound, id, r.Dir)
	}
	if err != nil {
		return Meta{}, err
	}
	m.Status = effectiveStatus(r.Path(id), m)
	return m, nil
}

func readMeta(dir string) (Meta, error) {
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return Meta{}, err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return Meta{}, fmt.Errorf("runs: %s: %w", filepath.Join(dir, MetaFile), err)
	}
	return m, nil
}

// effectiveStatus reports a running run whose process is gone (its run
// lock is free) as interrupted. A run of another host is taken as running.
func effectiveStatus(dir string, m Meta) Status {
	if m.Status != StatusRunning {
		return m.Status
	}
	if h := hostname(); m.Host != "" && h != m.Host {
		return m.Status
	}
	if !locked(dir, m) {
		return StatusInterrupted
	}
	return m.Status
}

// List returns the runs under the root, newest first. Directories without
// a readable run.json are skipped and reported in the warnings.
func (r *Root) List() ([]Meta, []string, error) {
	ents, err := os.ReadDir(r.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("runs: list %s: %w", r.Dir, err)
	}
	var out []Meta
	var warns []string
	for _, e := range ents {
		if !e.IsDir() || CheckID(e.Name()) != nil {
			continue
		}
		m, err := readMeta(r.Path(e.Name()))
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s: %v", e.Name(), err))
			continue
		}
		m.Status = effectiveStatus(r.Path(e.Name()), m)
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Started.Equal(out[j].Started) {
			return out[i].Started.After(out[j].Started)
		}
		return out[i].ID > out[j].ID
	})
	return out, warns, nil
}

// Remove deletes run id's directory. A run whose process is still alive
// is refused with ErrRunning.
func (r *Root) Remove(id string) error {
	m, err := r.Get(id)
	if err != nil {
		return err
	}
	if m.Status == StatusRunning {
		return fmt.Errorf("%w: %s (process %d); stop it first", ErrRunning, id, m.PID)
	}
	if err := os.RemoveAll(r.Path(id)); err != nil {
		return fmt.Errorf("runs: remove %s: %w", id, err)
	}
	return nil
}

// GC removes the runs that started more than age ago and are not running,
// and returns their ids.
func (r *Root) GC(age time.Duration) ([]string, error) {
	list, _, err := r.List()
	if err != nil {
		return nil, err
	}
	cut := r.now().Add(-age)
	var removed []string
	for _, m := range list {
		if m.Status == StatusRunning || !m.Started.Before(cut) {
			continue
		}
		if err := os.RemoveAll(r.Path(m.ID)); err != nil {
			return removed, fmt.Errorf("runs: remove %s: %w", m.ID, err)
		}
		removed = append(removed, m.ID)
	}
	return removed, nil
}

// ParseAge parses an age such as 30d, 12h, 90m or 1h30m (Go durations
// plus a d suffix for days).
func ParseAge(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err == nil && n >= 0 {
			return time.Duration(n * float64(24*time.Hour)), nil
		}
	} else if d, err := time.ParseDuration(t); err == nil && d >= 0 {
		return d, nil
	}
	return 0, fmt.Errorf("%w %q: want e.g. 30d, 12h or 90m", ErrBadAge, s)
}
