package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/meta"
	"github.com/rlmhq/rlm/orchestrator"
)

// metaFlags choose the meta document of rlm run, serve and bench: --meta FILE (default
// .rlm/meta.json next to the store) and --meta-notes-tokens, the budget
// of its lessons in the meta section.
type metaFlags struct {
	fs          *flag.FlagSet
	path        string
	notesTokens int
	resolved    string // the document's absolute path once loaded ("" if none exists)
}

func (m *metaFlags) register(fs *flag.FlagSet) {
	m.fs = fs
	fs.StringVar(
		&m.path,
		"meta",
		"",
		"meta document `FILE` (lessons and recommended budgets kept by rlm steward; default $RLM_META, else meta.json next to the store directory, e.g. .rlm/meta.json); an invalid one stops the run before it starts",
	)
	fs.IntVar(
		&m.notesTokens,
		"meta-notes-tokens",
		meta.DefaultNotesBudget,
		"token budget of the meta document's lessons in the meta section of each request",
	)
}

// metaPath is the meta document's path: --meta, else meta.json next to
// the store directory.
func metaPath(flagPath, storeDir string) string {
	if flagPath != "" {
		return flagPath
	}
	return filepath.Join(filepath.Dir(filepath.Clean(storeDir)), "meta.json")
}

// read reads and validates the meta document (--meta, $RLM_META, else
// meta.json next to the store): a missing one is the empty document, but
// one named with --meta must exist. path is the file's absolute path, ""
// when it does not exist.
func (m *metaFlags) read(env *cliEnv, storeDir string) (doc *meta.Document, path string, err error) {
	if m.notesTokens < 0 {
		return nil, "", fmt.Errorf("%w: --meta-notes-tokens must be >= 0", errUsage)
	}
	p := metaPathEnv(env, m.path, storeDir)
	doc, exists, err := meta.Load(p)
	if err != nil {
		return nil, "", fmt.Errorf("%w (fix the file, or restore a good version with rlm steward rollback VERSION)", err)
	}
	if !exists && m.path != "" {
		return nil, "", fmt.Errorf("%w: --meta %s: no such file", errUsage, m.path)
	}
	if exists {
		path = absPath(p)
	}
	return doc, path, nil
}

// load reads and validates the meta document for a run of model, applies
// its recommended budgets to the flags not given on the command line
// (setting them, so run.json records them for a resume), and renders its
// lessons; cmd names the command in its notes on stderr.
func (m *metaFlags) load(env *cliEnv, cmd, storeDir, model string, quiet bool) (*meta.Document, orchestrator.MetaNotes, error) {
	doc, path, err := m.read(env, storeDir)
	if err != nil {
		return nil, orchestrator.MetaNotes{}, err
	}
	m.resolved = path
	if b, ok := doc.BudgetFor(model); ok {
		var applied []string
		for _, s := range []struct {
			flag string
			v    int
		}{{"history-tokens", b.HistoryTokens}, {"observation-tokens", b.ObservationTokens}, {"max-iterations", b.MaxIterations}} {
			if s.v > 0 && m.fs.Lookup(s.flag) != nil && !isSet(m.fs, s.flag) {
				if err := m.fs.Set(s.flag, strconv.Itoa(s.v)); err != nil {
					return nil, orchestrator.MetaNotes{}, err
				}
				applied = append(applied, fmt.Sprintf("--%s %d", s.flag, s.v))
			}
		}
		if len(applied) > 0 && !quiet {
			fmt.Fprintf(env.stderr, "rlm %s: meta v%d recommends for %s: %v\n", cmd, doc.Version, model, applied)
		}
	}
	text, ids := doc.Render(model, m.notesTokens, llm.TokenizerForModel(model))
	if n := countFor(doc, model); len(ids) < n && !quiet {
		fmt.Fprintf(
			env.stderr,
			"rlm %s: warning: %d of the meta document's %d lessons for this model fit --meta-notes-tokens %d\n",
			cmd,
			len(ids),
			n,
			m.notesTokens,
		)
	}
	return doc, orchestrator.MetaNotes{
		Version: doc.Version,
		Digest:  doc.Digest(),
		Lessons: ids,
		Sources: doc.SourcesOf(ids),
		Text:    text,
	}, nil
}

func countFor(doc *meta.Document, model string) int {
	n := 0
	for _, l := range doc.Lessons {
		if l.Model == "" || l.Model == model {
			n++
		}
	}
	return n
}

// errMetaChanged refuses a resume whose meta document changed since the
// run started: its prompt would differ from the recorded one.
var errMetaChanged = errors.New("the meta document changed since the run started")
