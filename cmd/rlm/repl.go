package main

import (
	"context"
	"errors"
)

// TODO(issue): placeholder until the repl subcommand lands; replace this file.
func init() {
	register(&command{name: "repl", summary: "interactive exploration of context variables", run: func(ctx context.Context, env *cliEnv, args []string) error {
		return errors.New("not implemented yet")
	}})
}
