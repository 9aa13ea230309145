package sandbox

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/resolve"
	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"
	"github.com/rlmhq/rlm/sandbox/internal/pyfront"
)

// stepFilePrefix starts the file name of each step's code in positions
// ("<step 3>"); sources are kept per step so that tracebacks through
// functions defined in earlier steps show the right source lines.
const stepFilePrefix = "<step "

func stepFile(n int) string { return fmt.Sprintf("%s%d>", stepFilePrefix, n) }

// syntaxError converts a parse or resolve error into a *ScriptError.
func syntaxError(err error, code string) *ScriptError {
	var se syntax.Error
	if errors.As(err, &se) {
		return newScriptError("SyntaxError", se.Msg, int(se.Pos.Line), err, code, nil)
	}
	var re resolve.ErrorList
	if errors.As(err, &re) && len(re) > 0 {
		e := re[0]
		kind, msg := "SyntaxError", e.Msg
		if name, ok := strings.CutPrefix(e.Msg, "undefined: "); ok {
			kind = "NameError"
			if i := strings.Index(name, " (did you mean "); i >= 0 {
				msg = fmt.Sprintf(
					"name '%s' is not defined. Did you mean: '%s'?",
					name[:i],
					strings.TrimSuffix(name[i+len(" (did you mean "):], "?)"),
				)
			} else {
				msg = fmt.Sprintf("name '%s' is not defined", name)
			}
		}
		return newScriptError(kind, msg, int(e.Pos.Line), err, code, nil)
	}
	var pe *PyError
	if errors.As(err, &pe) {
		return newScriptError(pe.Kind, pe.Msg, 0, err, code, nil)
	}
	return newScriptError("SyntaxError", err.Error(), 0, err, code, nil)
}

// tbFrame is one traceback entry.
type tbFrame struct {
	line int
	name string
	src  string // the source line, if known
}

// sourceLine returns line n of the code of the step named fname.
func (st *step) sourceLine(fname string, n int) string {
	code := st.code
	if fname != st.file {
		code = st.sess.sources[fname]
	}
	lines := strings.Split(code, "\n")
	if n > 0 && n <= len(lines) {
		return strings.TrimSpace(lines[n-1])
	}
	return ""
}

// qualifiedKinds names the exception classes of modules as CPython's
// traceback does (module.qualname; ScriptError.Kind keeps the short name).
var qualifiedKinds = map[string]string{
	"JSONDecodeError":     "json.decoder.JSONDecodeError",
	"StatisticsError":     "statistics.StatisticsError",
	"csv.Error":           "_csv.Error",
	"FrozenInstanceError": "dataclasses.FrozenInstanceError",
}

func newScriptError(kind, msg string, line int, err error, code string, frames []tbFrame) *ScriptError {
	lines := strings.Split(code, "\n")
	if len(frames) == 0 && line > 0 {
		frames = []tbFrame{{line: line, name: "<module>"}}
		if line <= len(lines) {
			frames[0].src = strings.TrimSpace(lines[line-1])
		}
	}
	var b strings.Builder
	if kind == "SyntaxError" {
		if line > 0 && line <= len(lines) {
			fmt.Fprintf(&b, "  line %d\n    %s\n", line, strings.TrimSpace(lines[line-1]))
		}
	} else {
		b.WriteString("Traceback (most recent call last):\n")
		for _, f := range frames {
			if f.line < 0 {
				fmt.Fprintf(&b, "  %s\n", f.name)
				continue
			}
			fmt.Fprintf(&b, "  line %d, in %s\n", f.line, f.name)
			if f.src != "" {
				fmt.Fprintf(&b, "    %s\n", f.src)
			}
		}
	}
	if q, ok := qualifiedKinds[kind]; ok {
		b.WriteString(q)
	} else {
		b.WriteString(kind)
	}
	msg = cutErrorMsg(msg)
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	return &ScriptError{Kind: kind, Msg: msg, Line: line, Traceback: b.String(), Err: err}
}

// maxErrorMsg bounds an exception's message in a traceback: raise
// ValueError('x' * 10**8) must not make a 100 MB error line (outputs are
// cut the same way).
const maxErrorMsg = 16 << 10

