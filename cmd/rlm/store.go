package main

import (
	"context"
	"errors"
)

// TODO(issue): placeholder until the store subcommand lands; replace this file.
func init() {
	register(&command{name: "store", summary: "manage the persistent variable store", run: func(ctx context.Context, env *cliEnv, args []string) error {
		return errors.New("not implemented yet")
	}})
}
