package server

import (
	"fmt"
	"sync"

	"github.com/rlmhq/rlm/llm"
	"github.com/rlmhq/rlm/meta"
	"github.com/rlmhq/rlm/orchestrator"
)

// metaNotes renders the lessons of the meta document per root model, once.
type metaNotes struct {
	mu    sync.Mutex
	cache map[string]orchestrator.MetaNotes
}

// notes returns the meta notes of a run of model ({} without a document).
func (s *Server) notes(model string) orchestrator.MetaNotes {
	doc := s.cfg.Meta.Doc
	if doc == nil {
		return orchestrator.MetaNotes{}
	}
	s.metaNotes.mu.Lock()
	defer s.metaNotes.mu.Unlock()
	if n, ok := s.metaNotes.cache[model]; ok {
		return n
	}
	n := orchestrator.MetaNotes{Version: doc.Version, Digest: doc.Digest()}
	if budget := s.notesBudget(); budget > 0 {
		n.Text, n.Lessons = doc.Render(model, budget, llm.TokenizerForModel(model))
		n.Sources = doc.SourcesOf(n.Lessons)
	}
	if s.metaNotes.cache == nil {
		s.metaNotes.cache = map[string]orchestrator.MetaNotes{}
	}
	s.metaNotes.cache[model] = n
	return n
}

// notesBudget is the token budget of the lessons (0: none).
func (s *Server) notesBudget() int {
	switch n := s.cfg.Meta.NotesTokens; {
	case n == 0:
		return meta.DefaultNotesBudget
	case n < 0:
		return 0
	default:
		return n
	}
}

// applyMeta sets the meta notes of a run of model in e, and the budgets
// the document recommends for that model where neither the operator nor
// the request (requestIter: rlm.max_iterations given) set them.
func (s *Server) applyMeta(e *orchestrator.Config, model string, requestIter bool) {
	doc := s.cfg.Meta.Doc
	if doc == nil {
		return
	}
	e.Meta = s.notes(model)
	b, ok := doc.BudgetFor(model)
	if !ok {
		return
	}
	fixed := s.cfg.Meta.Fixed
	if b.MaxIterations > 0 && !requestIter && !fixed["max_iterations"] {
		e.MaxIterations = b.MaxIterations
	}
	if b.HistoryTokens > 0 && !fixed["history_tokens"] {
		e.DynamicBudget = b.HistoryTokens
	}
	if b.ObservationTokens > 0 && !fixed["observation_tokens"] {
		e.Limits.ObservationTokens = b.ObservationTokens
	}
}

// checkMeta refuses, before the server takes any request, a meta document
// whose recommended budgets for some model do not fit the server's
// settings (one step's excerpt must fit half the history).
func (s *Server) checkMeta() error {
	doc := s.cfg.Meta.Doc
	if doc == nil {
		return nil
	}
	for _, b := range doc.Budgets {
		e := s.cfg.Engine
		s.applyMeta(&e, b.Model, false)
		obs, hist := e.Limits.ObservationTokens, e.DynamicBudget
		if obs <= 0 {
			obs = orchestrator.DefaultObservationTokens
		}
		if hist <= 0 {
			hist = orchestrator.DefaultDynamicBudget
		}
		if obs > hist/2 {
			return fmt.Errorf(
				"%w: %s: budgets for model %q: an observation excerpt of %d tokens does not fit a history of %d tokens (at most half)",
				ErrMeta,
				s.cfg.Meta.Path,
				b.Model,
				obs,
				hist,
			)
		}
	}
	return nil
}
