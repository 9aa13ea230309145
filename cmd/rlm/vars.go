package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/orchestrator"
)

// varFlags collects repeated --var NAME[:TYPE]=SOURCE flags.
type varFlags []string

func (v *varFlags) String() string { return strings.Join(*v, " ") }

// Set validates the spec's syntax (sources are read by loadContext).
func (v *varFlags) Set(s string) error {
	if _, err := rlmctx.ParseVarSpec(s); err != nil {
		return err
	}
	*v = append(*v, s)
	return nil
}

// varFlagUsage documents --var for every command that takes it.
const varFlagUsage = "context variable `NAME[:TYPE]=SOURCE` (repeatable): SOURCE is a text file, .json, .jsonl, .csv, a directory, - (stdin) or store:KEY; TYPE overrides inference (text, json, conversation, files, tool_outputs, working_memory, custom:NAME)"

// defaultStoreDir is the store used when neither --store nor RLM_STORE is set.
var defaultStoreDir = filepath.Join(".rlm", "store")

// storeDirFlag registers --store (default $RLM_STORE, else .rlm/store).
func storeDirFlag(fs *flag.FlagSet, env *cliEnv) *string {
	def := ""
	if env.getenv != nil {
		def = env.getenv("RLM_STORE")
	}
	if def == "" {
		def = defaultStoreDir
	}
	return fs.String("store", def, "variable store `DIR` ($RLM_STORE when set)")
}

// loadContext builds the externalized context for rlm run and rlm exec:
// the session's variables (if sessionFile is set), then each --var in
// order. It applies the default size limits: size warnings are returned
// with the loaders' warnings, and text variables over the chunk threshold
// get a NAME_chunks companion. The store is opened only for store:KEY.
func loadContext(env *cliEnv, query string, vars []string, sessionFile, storeDir string) (*rlmctx.ExternalizedContext, []string, error) {
	return loadContextSized(env, query, vars, sessionFile, storeDir, rlmctx.DefaultSizeConfig(), nil, true)
}