// cutErrorMsg keeps the head and tail of a message longer than
// maxErrorMsg, the cut marked.
func cutErrorMsg(msg string) string {
	if len(msg) <= maxErrorMsg {
		return msg
	}
	head, tail := trimRuneEnd(msg[:maxErrorMsg*3/4]), trimRuneStart(msg[len(msg)-maxErrorMsg/4:])
	return head + fmt.Sprintf(" [... %d bytes of the message cut ...] ", len(msg)-len(head)-len(tail)) + tail
}

// scriptError converts an execution error into a *ScriptError.
func (st *step) scriptError(err error, code string) *ScriptError {
	var se *ScriptError
	if errors.As(err, &se) {
		return se
	}
	if code == "" {
		code = st.code
	}
	var rerr resolve.ErrorList
	if errors.As(err, &rerr) {
		return syntaxError(err, code)
	}
	var frames []tbFrame
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		var callerIn []pyfront.GenExpr // the spans the caller's frame is in
		for i, fr := range ee.CallStack {
			fname := fr.Pos.Filename()
			if !strings.HasPrefix(fname, stepFilePrefix) {
				continue
			}
			name := fr.Name
			if name == "<toplevel>" {
				name = "<module>"
			}
			folded := name == "lambda" && i > 0 && ee.CallStack[i-1].Name == "_py_fold"
			if folded {
				name = "<genexpr>" // the front end's lambda around any(x for ...)
			}
			if name == "lambda" && len(frames) > 0 && frames[len(frames)-1].line == int(fr.Pos.Line) {
				continue // the front-end's wrapper of a statement inside try
			}
			// A position inside any(x for ...) run inline: the frame
			// at the call, then <genexpr>'s (innermost last); not for
			// the lambda of _py_fold (any of the user's) nor for a
			// lambda defined inside the generator and called from it.
			var in []pyfront.GenExpr
			if !folded {
				gs := st.sess.genexprs[fname]
				for j := len(gs) - 1; j >= 0; j-- { // an outer one after the ones inside it
					if g := gs[j]; g.Contains(fr.Pos) && !(name == "lambda" && slices.Contains(callerIn, g)) {
						frames = append(frames, tbFrame{line: int(g.Call.Line), name: name, src: st.sourceLine(fname, int(g.Call.Line))})
						name = "<genexpr>"
						in = append(in, g)
					}
				}
			}
			callerIn = in
			frames = append(frames, tbFrame{line: int(fr.Pos.Line), name: name, src: st.sourceLine(fname, int(fr.Pos.Line))})
		}
	}
	var kind, msg string
	if limit := st.limitErr(); limit != nil {
		kind, msg = limitKind(limit, err)
		err = &limitError{limit: limit, err: err}
	} else {
		kind, msg = classify(err)
	}
	if kind == "RecursionError" && len(frames) > 1 {
		frames = frames[:len(frames)-1] // the call refused at the def line
	}
	line := 0
	if len(frames) > 0 {
		line = frames[len(frames)-1].line
	}
	frames = collapseFrames(frames)
	if st.prog != nil && line > 0 {
		for _, r := range st.prog.InnerTry {
			if r.Contains(line) && st.catchable(err) {
				msg += fmt.Sprintf(
					" (raised inside the try at line %d: exception handling inside functions and loops is not supported here, so the handler did not run; check before the risky call instead, e.g. `if key in d:` or `if s.isdigit():`)",
					r.Line,
				)
				break
			}
		}
	}
	return newScriptError(kind, msg, line, err, code, frames)
}

// collapseFrames replaces runs of identical frames (deep recursion) with
// CPython's "[Previous line repeated N more times]" marker.
func collapseFrames(frames []tbFrame) []tbFrame {
	var out []tbFrame
	for i := 0; i < len(frames); {
		j := i
		for j < len(frames) && frames[j] == frames[i] {
			j++
		}
		n := j - i
		if n > 3 {
			out = append(
				out,
				frames[i],
				frames[i],
				frames[i],
				tbFrame{line: -1, name: fmt.Sprintf("[Previous line repeated %d more times]", n-3)},
			)
		} else {
			out = append(out, frames[i:j]...)
		}
		i = j
	}
	if len(out) > 12 {
		out = append(append(out[:4:4], tbFrame{line: -1, name: fmt.Sprintf("[%d frames omitted]", len(out)-8)}), out[len(out)-4:]...)
	}
	return out
}

