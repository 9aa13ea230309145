package main

import (
	"context"
	"errors"
)

// TODO(issue): placeholder until the run subcommand lands; replace this file.
func init() {
	register(&command{name: "run", summary: "answer a query over externalized context with a root model", run: func(ctx context.Context, env *cliEnv, args []string) error {
		return errors.New("not implemented yet")
	}})
}
