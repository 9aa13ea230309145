package llm

import (
	"context"
	"fmt"

	"golang.org/x/time/rate"
)

// scheduler bounds one endpoint's traffic: at most n requests in flight and,
// optionally, requests and tokens per minute. Chat and embedding calls of
// one Client share it.
type scheduler struct {
	sem chan struct{}
	rpm *rate.Limiter // nil = unlimited
	tpm *rate.Limiter // nil = unlimited
}

func newScheduler(concurrency, rpm, tpm int) *scheduler {
	s := &scheduler{sem: make(chan struct{}, concurrency)}
	if rpm > 0 {
		burst := min(rpm, concurrency)
		s.rpm = rate.NewLimiter(rate.Limit(float64(rpm)/60), max(1, burst))
	}
	if tpm > 0 {
		s.tpm = rate.NewLimiter(rate.Limit(float64(tpm)/60), tpm)
	}
	return s
}

// acquire waits for the rate limits and a concurrency slot; the returned
// func releases the slot.
func (s *scheduler) acquire(ctx context.Context, tokens int) (func(), error) {
	if s.rpm != nil {
		if err := s.rpm.Wait(ctx); err != nil {
			return nil, limitErr(ctx, err)
		}
	}
	if s.tpm != nil && tokens > 0 {
		if err := s.tpm.WaitN(ctx, min(tokens, s.tpm.Burst())); err != nil {
			return nil, limitErr(ctx, err)
		}
	}
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// limitErr maps a rate limiter refusal to the context error it stands for
// (the limiter refuses early when the wait would outlast the deadline).
func limitErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return fmt.Errorf("%w (%v)", context.DeadlineExceeded, err)
}