// loadContextSized is loadContext with explicit size limits (see
// registerSizeFlags) and, for a caller that makes a REPL of the variables
// next, the builder of a JSON document's interpreter values made in the
// pass that outlines it (repl.JSONValues; nil: none). summaries says
// that the variables' summaries are shown next (rlm run's root prompt):
// a large JSON document's summary head is then token-counted as it is
// loaded, before its values are made (rlmctx.LoadOptions.CountHead),
// while rlm exec, which shows none, does not load the tokenizer.
func loadContextSized(
	env *cliEnv,
	query string,
	vars []string,
	sessionFile, storeDir string,
	cfg rlmctx.SizeConfig,
	values func() pyjson.Builder[any],
	summaries bool,
) (*rlmctx.ExternalizedContext, []string, error) {
	ctx := context.Background()
	gc := &gcPause{env: env, release: func() { releaseBeforeLoad(vars) }}
	defer gc.restore()
	c := rlmctx.NewContext(query)
	var warns []string
	if sessionFile != "" {
		s, err := rlmctx.LoadSession(sessionFile)
		if err != nil {
			return nil, nil, fmt.Errorf("--session: %w", err)
		}
		warns = append(warns, s.Warnings...)
		if err := c.AddSession(s); err != nil {
			return nil, nil, fmt.Errorf("--session %s: %w", sessionFile, err)
		}
	}
	var store *rlmctx.Store
	defer func() {
		if store != nil {
			store.Close()
		}
	}()
	stdinUsed := ""
	for _, raw := range vars {
		spec, err := rlmctx.ParseVarSpec(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("--var: %w", err)
		}
		if spec.Source == "-" {
			if stdinUsed != "" {
				return nil, nil, fmt.Errorf("--var %s and --var %s both read stdin (-): only one variable can", stdinUsed, spec.Name)
			}
			stdinUsed = spec.Name
		}
		opts := rlmctx.LoadOptions{Stdin: env.stdin, Values: values, Pause: gc.pause, CountHead: summaries}
		if strings.HasPrefix(spec.Source, rlmctx.StorePrefix) {
			if store == nil {
				if storeDir == "" {
					return nil, nil, fmt.Errorf("--var %s: %w (pass --store DIR or set RLM_STORE)", spec.Name, rlmctx.ErrNoStore)
				}
				// Reading must not create an empty store by accident.
				if err := storeExists(storeDir); err != nil {
					return nil, nil, fmt.Errorf("--var %s: %s: %w", spec.Name, spec.Source, err)
				}
				store, err = rlmctx.OpenStore(rlmctx.StoreConfig{Dir: storeDir})
				if err != nil {
					return nil, nil, err
				}
				warns = append(warns, store.Warnings()...)
			}
			opts.Store = store
		}
		if _, dup := c.Get(spec.Name); dup {
			return nil, nil, fmt.Errorf(
				"--var %s: %w: the name is used twice (session variables are conversation, files, tool_outputs, working_memory)",
				spec.Name,
				rlmctx.ErrDuplicateVar,
			)
		}
		v, w, err := rlmctx.LoadVar(ctx, spec, opts)
		if err != nil {
			if errors.Is(err, rlmctx.ErrNotFound) && store != nil {
				return nil, nil, fmt.Errorf("--var %w (store %s; see rlm store ls)", err, storeDir)
			}
			return nil, nil, fmt.Errorf("--var %w", withFsckAdvice(err))
		}
		warns = append(warns, w...)
		if err := c.AddVariable(v); err != nil {
			return nil, nil, err
		}
	}
	for _, w := range c.CheckSizeLimits(cfg) {
		warns = append(warns, w.String())
	}
	for _, name := range c.AutoChunk(cfg) {
		warns = append(
			warns,
			fmt.Sprintf("added %s: the pieces of the large variable %s", name, strings.TrimSuffix(name, rlmctx.ChunkSuffix)),
		)
	}
	return c, warns, nil
}

// formatSize renders n bytes the way the size flags take them: 100KB, 1MB,
// 1GB when n is a whole number of those units, else the byte count (exact:
// kept runs record flags in this form). readableSize is for reading.
func formatSize(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.unit
		}
	}
	return strconv.FormatInt(n, 10)
}

// readableSize renders n bytes for a person: formatSize when exact, else
// with one decimal in the largest unit it reaches (11.8GB for 12342046KB).
func readableSize(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n >= u.size {
			if n%u.size == 0 {
				return strconv.FormatInt(n/u.size, 10) + u.unit
			}
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64) + u.unit
		}
	}
	return strconv.FormatInt(n, 10)
}

// parseCtxSize parses a byte count with an optional B, KB, MB or GB suffix
// (powers of 1024; KiB, MiB, GiB accepted too).
func parseCtxSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("bad size %q: want a positive size in bytes, optionally with KB, MB or GB (e.g. 100KB, 512M, 2G)", s)
	}
	return int64(f * float64(mult)), nil
}

// registerSizeFlags registers the context size limits (spec SPEC-25.04)
// --warn-size, --chunk-threshold, --chunk-size and --max-context-size, for
// loadContextSized.
func registerSizeFlags(fs *flag.FlagSet) *rlmctx.SizeConfig {
	cfg := rlmctx.DefaultSizeConfig()
	fs.Var(byteSize[int64]{&cfg.WarnThreshold}, "warn-size", "warn about variables larger than `SIZE`")
	fs.Var(byteSize[int64]{&cfg.ChunkThreshold}, "chunk-threshold", "split text variables larger than `SIZE` into NAME_chunks")
	fs.Var(byteSize[int64]{&cfg.ChunkSize}, "chunk-size", "maximum `SIZE` of each piece in NAME_chunks")
	fs.Var(byteSize[int64]{&cfg.MaxTotalSize}, "max-context-size", "warn when all variables together exceed `SIZE`")
	return &cfg
}

