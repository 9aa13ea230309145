package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func init() {
	register(&command{name: "version", summary: "print the rlm version", run: runVersion})
}

func runVersion(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "version", "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("%w: unexpected argument %q (rlm version takes no arguments)", errUsage, fs.Arg(0))
	}
	fmt.Fprintf(env.stdout, "rlm %s (%s %s/%s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// buildVersion is what this binary is: the version set at build time (make
// build, releases), else the module version go install recorded, else the
// VCS revision go build recorded in a checkout ("dev+abc123def456", with
// "-dirty" for uncommitted changes), else "dev".
func buildVersion() string {
	if version != "dev" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return version
	}
	return "dev+" + rev[:min(12, len(rev))] + dirty
}
