package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"

	"github.com/rlmhq/rlm/llm"
)

// The settings file: flag values written down once instead of on every
// command line (rlm serve has ~60 flags). Its keys are flag names; a
// section named for a command applies to that command only and wins over
// the top level:
//
//	model: llama3.1
//	base-url: http://localhost:11434/v1
//	serve:
//	  max-runs: 64
//	run:
//	  max-iterations: 30
//	  var: [doc=README.md]
//
// Precedence: a flag on the command line, then the environment variable
// that stands for it (flagEnv), then the file, then the default. The file
// is $RLM_CONFIG, else $XDG_CONFIG_HOME/rlm/config.yaml (~/.config/...);
// a missing default file is fine, a missing $RLM_CONFIG an error.

// flagEnv are the environment variables that stand for flags: the file
// does not override them.
var flagEnv = map[string]string{
	"base-url": "OPENAI_BASE_URL", "api-key": "OPENAI_API_KEY", "model": "RLM_MODEL", "sub-model": "RLM_SUB_MODEL",
	"embedding-model": "RLM_EMBEDDING_MODEL", "store": "RLM_STORE", "runs-dir": "RLM_RUNS_DIR", "meta": "RLM_META",
}

// secretFlags are shown redacted by rlm config.
var secretFlags = map[string]bool{"api-key": true}

// errShowedSettings stops a command after rlm config printed its settings.
var errShowedSettings = errors.New("settings shown")

// settingsPath is the settings file to read ("" for none) and whether it
// must exist.
func settingsPath(env *cliEnv) (string, bool) {
	if p := env.getenv("RLM_CONFIG"); p != "" {
		return p, true
	}
	dir := env.getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home := env.getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir == "" {
		return "", false
	}
	return filepath.Join(dir, "rlm", "config.yaml"), false
}

// settingsFile is a parsed settings file: flag name → values, at the top
// level and per command.
type settingsFile struct {
	path     string
	top      map[string][]string
	commands map[string]map[string][]string
}

// maxSettingsSize bounds the settings file read.
const maxSettingsSize = 1 << 20

func loadSettings(env *cliEnv) (*settingsFile, error) {
	path, required := settingsPath(env)
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		if !required && errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("settings file: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("settings file %s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSettingsSize+1))
	if err != nil {
		return nil, fmt.Errorf("settings file: %w", err)
	}
	if len(b) > maxSettingsSize {
		return nil, fmt.Errorf("settings file %s: larger than %d bytes", path, maxSettingsSize)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("settings file %s: %w (want YAML: flag names as keys, e.g. model: llama3.1)", path, err)
	}
	s := &settingsFile{path: path, top: map[string][]string{}, commands: map[string]map[string][]string{}}
	for k, v := range raw {
		if _, isCmd := commands[k]; isCmd {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("settings file %s: %s: want a map of flag names to values", path, k)
			}
			sec := map[string][]string{}
			for fk, fv := range m {
				vals, err := settingValues(fv)
				if err != nil {
					return nil, fmt.Errorf("settings file %s: %s.%s: %w", path, k, fk, err)
				}
				sec[fk] = vals
			}
			s.commands[k] = sec
			continue
		}
		vals, err := settingValues(v)
		if err != nil {
			return nil, fmt.Errorf("settings file %s: %s: %w", path, k, err)
		}
		s.top[k] = vals
	}
	return s, nil
}

// settingValues turns a YAML value into flag values: a scalar is one, a
// list is one per item (for repeatable flags such as var).
func settingValues(v any) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, errors.New("no value")
	case map[string]any:
		return nil, errors.New("want a value or a list of values, not a map")
	case []any:
		var out []string
		for _, e := range x {
			vals, err := settingValues(e)
			if err != nil {
				return nil, err
			}
			out = append(out, vals...)
		}
		return out, nil
	default:
		return []string{fmt.Sprint(x)}, nil
	}
}

