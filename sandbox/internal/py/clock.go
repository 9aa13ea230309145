package py

import (
	"sync/atomic"
	"time"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
)

// The session's clock, which the time and datetime modules read.
//
// Code never reads the real clock: every read (time.time(),
// time.monotonic(), datetime.now(), date.today(), ...) returns
// Config.Clock, the run's start time, plus one microsecond per earlier
// read in the session, and time.sleep(s) returns at once having moved the
// clock on by s. So the clock is deterministic (a replayed or resumed run,
// which re-executes the same code from the same recorded start time, sees
// the same times), strictly increasing (elapsed times are small but never
// zero), and the time zone is UTC.

// SessionClock is a session's clock: base plus elapsed microseconds.
type SessionClock struct {
	base time.Time
	us   atomic.Int64
}

// NewSessionClock returns a clock starting at base (the real time when
// base is zero), in UTC to the microsecond.
func NewSessionClock(base time.Time) *SessionClock {
	if base.IsZero() {
		base = time.Now()
	}
	return &SessionClock{base: base.UTC().Truncate(time.Microsecond)}
}

// Read returns the clock's time and advances it by a microsecond.
func (c *SessionClock) Read() time.Time {
	us := c.us.Add(1) - 1
	return c.base.Add(time.Duration(us) * time.Microsecond)
}

// Elapsed returns the microseconds since the clock's base and advances it
// by a microsecond (time.monotonic, perf_counter).
func (c *SessionClock) Elapsed() int64 { return c.us.Add(1) - 1 }

// Now returns the time the next read returns, without advancing.
func (c *SessionClock) Now() time.Time {
	return c.base.Add(time.Duration(c.us.Load()) * time.Microsecond)
}

// ClockOf returns the clock of the session running on thread (a clock
// at the real time outside a session).
func ClockOf(thread *starlark.Thread) *SessionClock {
	if thread != nil {
		if st := StepOf(thread); st != nil {
			return st.State.Clock
		}
	}
	return NewSessionClock(time.Time{})
}

// Advance moves the clock on by us microseconds (time.sleep).
func (c *SessionClock) Advance(us int64) { c.us.Add(us) }
