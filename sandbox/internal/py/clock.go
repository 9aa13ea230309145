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

// sessionClock is a session's clock: base plus elapsed microseconds.
type sessionClock struct {
	base time.Time
	Us   atomic.Int64
}

// newSessionClock returns a clock starting at base (the real time when
// base is zero), in UTC to the microsecond.
func NewSessionClock(base time.Time) *sessionClock {
	if base.IsZero() {
		base = time.Now()
	}
	return &sessionClock{base: base.UTC().Truncate(time.Microsecond)}
}

// read returns the clock's time and advances it by a microsecond.
func (c *sessionClock) Read() time.Time {
	us := c.Us.Add(1) - 1
	return c.base.Add(time.Duration(us) * time.Microsecond)
}

// elapsed returns the microseconds since the clock's base and advances it
// by a microsecond (time.monotonic, perf_counter).
func (c *sessionClock) Elapsed() int64 { return c.Us.Add(1) - 1 }

// now returns the time the next read returns, without advancing.
func (c *sessionClock) Now() time.Time {
	return c.base.Add(time.Duration(c.Us.Load()) * time.Microsecond)
}

// clockOf returns the clock of the session running on thread (a clock
// at the real time outside a session).
func ClockOf(thread *starlark.Thread) *sessionClock {
	if thread != nil {
		if st := StepOf(thread); st != nil {
			return st.State.Clock
		}
	}
	return NewSessionClock(time.Time{})
}