// apply sets the flags of fs (command cmd) that the command line did not
// set and no environment variable stands for, from the file. A key in the
// command's section that the command has no flag for is an error; a
// top-level key another command uses is not.
func (s *settingsFile) apply(env *cliEnv, fs *flag.FlagSet, cmd string) (map[string]string, error) {
	source := map[string]string{}
	if s == nil {
		return source, nil
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	sec := s.commands[strings.Fields(cmd)[0]]
	// A command made of subcommands has a flag set for each: a key may be
	// another one's.
	whole := !strings.Contains(cmd, " ") && !slices.Contains([]string{"store", "runs", "steward", "bench"}, cmd)
	for k := range sec {
		if whole && fs.Lookup(k) == nil {
			return nil, fmt.Errorf("%w: settings file %s: rlm %s has no flag --%s", errUsage, s.path, cmd, k)
		}
	}
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		vals, where := sec[f.Name], cmd
		if vals == nil {
			vals, where = s.top[f.Name], "top level"
		}
		if vals == nil || set[f.Name] || (flagEnv[f.Name] != "" && env.getenv(flagEnv[f.Name]) != "") {
			return
		}
		for _, v := range vals {
			if err := f.Value.Set(v); err != nil {
				errs = append(errs, fmt.Errorf("%w: settings file %s (%s): %s: %v", errUsage, s.path, where, f.Name, err))
				return
			}
		}
		source[f.Name] = "file"
	})
	return source, errors.Join(errs...)
}

// showSettings prints each flag of fs with its effective value and where
// it came from (flag, env, file, default); secrets are redacted.
func showSettings(w io.Writer, env *cliEnv, fs *flag.FlagSet, fromFile map[string]string, path string) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	if path != "" {
		fmt.Fprintf(w, "# settings file: %s\n", path)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLAG\tVALUE\tFROM")
	for _, n := range names {
		f := fs.Lookup(n)
		v, from := f.Value.String(), "default"
		if r, ok := f.Value.(interface{ Readable() string }); ok {
			v = r.Readable()
		}
		switch {
		case fromFile[n] != "":
			from = "file"
		case set[n]:
			from = "flag"
		case flagEnv[n] != "" && env.getenv(flagEnv[n]) != "":
			v, from = env.getenv(flagEnv[n]), "env "+flagEnv[n]
		}
		switch {
		case secretFlags[n] && v != "":
			v = "[REDACTED]"
		case strings.Contains(v, "://"):
			v = llm.RedactURL(v)
		}
		fmt.Fprintf(tw, "--%s\t%s\t%s\n", n, termSafe(w, v), from)
	}
	tw.Flush()
}

// applySettings applies the settings file to fs once, after its first
// successful parse (the flags on the command line are set by then, or
// are parsed later and override it), and prints the settings for rlm
// config.
func applySettings(fs *flag.FlagSet) error {
	u, ok := fs.Output().(*usageOutput)
	if !ok || u.settingsRead || u.env == nil || u.env.getenv == nil {
		return nil
	}
	u.settingsRead = true
	s, err := loadSettings(u.env)
	if err != nil {
		return err
	}
	from, err := s.apply(u.env, fs, u.name)
	if err != nil {
		return err
	}
	if u.env.showSettings {
		path := ""
		if s != nil {
			path = s.path
		}
		showSettings(u.env.stdout, u.env, fs, from, path)
		return errShowedSettings
	}
	return nil
}

func init() {
	register(
		&command{
			name:    "config",
			summary: "print a command's effective settings (flags, environment, settings file) with secrets redacted",
			run:     runConfig,
		},
	)
}

const configSynopsis = `COMMAND [flags]

Prints every flag of rlm COMMAND with the value it would run with and where
the value comes from: the command line, the environment, the settings file
($RLM_CONFIG, else ~/.config/rlm/config.yaml) or the default. Secrets are
redacted. Nothing is run.`

func runConfig(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs := newFlagSet(env, "config", configSynopsis)
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		fs.Usage()
		return fmt.Errorf("%w: rlm config takes the command whose settings to show, e.g. rlm config serve", errUsage)
	}
	c, ok := commands[args[0]]
	if !ok || c.name == "config" {
		return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	e := *env
	e.showSettings = true
	err := c.run(ctx, &e, args[1:])
	if errors.Is(err, errShowedSettings) {
		return nil
	}
	if err == nil {
		return fmt.Errorf("rlm %s has no settings to show", args[0])
	}
	return err
}
