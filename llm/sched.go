package llm

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/time/rate"
)

// scheduler bounds one endpoint's traffic: at most n requests in flight and,
// optionally, requests and tokens per minute. Chat and embedding calls of
// one Client share it.
type scheduler struct {
	sem chan struct{}
	rpm *rate.Limiter // nil = unlimited
	tpm *rate.Limiter // nil = unlimited

	// now and sleep are the clock, replaced in tests.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

func newScheduler(concurrency, rpm, tpm int) *scheduler {
	s := &scheduler{sem: make(chan struct{}, concurrency), now: time.Now, sleep: sleepCtx}
	if rpm > 0 {
		// A burst of up to one request per slot, then rpm/60 per second.
		burst := min(rpm, concurrency)
		s.rpm = rate.NewLimiter(rate.Limit(float64(rpm)/60), max(1, burst))
	}
	if tpm > 0 {
		s.tpm = rate.NewLimiter(rate.Limit(float64(tpm)/60), tpm)
	}
	return s
}

// acquire waits for the rate limits and a concurrency slot; the returned
// func releases the slot. tokens is the call's prompt plus maximum output
// tokens (a call larger than the whole per-minute budget waits for all of
// it).
func (s *scheduler) acquire(ctx context.Context, tokens int) (func(), error) {
	if s.rpm != nil {
		if err := s.wait(ctx, s.rpm, 1, "requests-per-minute"); err != nil {
			return nil, err
		}
	}
	if s.tpm != nil && tokens > 0 {
		if err := s.wait(ctx, s.tpm, min(tokens, s.tpm.Burst()), "tokens-per-minute"); err != nil {
			return nil, err
		}
	}
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wait takes n tokens from lim, sleeping until they are available. A wait
// that would outlast ctx's deadline fails at once, giving the tokens back,
// with an *Error of KindRateLimit wrapping ErrRateLimitWait and
// context.DeadlineExceeded.
func (s *scheduler) wait(ctx context.Context, lim *rate.Limiter, n int, what string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.now()
	r := lim.ReserveN(now, n) // n <= burst, so r.OK()
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && d > time.Until(dl) {
		r.CancelAt(now)
		return &Error{Kind: KindRateLimit, RetryAfter: d,
			Message: fmt.Sprintf(
				"the %s limit needs a %v wait, past the call's deadline (raise the per-minute limits or the timeout)",
				what,
				d.Round(time.Millisecond),
			),
			Err: fmt.Errorf("%w: %w", ErrRateLimitWait, context.DeadlineExceeded)}
	}
	if err := s.sleep(ctx, d); err != nil {
		r.CancelAt(s.now())
		return err
	}
	return nil
}
