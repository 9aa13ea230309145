package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/rlmhq/rlm/runs"
	"github.com/rlmhq/rlm/viewer"
)

const viewSynopsis = "TRAJ.jsonl|RUN_ID [B.jsonl|RUN_ID] [-o FILE.html | -o -] [--open] [--runs-dir DIR]"

func init() {
	register(&command{name: "view", summary: "render a trajectory (or two, compared) as one self-contained HTML page", run: runView})
}

func runView(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "view", viewSynopsis)
	out := fs.String("o", "", "write the page to `FILE` (- for stdout; default: next to the trajectory, .html instead of .jsonl)")
	open := fs.Bool("open", false, "open the page in the default browser")
	dir := fs.String(
		"runs-dir",
		"",
		"where to find a kept run given by ID (default $RLM_RUNS_DIR, else runs/ next to $RLM_STORE, else .rlm/runs)",
	)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || len(pos) > 2 {
		fs.Usage()
		return fmt.Errorf("%w: rlm view takes one trajectory, or two to compare", errUsage)
	}
	if *open && *out == "-" {
		return fmt.Errorf("%w: --open needs a file, not -o -", errUsage)
	}
	store := defaultStoreDir
	if env.getenv != nil && env.getenv("RLM_STORE") != "" {
		store = env.getenv("RLM_STORE")
	}
	root := runs.NewRoot(runsRootDir(env, *dir, store))
	var trajs []*viewer.Trajectory
	var paths []string
	for _, arg := range pos {
		path, err := trajectoryPath(root, arg)
		if err != nil {
			return err
		}
		t, err := readTrajectory(path)
		if err != nil {
			return err
		}
		trajs = append(trajs, t)
		paths = append(paths, path)
		info := t.Info
		if info.Truncated {
			fmt.Fprintf(
				env.stderr,
				"rlm view: %s: the last line was cut (%d bytes): the run crashed or is still running; the page shows the %d complete events\n",
				path,
				info.TruncatedBytes,
				info.Events,
			)
		}
		if info.BadLines > 0 {
			fmt.Fprintf(env.stderr, "rlm view: %s: %d line(s) are not JSON events; the page shows them raw\n", path, info.BadLines)
		}
		for v := range info.Versions {
			if v != viewer.KnownVersion {
				fmt.Fprintf(
					env.stderr,
					"rlm view: %s: %d event(s) of trajectory schema version %d (this rlm writes version %d); the page shows them as well as it can\n",
					path,
					info.Versions[v],
					v,
					viewer.KnownVersion,
				)
			}
		}
	}
	if *out == "-" {
		return viewer.Write(env.stdout, trajs...)
	}
	dest := *out
	if dest == "" {
		dest = defaultViewPath(paths)
	}
	f, err := os.Create(dest)
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if err := viewer.Write(f, trajs...); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "rlm view: wrote %s\n", dest)
	if *open {
		if err := openBrowser(dest); err != nil {
			fmt.Fprintf(env.stderr, "rlm view: %v; open %s yourself\n", err, dest)
		}
	}
	return nil
}

// trajectoryPath is arg if it names a file, else the trajectory of the kept
// run arg.
func trajectoryPath(root *runs.Root, arg string) (string, error) {
	if _, err := os.Stat(arg); err == nil {
		return arg, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if !strings.ContainsAny(arg, `/\`) && !strings.HasSuffix(arg, ".jsonl") {
		if _, err := root.Get(arg); err == nil {
			return filepath.Join(root.Path(arg), runs.TrajectoryFile), nil
		}
	}
	return "", fmt.Errorf("%w: %s: no such file, and no kept run with that ID in %s (see rlm runs ls)", errUsage, arg, root.Dir)
}

func readTrajectory(path string) (*viewer.Trajectory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := viewer.Read(filepath.Base(path), f)
	if errors.Is(err, viewer.ErrNotTrajectory) || errors.Is(err, viewer.ErrEmpty) {
		return nil, fmt.Errorf("%w; pass a file written by rlm run --trajectory FILE, or a kept run's ID (rlm runs ls)", err)
	}
	return t, err
}

// defaultViewPath is the page's path next to the (first) trajectory:
// x.jsonl -> x.html, a kept run's trajectory -> view.html in its directory,
// two trajectories -> A-vs-B.html.
func defaultViewPath(paths []string) string {
	stem := func(p string) string {
		base := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		if base == strings.TrimSuffix(runs.TrajectoryFile, filepath.Ext(runs.TrajectoryFile)) {
			base = filepath.Base(filepath.Dir(p)) // a kept run: its ID
		}
		return base
	}
	if len(paths) == 2 {
		return filepath.Join(filepath.Dir(paths[0]), stem(paths[0])+"-vs-"+stem(paths[1])+".html")
	}
	if filepath.Base(paths[0]) == runs.TrajectoryFile {
		return filepath.Join(filepath.Dir(paths[0]), "view.html")
	}
	return filepath.Join(filepath.Dir(paths[0]), stem(paths[0])+".html")
}

// openBrowser opens path with the platform's opener.
func openBrowser(path string) error {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("no browser opener (%s) found", name)
	}
	cmd := exec.Command(bin, append(args, path)...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() //nolint:errcheck // the opener's exit does not matter
	return nil
}