// checkVarNames rejects --var names that would hide a REPL helper (len,
// search, SUBMIT, ...), and, for rlm run (engine true), the engine's outputs
// variable. Specs with a bad syntax are left to loadContext.
func checkVarNames(vars []string, engine bool) error {
	for _, raw := range vars {
		spec, err := rlmctx.ParseVarSpec(raw)
		if err != nil || (!engine && spec.Name == "outputs") {
			continue
		}
		if err := orchestrator.CheckVarName(spec.Name); err != nil {
			return fmt.Errorf("%w: --var %s: %v", errUsage, raw, err)
		}
	}
	return nil
}

// gcPause turns the garbage collector off from its pause until its
// restore (unless the environment sets GOGC; only the real process, not
// tests): while rlm exec and rlm run load their variables, almost all
// they allocate is the variables' values, live to the end, so each
// collection would scan a growing heap and free little (a 19 MB list of
// records: about a quarter of the load's CPU). The soft memory limit
// (softMemoryLimit) still starts a collection if the heap nears it.
// The load pauses it once it starts making values
// (rlmctx.LoadOptions.Pause), after the token count of a large
// document's summary head, whose garbage is then collected beside a
// small heap. The collector comes back with the target loadedGCPercent
// sets for the heap the load left.
type gcPause struct {
	env *cliEnv
	// release, if set, is called at the first pause, GOGC or not
	// (releaseBeforeLoad): it gives back the heap and executable pages
	// left before the values are made, the head count's (its garbage,
	// the tokenizer's initialisation) included.
	release         func()
	started, paused bool
	prev            int
}

// pause turns the collector off (once).
func (g *gcPause) pause() {
	if g.started {
		return
	}
	g.started = true
	if g.release != nil {
		g.release()
	}
	if g.env.setGCPercent == nil || g.env.getenv("GOGC") != "" {
		return
	}
	g.prev, g.paused = g.env.setGCPercent(-1), true
}

// restore turns the collector back on if pause turned it off.
func (g *gcPause) restore() {
	if !g.paused {
		return
	}
	g.paused = false
	p := g.prev
	if g.env.heapShares != nil {
		scannable, inUse := g.env.heapShares()
		p = loadedGCPercent(g.prev, scannable, inUse)
	}
	g.env.setGCPercent(p)
}

// Past a load of loadedHeapMin bytes or more, the collector's target is
// lowered in proportion to the share of the heap that holds pointers,
// down to minLoadedGCPercent.
const (
	loadedHeapMin      = 32 << 20
	minLoadedGCPercent = 10
)

// loadedGCPercent is the collector's target after a load that left
// inUse bytes of heap, scannable of them with pointers, when it was
// prev before. A collection's work is mostly marking the heap's
// pointers, so with the target scaled by the scannable share, the
// collector spends on each byte allocated what it spends at prev on a
// heap of pointers, while the garbage allowed on top of the live heap
// shrinks with that share: a document of long texts (85 MB, a tenth of
// it scannable) then collects the garbage of what follows the load (a
// run's variable summaries, its prompt, its REPL) at a tenth of its
// size instead of letting it grow the process by as much as the texts
// (rlm run on the 85 MB document: peak RSS from 1.7x the file toward
// exec's 1.25x), and a list of records, mostly pointers, keeps about
// the target it had.
func loadedGCPercent(prev int, scannable, inUse uint64) int {
	if prev <= 0 || inUse < loadedHeapMin {
		return prev
	}
	p := int(uint64(prev) * scannable / inUse)
	return min(max(p, minLoadedGCPercent), prev)
}

// heapShares reads the Go heap's scannable bytes (holding pointers) and
// its bytes in use by objects, for cliEnv.heapShares.
func heapShares() (scannable, inUse uint64) {
	s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return 0, 0
		}
	}
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}
