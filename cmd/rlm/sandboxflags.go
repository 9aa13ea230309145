package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/rlmhq/rlm/sandbox"
)

// limitFlags are the sandbox's per-step limits, shared by rlm run, rlm exec
// and rlm repl: --max-steps, --step-timeout, --max-memory, --max-recursion,
// --max-output-bytes and --observation-tokens.
type limitFlags struct {
	maxSteps          uint64
	stepTimeout       time.Duration
	maxMemory         byteSize
	maxRecursion      int
	maxOutputBytes    byteSize
	observationTokens int
}

// register registers the limit flags; observationTokens is the default of
// --observation-tokens (the size of the model-visible output excerpt).
func (l *limitFlags) register(fs *flag.FlagSet, observationTokens int) {
	l.maxMemory = sandbox.DefaultMaxMemory
	l.maxOutputBytes = sandbox.DefaultMaxOutputBytes
	fs.Uint64Var(&l.maxSteps, "max-steps", sandbox.DefaultMaxSteps, "Starlark execution steps per step of code")
	fs.DurationVar(&l.stepTimeout, "step-timeout", sandbox.DefaultTimeout, "wall time per step of code")
	fs.Var(&l.maxMemory, "max-memory", "memory a step may allocate, a `SIZE` such as 512M or 2G")
	fs.IntVar(&l.maxRecursion, "max-recursion", sandbox.DefaultMaxRecursion, "maximum depth of nested function calls")
	fs.Var(&l.maxOutputBytes, "max-output-bytes", "output a step may print, a `SIZE` such as 64M")
	fs.IntVar(&l.observationTokens, "observation-tokens", observationTokens, "size in `TOKENS` of the head+tail excerpt of a step's output shown to the model")
}

// config validates the flags and returns the sandbox limits they set.
func (l *limitFlags) config() (sandbox.Config, error) {
	if l.stepTimeout <= 0 || l.maxRecursion <= 0 || l.maxMemory <= 0 || l.maxOutputBytes <= 0 || l.maxSteps == 0 || l.observationTokens <= 0 {
		return sandbox.Config{}, fmt.Errorf("%w: --max-steps, --step-timeout, --max-memory, --max-recursion, --max-output-bytes and --observation-tokens must be positive", errUsage)
	}
	return sandbox.Config{
		MaxSteps:        l.maxSteps,
		Timeout:         l.stepTimeout,
		MaxMemory:       int64(l.maxMemory),
		MaxRecursion:    l.maxRecursion,
		MaxOutputBytes:  int(l.maxOutputBytes),
		MaxOutputTokens: l.observationTokens,
	}, nil
}

// byteSize is a flag value in bytes with an optional KB, MB or GB suffix
// (see parseCtxSize).
type byteSize int64

func (b *byteSize) String() string { return formatSize(int64(*b)) }

func (b *byteSize) Set(s string) error {
	n, err := parseCtxSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}