// limitError wraps the cancellation error with the limit sentinel.
type limitError struct {
	limit error
	err   error
}

func (e *limitError) Error() string   { return e.err.Error() }
func (e *limitError) Unwrap() []error { return []error{e.limit, e.err} }

func limitKind(limit, err error) (string, string) {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "Starlark computation cancelled: ")
	switch limit {
	case ErrMemoryLimit, ErrSessionMemoryLimit:
		return "MemoryError", strings.TrimPrefix(msg, "MemoryError: ")
	case ErrRecursionLimit:
		return "RecursionError", "maximum recursion depth exceeded"
	case ErrTimeout, ErrStepLimit:
		return "TimeoutError", msg
	case ErrCanceled:
		return "KeyboardInterrupt", msg
	case ErrOutputLimit:
		var pe *PyError
		if errors.As(err, &pe) && pe.Kind == "OutputLimitError" {
			return pe.Kind, pe.Msg
		}
		return "OutputLimitError", strings.TrimPrefix(msg, ErrOutputLimit.Error()+": ")
	}
	return "RuntimeError", msg
}

var (
	reKeyNotIn    = regexp.MustCompile(`^key (.*) not in (dict|mapping)$`)
	reNotImpl     = regexp.MustCompile(`^(\w+) (<|<=|>|>=) (\w+) not implemented$`)
	reIntRange    = regexp.MustCompile(`-?\d+ out of range \(want value in (?:un)?signed \d+-bit range\)`)
	reUnknownBin  = regexp.MustCompile(`^unknown binary op: (\w+) (\S+) (\w+)$`)
	reNoAttr      = regexp.MustCompile(`^(\w+) has no \.(\w+) field or method`)
	reNotCallable = regexp.MustCompile(`^invalid call of non-function \((\w+)\)$`)
	reSeqAssign   = regexp.MustCompile(`^got (\w+) in sequence assignment$`)
	reUnpack      = regexp.MustCompile(`^too (many|few) values to unpack \(got (-?\d+), want (\d+)\)$`)
	reIndexType   = regexp.MustCompile(`^(\w+) index: got (\w+), want int`)
	reUnhashable  = regexp.MustCompile(`unhashable type: (\w+)$`)
	reNoAssign    = regexp.MustCompile(`^(\w+) value does not support item assignment`)
	reUnbound     = regexp.MustCompile(`^(global|local) variable (\w+) referenced before assignment`)
	reFnMissing   = regexp.MustCompile(`^function (\w+) missing (\d+) arguments? \((.*)\)$`)
	reFnTooMany   = regexp.MustCompile(`^function (\w+) accepts (?:at most )?(\d+) positional arguments? \((\d+) given\)$`)
	reFnKeyword   = regexp.MustCompile(`^function (\w+) got an unexpected keyword argument "?(\w+)"?$`)
	reFnMultiple  = regexp.MustCompile(`^function (\w+) got multiple values for parameter "?(\w+)"?$`)
	// ord's errors: "string encodes 2 Unicode code points, want 1", "bytes
	// has length 2, want 1", "got int, want string or bytes".
	reOrd          = regexp.MustCompile(`^ord: (?:string encodes|bytes has length|(got)) (\w+)(?: Unicode code points)?, want`)
	reSetField     = regexp.MustCompile(`^can't assign to \.(\w+) field of (\w+)$`)
	reUnknownUnary = regexp.MustCompile(`^unknown unary op: (\S+) (\w+)$`)
	reStartsWith   = regexp.MustCompile(`^(startswith|endswith): got (\w+), want string or tuple of string`)
)

// isSeq reports whether a Python type name is a sequence that * repeats.
func isSeq(t string) bool { return t == "str" || t == "list" || t == "tuple" || t == "bytes" }

