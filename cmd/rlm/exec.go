package main

import (
	"context"
	"errors"
)

// TODO(issue): placeholder until the exec subcommand lands; replace this file.
func init() {
	register(&command{name: "exec", summary: "run exploration code over context variables, offline", run: func(ctx context.Context, env *cliEnv, args []string) error {
		return errors.New("not implemented yet")
	}})
}
