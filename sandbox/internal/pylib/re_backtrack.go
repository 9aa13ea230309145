package pylib

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/internal/pyre"
	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// The backtracking engine (pyre.Backtrack) runs the patterns RE2 cannot
// (lookaround, backreferences, atomic groups, possessive quantifiers,
// conditional groups) and, for patterns using \d or \b, text up to
// pyre.ASCIIOnlyMax that is not ASCII (where Python's Unicode classes and
// RE2's ASCII ones differ; larger texts keep RE2's speed and its ASCII
// \d and \b).
// It matches code points: the text is converted to a []rune once per step
// and string (4 bytes a character, counted against the memory limit), and
// each match runs under a time budget that ends with the step's time
// limit.

// useBT reports whether a match in s runs on the backtracking engine.
func (r *Regexp) useBT(s string) bool {
	return r.Re == nil || r.asciiOnly && len(s) <= pyre.ASCIIOnlyMax && !py.IsASCII(s)
}

// runeText is a string converted for the backtracking engine.
type runeText struct {
	s     string
	runes []rune
}

const runesKey = "rlm.sandbox.re.runes"

// runesOf returns s as code points, reusing the last conversion on this
// thread when s is the same string (a loop of pattern.search(text, pos)).
func runesOf(thread *starlark.Thread, s string) ([]rune, error) {
	if rt, ok := thread.Local(runesKey).(*runeText); ok && len(rt.s) == len(s) && rt.s == s {
		return rt.runes, nil
	}
	n := utf8.RuneCountInString(s)
	if err := py.CheckAlloc(thread, int64(n)*4); err != nil {
		return nil, err
	}
	rt := &runeText{s: s, runes: []rune(s)}
	thread.SetLocal(runesKey, rt)
	return rt.runes, nil
}

// btFind is find on the backtracking engine; offsets are bytes.
func (r *Regexp) btFind(thread *starlark.Thread, s string, pos int, mode pyre.Mode) ([]int, error) {
	if err := py.Interrupted(thread); err != nil {
		return nil, err
	}
	runes, err := runesOf(thread, s)
	if err != nil {
		return nil, err
	}
	m, err := r.bt.Find(runes, py.CharOffset(s, pos), mode, py.MatchBudget(thread))
	if err != nil {
		return nil, r.btError(thread, err)
	}
	toBytes(s, m)
	return m, nil
}

// toBytes converts code point offsets in s to byte offsets, in place.
func toBytes(s string, m []int) {
	for i, v := range m {
		if v > 0 {
			m[i] = py.ByteOffset(s, v)
		}
	}
}

// btFindAll returns up to n (all if n < 0) matches as Python's finditer
// finds them, in byte offsets.
func (r *Regexp) btFindAll(thread *starlark.Thread, s string, n int) ([][]int, error) {
	runes, err := runesOf(thread, s)
	if err != nil {
		return nil, err
	}
	var out [][]int
	for pos, advance := 0, false; pos <= len(runes) && (n < 0 || len(out) < n); {
		if len(out)%py.GrowCheckEvery == 0 {
			if err := py.Interrupted(thread); err != nil {
				return nil, err
			}
		}
		m, err := r.bt.Find(runes, pos, pyre.Search, py.MatchBudget(thread))
		if err == nil && m != nil && advance && m[1] == pos {
			// Python backtracks into a non-empty match at pos, else
			// searches on from the next character.
			m, err = r.bt.Find(runes, pos, pyre.NonEmptyAt, py.MatchBudget(thread))
			if err == nil && m == nil {
				if pos == len(runes) {
					break
				}
				m, err = r.bt.Find(runes, pos+1, pyre.Search, py.MatchBudget(thread))
			}
		}
		if err != nil {
			return nil, r.btError(thread, err)
		}
		if m == nil {
			break
		}
		out = append(out, m)
		pos, advance = m[1], m[0] == m[1]
	}
	for _, m := range out {
		toBytes(s, m)
	}
	return out, nil
}

// btError turns an error of the backtracking engine into the Python
// error the model sees.
func (r *Regexp) btError(thread *starlark.Thread, err error) error {
	switch {
	case errors.Is(err, pyre.ErrMatchTimeout):
		hint := fmt.Sprintf(
			"the regular expression %q backtracked until the step's time ran out; avoid nested or adjacent quantifiers over the same characters (like (a+)+ or \\w+\\s*\\w+$), anchor it, or match a smaller part of the text",
			r.pattern,
		)
		if e := py.Interrupted(thread); e != nil {
			var se *py.StopError
			if errors.As(e, &se) {
				return &py.StopError{Limit: se.Limit, Msg: se.Msg + ": " + hint}
			}
			return e
		}
		return &py.PyError{Kind: "TimeoutError", Msg: hint, Err: py.ErrTimeout}
	case errors.Is(err, pyre.ErrBacktrackLimit):
		return &py.PyError{
			Kind: "MemoryError",
			Msg: fmt.Sprintf(
				"the regular expression %q needs more than %d MB of backtracking stack for this text; simplify it (a lazy .*? spanning a long text backtracks once per character) or match a smaller part of the text",
				r.pattern,
				pyre.BacktrackStack*8>>20,
			),
			Err: py.ErrMemoryLimit,
		}
	}
	return &py.PyError{Kind: "re.error", Msg: err.Error(), Err: err}
}

// find runs re.search (Search), re.match (Anchored) or re.fullmatch (Full)
// on s from byte offset pos; offsets are bytes.
func (r *Regexp) find(thread *starlark.Thread, s string, pos int, mode pyre.Mode) ([]int, error) {
	if r.useBT(s) {
		return r.btFind(thread, s, pos, mode)
	}
	switch mode {
	case pyre.Anchored:
		return r.matchAt(s, pos, false), nil
	case pyre.Full:
		return r.matchAt(s, pos, true), nil
	}
	return r.FindIndex(s, pos), nil
}

// findAllIn is FindAllIndex on the engine that runs s.
func (r *Regexp) findAllIn(thread *starlark.Thread, s string, n int) ([][]int, error) {
	if r.useBT(s) || r.emptyFirst {
		return r.btFindAll(thread, s, n)
	}
	return r.FindAllIndex(s, n), nil
}
