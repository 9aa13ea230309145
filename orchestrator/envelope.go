package orchestrator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/rlmhq/rlm/llm"
)

// Section names of the prompt envelope.
const (
	SectionSystem  = "system"
	SectionMeta    = "meta"
	SectionQuery   = "query"
	SectionDynamic = "dynamic"
)

// msgOverhead is the per-message token overhead of the chat format.
const msgOverhead = 4

// exchange is one iteration in the dynamic section: the model's reply and what
// the engine answered (an observation in text mode, tool results and a
// directive in tools mode).
type exchange struct {
	Step int
	// Reply is the assistant message as received (content and tool calls).
	Reply llm.Message
	// ToolResults answer Reply.ToolCalls one for one, in order.
	ToolResults []llm.Message
	// Engine is the engine-authored message that follows (observation
	// and/or directive). Empty for a reply without code: it gets the nudge
	// while it is the last turn, and a one-line marker afterwards.
	Engine string
	// NoCode marks a reply in which nothing ran.
	NoCode bool
	// Resume is the engine-authored resume context that follows the turn
	// when a resumed run went on live after it (see Config.Resume).
	Resume string

	digest StepDigest
	tokens int // cached: tokens of the turn's messages, nudge excluded
}

// envelope is the typed prompt: a stable prefix (system and meta sections,
// byte-identical across iterations), the query, and the dynamic section
// (rolling summary, raw turns and a trailing engine directive).
type envelope struct {
	System string
	Meta   string
	Query  string
	// Summary is the engine-authored rolling summary of compressed turns.
	Summary string
	Turns   []*exchange
	// Resume is the resume context of a run that went on live before its
	// first turn (its turns follow it).
	Resume    string
	Directive string // trailing engine directive (final extraction), if any
	nudge     string // the nudge text for this protocol
}

// PrefixHash is a short sha256 of the system and meta sections: equal across
// requests exactly when the cacheable prefix is byte-identical.
func (e *envelope) PrefixHash() string {
	h := sha256.New()
	h.Write([]byte(e.System))
	h.Write([]byte{0})
	h.Write([]byte(e.Meta))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func (e *envelope) queryMessage() string {
	return e.Meta + "\n\nQuery: " + e.Query
}

// Messages renders the envelope as chat messages.
func (e *envelope) Messages() []llm.Message {
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: e.System},
		{Role: llm.RoleUser, Content: e.queryMessage()},
	}
	if e.Summary != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: e.Summary})
	}
	if e.Resume != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: e.Resume})
	}
	for i, t := range e.Turns {
		last := i == len(e.Turns)-1
		msgs = append(msgs, t.Reply)
		msgs = append(msgs, t.ToolResults...)
		engine := t.Engine
		if t.NoCode {
			if last && e.Directive == "" {
				engine = e.nudge
			} else {
				engine = noCodeMarker(t.Step)
			}
		}
		if engine != "" {
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: engine})
		}
		if t.Resume != "" {
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: t.Resume})
		}
	}
	if e.Directive != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: e.Directive})
	}
	return msgs
}

func noCodeMarker(step int) string {
	return fmt.Sprintf("[engine] Step %d: no code ran.", step)
}

// SectionTokens counts the tokens of each section of the rendered request.
type SectionTokens struct {
	System  int `json:"system"`
	Meta    int `json:"meta"`
	Query   int `json:"query"`
	Dynamic int `json:"dynamic"`
}

// Total is the sum of all sections.
func (s SectionTokens) Total() int { return s.System + s.Meta + s.Query + s.Dynamic }

// Prefix is system plus meta: the prompt before the query.
func (s SectionTokens) Prefix() int { return s.System + s.Meta }

func countMessage(tok *llm.Tokenizer, m llm.Message) int {
	n := msgOverhead + tok.Count(m.Content)
	for _, tc := range m.ToolCalls {
		n += msgOverhead + tok.Count(tc.Name) + tok.Count(tc.Arguments)
	}
	return n
}

func (t *exchange) count(tok *llm.Tokenizer) int {
	if t.tokens == 0 {
		n := countMessage(tok, t.Reply)
		for _, m := range t.ToolResults {
			n += countMessage(tok, m)
		}
		if t.Engine != "" {
			n += msgOverhead + tok.Count(t.Engine)
		}
		if t.Resume != "" {
			n += msgOverhead + tok.Count(t.Resume)
		}
		t.tokens = n
	}
	return t.tokens
}

// tokens counts the sections of the envelope as Messages renders them.
func (e *envelope) tokens(tok *llm.Tokenizer) SectionTokens {
	s := SectionTokens{
		System: msgOverhead + tok.Count(e.System),
		Meta:   msgOverhead + tok.Count(e.Meta),
		Query:  tok.Count("\n\nQuery: " + e.Query),
	}
	s.Dynamic = e.dynamicTokens(tok)
	return s
}

func (e *envelope) dynamicTokens(tok *llm.Tokenizer) int {
	n := 0
	if e.Summary != "" {
		n += msgOverhead + tok.Count(e.Summary)
	}
	if e.Resume != "" {
		n += msgOverhead + tok.Count(e.Resume)
	}
	for i, t := range e.Turns {
		n += t.count(tok)
		if t.NoCode {
			if i == len(e.Turns)-1 && e.Directive == "" {
				n += msgOverhead + tok.Count(e.nudge)
			} else {
				n += msgOverhead + tok.Count(noCodeMarker(t.Step))
			}
		}
	}
	if e.Directive != "" {
		n += msgOverhead + tok.Count(e.Directive)
	}
	return n
}

// truncateToTokens cuts s to at most max tokens, at a line boundary when
// possible, appending marker.
func truncateToTokens(tok *llm.Tokenizer, s string, max int, marker string) string {
	if tok.Count(s) <= max {
		return s
	}
	lines := strings.Split(s, "\n")
	lo, hi := 0, len(lines)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if tok.Count(strings.Join(lines[:mid], "\n"))+tok.Count(marker)+1 <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return strings.Join(lines[:lo], "\n") + "\n" + marker
}
