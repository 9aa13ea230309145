package sandbox

import (
	"time"

	"go.starlark.net/starlark"
)

// Default limits applied by [New] to zero Config fields.
const (
	DefaultTimeout         = 60 * time.Second
	DefaultMaxOutputTokens = 2000
	DefaultMaxOutputBytes  = 64 << 20
	DefaultMaxMemory       = 1 << 30
	DefaultMaxRecursion    = 1000
	DefaultMaxSteps        = 1_000_000_000
)

// Config configures a [Session]. Zero fields take the defaults above;
// a negative MaxMemory or Timeout disables that limit.
type Config struct {
	// MaxSteps bounds the Starlark execution steps of one Exec call.
	MaxSteps uint64
	// Timeout bounds the wall time of one Exec call (default 60 s).
	Timeout time.Duration
	// MaxOutputTokens is the size of the head+tail excerpt of the output
	// shown to the model (default 2,000 tokens, estimated at 4 bytes each).
	MaxOutputTokens int
	// MaxOutputBytes caps the output kept per step; printing more stops the
	// step with ErrOutputLimit (default 64 MB).
	MaxOutputBytes int
	// MaxMemory bounds the heap growth of one step, in bytes (default 1 GB).
	MaxMemory int64
	// MaxRecursion bounds the depth of nested function calls (default 1000, as CPython).
	MaxRecursion int
	// Predeclared holds extra names (host helpers) visible to the code.
	Predeclared starlark.StringDict
	// ThreadHook, if set, is called on each fresh per-step thread before it
	// runs, e.g. to attach host state with thread.SetLocal.
	ThreadHook func(*starlark.Thread)
	// NoNonlocal rejects `nonlocal x` in nested defs with a clear error
	// suggesting the supported form. By default nonlocal works as in
	// Python: the enclosing def keeps x in a cell.
	NoNonlocal bool
}

func (c Config) withDefaults() Config {
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxOutputTokens <= 0 {
		c.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if c.MaxOutputBytes <= 0 {
		c.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if c.MaxMemory == 0 {
		c.MaxMemory = DefaultMaxMemory
	}
	if c.MaxRecursion <= 0 {
		c.MaxRecursion = DefaultMaxRecursion
	}
	return c
}
