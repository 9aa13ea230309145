package main

import (
	"context"
	"errors"
)

// TODO(issue): placeholder until the bench subcommand lands; replace this file.
func init() {
	register(&command{name: "bench", summary: "benchmark externalized against direct prompting", run: func(ctx context.Context, env *cliEnv, args []string) error {
		return errors.New("not implemented yet")
	}})
}
