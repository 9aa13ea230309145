package main

import (
	"flag"
	"fmt"

	"github.com/rlmhq/rlm/sandbox"
)

// limitFlags set the sandbox's per-step limits, shared by rlm run, rlm
// exec, rlm repl and rlm bench: --max-steps, --step-timeout, --max-memory,
// --max-session-memory, --max-recursion, --max-output-bytes and --observation-tokens. The flags
// write straight into the sandbox.Limits they produce.
type limitFlags struct {
	sandbox.Limits
}

// register registers the limit flags with the sandbox's defaults;
// observationTokens is the default of --observation-tokens (the size of the
// model-visible output excerpt).
func (l *limitFlags) register(fs *flag.FlagSet, observationTokens int) {
	d := sandbox.DefaultLimits()
	l.Limits = d
	l.ObservationTokens = observationTokens
	fs.Uint64Var(&l.MaxSteps, "max-steps", d.MaxSteps, "Starlark execution steps per step of code")
	fs.DurationVar(&l.Timeout, "step-timeout", d.Timeout, "wall time per step of code")
	fs.Var(byteSize[int64]{&l.MaxMemory}, "max-memory", "memory a step may allocate, a `SIZE` such as 512M or 2G")
	fs.Var(
		byteSize[int64]{&l.MaxSessionMemory},
		"max-session-memory",
		"memory all the steps of a session may keep together, a `SIZE`; the default is half of the machine's memory",
	)
	fs.IntVar(&l.MaxRecursion, "max-recursion", d.MaxRecursion, "maximum depth of nested function calls")
	fs.Var(byteSize[int]{&l.MaxOutputBytes}, "max-output-bytes", "output a step may print, a `SIZE` such as 64M")
	fs.IntVar(
		&l.ObservationTokens,
		"observation-tokens",
		observationTokens,
		"size in `TOKENS` of the head+tail excerpt of a step's output shown to the model",
	)
}

// limits validates the flags and returns the sandbox limits they set.
func (l *limitFlags) limits() (sandbox.Limits, error) {
	if l.Timeout <= 0 || l.MaxRecursion <= 0 || l.MaxMemory <= 0 || l.MaxSessionMemory <= 0 || l.MaxOutputBytes <= 0 || l.MaxSteps == 0 ||
		l.ObservationTokens <= 0 {
		return sandbox.Limits{}, fmt.Errorf(
			"%w: --max-steps, --step-timeout, --max-memory, --max-session-memory, --max-recursion, --max-output-bytes and --observation-tokens must be positive",
			errUsage,
		)
	}
	return l.Limits, nil
}

// serveGCPercent is rlm serve's garbage collector target (GOGC) when the
// environment sets none: a server's heap is mostly the garbage of
// requests (a session, messages, events per run) over a small live heap,
// so Go's default of 100 collected many times a second under load. The
// soft memory limit (softMemoryLimit) still makes the collector work
// harder as the heap nears what the sandbox's limits allow.
const serveGCPercent = 400

// serveGC sets serveGCPercent unless GOGC is set (only the real process,
// not tests).
func serveGC(env *cliEnv) {
	if env.setGCPercent != nil && env.getenv("GOGC") == "" {
		env.setGCPercent(serveGCPercent)
	}
}

// softMemoryLimit sets the Go runtime's soft memory limit (as GOMEMLIMIT
// does, unless that is set) a step's allowance above the session's limit,
// through env (only the real process sets it, not tests): near it the
// garbage collector works harder, so garbage does not push the process
// past what the sandbox's limits allow. The sandbox's checks and watchdog
// still decide which step fails.
func softMemoryLimit(env *cliEnv, l sandbox.Limits) {
	if env.setMemoryLimit != nil && env.getenv("GOMEMLIMIT") == "" {
		env.setMemoryLimit(l.MaxSessionMemory + l.MaxMemory + 256<<20)
	}
}

// byteSize is a flag value in bytes with an optional KB, MB or GB suffix
// (see parseCtxSize), stored in *p.
type byteSize[T ~int | ~int64] struct{ p *T }

func (b byteSize[T]) String() string {
	if b.p == nil {
		return ""
	}
	return formatSize(int64(*b.p))
}

// Readable is the value for a person to read (-h, rlm config).
func (b byteSize[T]) Readable() string {
	if b.p == nil {
		return ""
	}
	return readableSize(int64(*b.p))
}

func (b byteSize[T]) Set(s string) error {
	n, err := parseCtxSize(s)
	if err != nil {
		return err
	}
	*b.p = T(n)
	return nil
}
