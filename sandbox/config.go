package sandbox

import (
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// Default limits: what a zero [Limits] field stands for.
const (
	DefaultTimeout           = py.DefaultTimeout // 60 s
	DefaultObservationTokens = 1000
	DefaultMaxOutputBytes    = 64 << 20
	DefaultMaxMemory         = py.DefaultMaxMemory    // 1 GB
	DefaultMaxRecursion      = py.DefaultMaxRecursion // 1000, as CPython
	DefaultMaxSteps          = 1_000_000_000
)

// Limits are the per-step limits of a [Session]: each bounds one Exec call.
// Zero fields take the defaults above; a negative MaxMemory, MaxSessionMemory or Timeout
// disables that limit. The same struct is nested in the orchestrator's
// configuration and filled by the command's flags.
type Limits struct {
	// MaxSteps bounds the Starlark execution steps of one Exec call
	// (exceeding it fails the step with ErrStepLimit).
	MaxSteps uint64
	// Timeout bounds the wall time of one Exec call (default 60 s;
	// ErrTimeout).
	Timeout time.Duration
	// MaxMemory bounds the heap growth of one step, in bytes (default 1 GB;
	// ErrMemoryLimit).
	MaxMemory int64
	// MaxSessionMemory bounds the heap growth of the whole session across
	// its steps, in bytes (default [DefaultMaxSessionMemory], half of the
	// machine): a step that grows the heap past it fails with a
	// MemoryError (ErrSessionMemoryLimit), and the session stays usable.
	MaxSessionMemory int64
	// MaxRecursion bounds the depth of nested function calls (default 1000,
	// as CPython; ErrRecursionLimit).
	MaxRecursion int
	// MaxOutputBytes caps the output kept per step; printing more stops the
	// step with ErrOutputLimit (default 64 MB).
	MaxOutputBytes int
	// ObservationTokens is the size of the head+tail excerpt of the output
	// shown to the model (default 1,000 tokens, estimated at 4 bytes each;
	// the root prompt states the figure in force).
	ObservationTokens int
}

// DefaultLimits returns the limits a zero [Limits] stands for.
func DefaultLimits() Limits { return Limits{}.WithDefaults() }

// WithDefaults returns l with its zero fields set to the defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxSteps == 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	if l.Timeout == 0 {
		l.Timeout = py.DefaultTimeout
	}
	if l.ObservationTokens <= 0 {
		l.ObservationTokens = DefaultObservationTokens
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if l.MaxMemory == 0 {
		l.MaxMemory = py.DefaultMaxMemory
	}
	if l.MaxSessionMemory == 0 {
		l.MaxSessionMemory = DefaultMaxSessionMemory()
	}
	if l.MaxRecursion <= 0 {
		l.MaxRecursion = py.DefaultMaxRecursion
	}
	return l
}

// Config configures a [Session].
type Config struct {
	// Limits bound each step; zero fields take the defaults.
	Limits Limits
	// Predeclared holds extra names (host helpers) visible to the code.
	// Code may rebind one within a step; each step starts with them
	// restored.
	Predeclared starlark.StringDict
	// Doc, if set, gives the __doc__ of a predeclared builtin by name (""
	// for none), so help-minded code can read a helper's description.
	Doc func(name string) string
	// ThreadHook, if set, is called on each fresh per-step thread before it
	// runs, e.g. to attach host state with thread.SetLocal.
	ThreadHook func(*starlark.Thread)
	// NoNonlocal rejects `nonlocal x` in nested defs with a clear error
	// suggesting the supported form. By default nonlocal works as in
	// Python: the enclosing def keeps x in a cell.
	NoNonlocal bool
	// Seed seeds the session's random module (as random.seed(Seed) would,
	// prefixed "rlm:") and uuid.uuid4. The orchestrator passes the run id,
	// so a run draws the same numbers when it is replayed or resumed.
	Seed string
	// Clock is the time code reads (time.time(), datetime.now(),
	// date.today(), ...), in UTC; zero: the real time when the session is
	// created. The orchestrator passes the run's start time, recorded in
	// the trajectory, so a replayed or resumed run sees the same times.
	// The clock never reads the real time afterwards: each read advances
	// it by one microsecond and time.sleep(s) by s (without waiting).
	Clock time.Time
}

func (c Config) withDefaults() Config {
	c.Limits = c.Limits.WithDefaults()
	return c
}
