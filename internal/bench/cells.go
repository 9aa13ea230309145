package bench

import (
	"context"
	"fmt"
	"strings"
)

// Cells expands a configuration into its cells, one [Key] per task × size
// × item × mode, in the order [Run] works them: by task, then size, then
// item, then mode. Zero fields take [Run]'s defaults; an unknown task is
// an error. A cluster sweep distributes these cells, and [RunCell] runs
// one of them as [Run] would.
func Cells(cfg Config) ([]Key, error) {
	cfg = cfg.withDefaults()
	for _, k := range cfg.Tasks {
		if !isKind(k) {
			return nil, fmt.Errorf("%w %q (choose from %s)", ErrUnknownTask, k, strings.Join(Kinds(), ", "))
		}
	}
	var out []Key
	for _, kind := range cfg.Tasks {
		for _, size := range cfg.Sizes {
			for i := 0; i < cfg.N; i++ {
				for _, m := range cfg.Modes {
					out = append(out, Key{Task: kind, Size: size, Seed: cfg.Seed, Index: i, Mode: m})
				}
			}
		}
	}
	return out, nil
}

// RunCell runs one cell as [Run] does: it generates the cell's task, runs
// the runner of its mode and scores the answer into a [Result] (a failed
// item is a Result with its failure kind, not an error). The error is the
// context's when ctx ended before the cell finished (nothing to record),
// or a missing runner or a task that cannot be generated.
func RunCell(ctx context.Context, cfg Config, k Key) (Result, error) {
	r := cfg.Runners[k.Mode]
	if r == nil {
		return Result{}, fmt.Errorf("%w %q", ErrNoRunner, k.Mode)
	}
	t, err := Generate(k.Task, k.Size, k.Seed, k.Index)
	if err != nil {
		return Result{}, err
	}
	res, ok := runItem(ctx, r, t, k.Mode, contextTokens(t))
	if !ok {
		return Result{}, ctx.Err()
	}
	res.Model = cfg.Model
	return res, nil
}

// contextTokens is the exact token count of a task's variables.
func contextTokens(t *Task) int {
	n := 0
	for _, v := range t.Vars {
		n += CountTokens(v.Text())
	}
	return n
}