// pyCallError renders Starlark's argument-binding errors of a def call as
// CPython's TypeError messages ("f() missing 1 required positional
// argument: 'x'"); ok is false for other messages.
func pyCallError(msg string) (string, bool) {
	if m := reFnMissing.FindStringSubmatch(msg); m != nil {
		names := strings.Split(m[3], ", ")
		for i, n := range names {
			names[i] = "'" + n + "'"
		}
		list := names[0]
		if len(names) > 1 {
			list = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
		}
		plural := "s"
		if m[2] == "1" {
			plural = ""
		}
		return fmt.Sprintf("%s() missing %s required positional argument%s: %s", m[1], m[2], plural, list), true
	}
	if m := reFnTooMany.FindStringSubmatch(msg); m != nil {
		plural, verb := "s", "were"
		if m[2] == "1" {
			plural = ""
		}
		if m[3] == "1" {
			verb = "was"
		}
		return fmt.Sprintf("%s() takes %s positional argument%s but %s %s given", m[1], m[2], plural, m[3], verb), true
	}
	if m := reFnKeyword.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s() got an unexpected keyword argument '%s'", m[1], m[2]), true
	}
	if m := reFnMultiple.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s() got multiple values for argument '%s'", m[1], m[2]), true
	}
	return "", false
}

// classify maps a Starlark error message to a Python exception kind and message.
func classify(err error) (string, string) {
	var pe *PyError
	if errors.As(err, &pe) {
		return pe.Kind, pe.Msg
	}
	msg := err.Error()
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		msg = ee.Msg
	}
	// Builtin errors are prefixed with the builtin name: "int: invalid literal".
	inner := msg
	if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
		inner = msg[i+2:]
	}
	if m, ok := pyCallError(msg); ok {
		return "TypeError", m
	}
	switch {
	case strings.HasPrefix(inner, "invalid slice operand "):
		// A slice of a value that has none: CPython's TypeError.
		t := pyTypeName(strings.TrimPrefix(inner, "invalid slice operand "))
		if t == "dict" {
			return "TypeError", "unhashable type: 'slice'"
		}
		return "TypeError", fmt.Sprintf("'%s' object is not subscriptable", t)
	case reUnhandledIndex.MatchString(inner):
		return "TypeError", fmt.Sprintf("'%s' object is not subscriptable", pyTypeName(reUnhandledIndex.FindStringSubmatch(inner)[1]))
	case inner == "Starlark stack overflow":
		// Recursion through lambdas, which the per-def recursion limit
		// does not count, ends at the interpreter's own stack bound.
		return "RecursionError", "maximum recursion depth exceeded"
	case strings.Contains(inner, "comparison exceeded maximum recursion depth"):
		return "RecursionError", "maximum recursion depth exceeded in comparison"
	case errors.Is(err, starlark.ErrNestingLimit) || strings.Contains(inner, starlark.ErrNestingLimit.Error()):
		return "RecursionError", "maximum recursion depth exceeded while calling a Python object"
	case reUnbound.MatchString(msg):
		m := reUnbound.FindStringSubmatch(msg)
		if m[1] == "global" {
			return "NameError", fmt.Sprintf("name '%s' is not defined", m[2])
		}
		return "UnboundLocalError", fmt.Sprintf("cannot access local variable '%s' where it is not associated with a value", m[2])
	case reIndexType.MatchString(inner):
		m := reIndexType.FindStringSubmatch(inner)
		if m[1] == "string" {
			return "TypeError", fmt.Sprintf("string indices must be integers, not '%s'", pyTypeName(m[2]))
		}
		return "TypeError", fmt.Sprintf("%s indices must be integers or slices, not %s", pyTypeName(m[1]), pyTypeName(m[2]))
	case reOrd.MatchString(msg):
		m := reOrd.FindStringSubmatch(msg)
		if m[1] == "got" {
			return "TypeError", fmt.Sprintf("ord() expected string of length 1, but %s found", pyTypeName(m[2]))
		}
		return "TypeError", fmt.Sprintf("ord() expected a character, but string of length %s found", m[2])
	case msg == "range: step argument must not be zero":
		return "ValueError", "range() arg 3 must not be zero"
	case reSetField.MatchString(inner):
		// x.name = v on a value without settable attributes.
		m := reSetField.FindStringSubmatch(inner)
		return "AttributeError", fmt.Sprintf("'%s' object has no attribute '%s'", pyTypeName(m[2]), m[1])
	case reUnknownUnary.MatchString(inner):
		m := reUnknownUnary.FindStringSubmatch(inner)
		return "TypeError", fmt.Sprintf("bad operand type for unary %s: '%s'", m[1], pyTypeName(m[2]))
	case reStartsWith.MatchString(msg):
		m := reStartsWith.FindStringSubmatch(msg)
		return "TypeError", fmt.Sprintf("%s first arg must be str or a tuple of str, not %s", m[1], pyTypeName(m[2]))
	case reUnhashable.MatchString(inner):
		m := reUnhashable.FindStringSubmatch(inner)
		return "TypeError", fmt.Sprintf("unhashable type: '%s'", pyTypeName(m[1]))
	case reNoAssign.MatchString(inner):
		m := reNoAssign.FindStringSubmatch(inner)
		return "TypeError", fmt.Sprintf("'%s' object does not support item assignment", pyTypeName(m[1]))
	case strings.HasPrefix(msg, "pop: empty set"):
		return "KeyError", "'pop from an empty set'"
	case strings.HasPrefix(msg, "popitem: empty dict"):
		return "KeyError", "'popitem(): dictionary is empty'"
	case strings.HasPrefix(msg, "pop: missing key"):
		return "KeyError", "key not found (use d.pop(key, default) to avoid the error)"
	case reKeyNotIn.MatchString(inner):
		m := reKeyNotIn.FindStringSubmatch(inner)
		key := m[1]
		if s, err := strconv.Unquote(key); err == nil && strings.HasPrefix(key, `"`) {
			key = Repr(starlark.String(s))
		}
		return "KeyError", key
	case reNotImpl.MatchString(inner):
		m := reNotImpl.FindStringSubmatch(inner)
		return "TypeError", fmt.Sprintf("'%s' not supported between instances of '%s' and '%s'", m[2], pyTypeName(m[1]), pyTypeName(m[3]))
	case strings.HasPrefix(inner, "repeat count ") && strings.HasSuffix(inner, " too large"):
		return "OverflowError", "cannot fit 'int' into an index-sized integer"
	case reIntRange.MatchString(inner):
		// An int argument beyond what a builtin takes (Starlark's AsInt32
		// and UnpackArgs): CPython's OverflowError for a C-sized argument.
		return "OverflowError", "Python int too large to convert to C ssize_t"
	case strings.Contains(inner, "out of range"), strings.Contains(inner, "index out of"):
		if strings.HasPrefix(msg, "pop: ") {
			if strings.HasSuffix(inner, "out of range: empty list") {
				return "IndexError", "pop from empty list"
			}
			return "IndexError", "pop index out of range"
		}
		return "IndexError", pyIndexMsg(inner)
	case strings.HasSuffix(inner, "too large to convert to float"), strings.HasSuffix(inner, "result too large for a float"):
		// int / int and int-float arithmetic past the float range
		return "OverflowError", inner
	case strings.HasPrefix(inner, "negative shift count: "):
		return "ValueError", "negative shift count"
	case inner == "float division by zero", inner == "float floor division by zero", inner == "float modulo":
		return "ZeroDivisionError", inner
	case strings.Contains(inner, "division by zero"), strings.Contains(inner, "modulo by zero"):
		if strings.Contains(inner, "integer") || strings.Contains(inner, "floored") || strings.Contains(inner, "modulo") {
			return "ZeroDivisionError", "integer division or modulo by zero"
		}
		return "ZeroDivisionError", "division by zero"
	case reUnknownBin.MatchString(inner):
		m := reUnknownBin.FindStringSubmatch(inner)
		l, op, r := pyTypeName(m[1]), m[2], pyTypeName(m[3])
		if op == "+" && (l == "str" || l == "list" || l == "tuple") && l != r {
			return "TypeError", fmt.Sprintf("can only concatenate %s (not \"%s\") to %s", l, r, l)
		}
		if op == "*" && (isSeq(l) || isSeq(r)) {
			return "TypeError", fmt.Sprintf(
				"can't multiply sequence by non-int of type '%s'",
				map[bool]string{true: r, false: l}[isSeq(l)],
			)
		}
		if op == "in" || op == "not in" {
			return "TypeError", fmt.Sprintf("argument of type '%s' is not iterable", r)
		}
		return "TypeError", fmt.Sprintf("unsupported operand type(s) for %s: '%s' and '%s'", op, l, r)
	case reNoAttr.MatchString(inner):
		m := reNoAttr.FindStringSubmatch(inner)
		return "AttributeError", fmt.Sprintf("'%s' object has no attribute '%s'", pyTypeName(m[1]), m[2])
	case reNotCallable.MatchString(inner):
		m := reNotCallable.FindStringSubmatch(inner)
		return "TypeError", fmt.Sprintf("'%s' object is not callable", pyTypeName(m[1]))
	case reSeqAssign.MatchString(inner):
		m := reSeqAssign.FindStringSubmatch(inner)
		return "TypeError", fmt.Sprintf("cannot unpack non-iterable %s object", pyTypeName(m[1]))
	case reUnpack.MatchString(inner):
		// Starlark's sequence assignment: CPython's wording.
		m := reUnpack.FindStringSubmatch(inner)
		if m[1] == "many" {
			return "ValueError", fmt.Sprintf("too many values to unpack (expected %s)", m[3])
		}
		return "ValueError", fmt.Sprintf("not enough values to unpack (expected %s, got %s)", m[3], m[2])
	case strings.Contains(inner, "invalid literal"), strings.Contains(inner, "could not convert"),
		strings.Contains(inner, "not in list"), strings.Contains(inner, "substring not found"),
		strings.Contains(inner, "empty separator"), strings.Contains(inner, "arg is an empty sequence"),
		strings.Contains(inner, "too many values to unpack"), strings.Contains(inner, "too few values to unpack"),
		strings.Contains(inner, "not enough values"):
		return "ValueError", inner
	case strings.Contains(inner, "too many steps"):
		return "TimeoutError", inner
	case strings.Contains(inner, "frozen"), strings.Contains(inner, "during iteration"):
		return "RuntimeError", inner
	case strings.Contains(inner, "not iterable"), strings.Contains(inner, "not callable"),
		strings.Contains(inner, "missing argument"), strings.Contains(inner, "unexpected keyword"),
		strings.Contains(inner, "got multiple values"), strings.Contains(inner, "accepts no"),
		strings.Contains(inner, "takes exactly"), strings.Contains(inner, "takes at most"),
		strings.Contains(inner, "takes at least"), strings.Contains(inner, "got ") && strings.Contains(inner, "want "),
		strings.Contains(inner, "unhashable"), strings.Contains(inner, "not supported"),
		strings.Contains(inner, "unknown unary op"), strings.Contains(inner, "not subscriptable"),
		strings.Contains(inner, "for parameter"), strings.Contains(inner, "unsupported"),
		strings.HasPrefix(inner, "cannot "), strings.Contains(inner, "non-function"):
		return "TypeError", msg
	case strings.Contains(inner, "has no ") && strings.Contains(inner, "field or method"):
		return "AttributeError", inner
	}
	return "Error", msg
}

func pyIndexMsg(msg string) string {
	switch {
	case strings.Contains(msg, "string"):
		return "string index out of range"
	case strings.Contains(msg, "tuple"):
		return "tuple index out of range"
	case strings.HasPrefix(msg, "range index"), strings.HasSuffix(msg, "empty range"):
		return "range object index out of range"
	}
	return "list index out of range"
}

// reUnhandledIndex matches the interpreter's error for x[i] on a value
// that cannot be indexed: "unhandled index operation int[int]".
var reUnhandledIndex = regexp.MustCompile(`^unhandled index operation ([A-Za-z_.]+)\[`)

// pyTypeName maps a Starlark type name to the Python one.
func pyTypeName(t string) string {
	switch t {
	case "string":
		return "str"
	case "lazy_dict": // LazyDict
		return "dict"
	case "NoneType", "int", "float", "bool", "list", "dict", "tuple", "set", "bytes":
		return t
	case "builtin_function_or_method":
		return t
	}
	return t
}
