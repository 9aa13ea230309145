package sandbox

import (
	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// Values as the host sees them: rendered as CPython prints them, converted
// to and from Go, measured by code point. The value layer itself is
// sandbox/internal/py.

// MaxRenderDepth (1000) is how deeply nested containers [Repr], [Str] and the
// other walks of a value (==, <, json, copy, conversion to Go) go; Python
// code gets a RecursionError beyond it (or beyond the step's recursion
// limit, if lower), as CPython does past its recursion limit.
const MaxRenderDepth = py.MaxRenderDepth

// Repr returns the CPython repr() of v: strings in single quotes with
// CPython's escapes, floats in shortest round-trip form, containers
// rendered recursively ([1, 'a'], {'k': (1,)}, True, None). Proxies render
// their target, waiting for it if pending.
//
// Containers nested deeper than [MaxRenderDepth] render as "...", so the
// rendering of any value is bounded in depth (Python code gets a
// RecursionError there instead). It is bounded in time too: past about
// sixteen million values (a value shared at every level of its nesting
// counts each time it appears) the rendering stops and ends with "...".
func Repr(v starlark.Value) string { return py.Repr(v) }

// Str returns the CPython str() of v: strings unquoted, other values as
// Repr, bounded as Repr is.
func Str(v starlark.Value) string { return py.Str(v) }

// StrOn is Str(v) rendered for the step running on thread: when the step
// is stopped (time or memory limit, cancellation) the rendering stops too
// and StrOn returns what it has, so rendering a huge or exponentially
// shared value cannot outlive its step.
func StrOn(thread *starlark.Thread, v starlark.Value) string { return py.StrOn(thread, v) }

// StrLimit returns Str(v) cut to at most max bytes (at a UTF-8 boundary),
// without rendering much more of a large container than it keeps.
func StrLimit(v starlark.Value, max int) string { return py.StrLimit(v, max) }

// ReprLimit returns Repr(v) cut as [StrLimit] cuts Str(v).
func ReprLimit(v starlark.Value, max int) string { return py.ReprLimit(v, max) }

// TypeName returns the Python type name of v, as type(v).__name__ gives it.
func TypeName(v starlark.Value) string { return py.TypeName(v) }

// Proxy is a value that stands for another value, such as a deferred
// future. print, str, repr, [ToGo] and the Python builtins use its target.
// ProxyTarget waits for the target if it is pending; thread may be nil
// (then it waits without cancellation) and is otherwise the calling thread.
type Proxy = py.Proxy

// Unproxy returns v's target if v is a Proxy (recursively), else v.
func Unproxy(thread *starlark.Thread, v starlark.Value) (starlark.Value, error) {
	return py.Unproxy(thread, v)
}

// FromGo converts a Go value of the rlmctx value kinds (string, bool, nil,
// int, int64, *big.Int, float64, []any, *pyjson.Dict, plus []string,
// map[string]any with sorted keys, and starlark.Value) to a Starlark value.
// Strings are not copied; dict order is kept.
func FromGo(v any) (starlark.Value, error) { return py.FromGo(v) }

// ToGo converts a Starlark value to the rlmctx value kinds: None -> nil,
// bool, int -> int64 (or *big.Int), float64, str -> string, list/tuple/set
// -> []any, dict -> *pyjson.Dict (keys rendered with str() when not
// strings). Proxies convert their target. A value that contains itself is
// a ValueError and one nested deeper than [MaxRenderDepth] a
// RecursionError (both [*PyError]).
//
// ToGo is bounded in time as well as depth: past about sixteen million
// values (a value shared at every level counts each time it appears) it
// fails with a MemoryError. Builtins converting a value for the step
// running on a thread call [ToGoOn], which stops with the step instead.
func ToGo(v starlark.Value) (any, error) { return py.ToGo(v) }

// ToGoOn is [ToGo] for the step running on thread: the conversion stops
// with the step's error when a limit (time, memory) or the caller stops
// the step, within milliseconds, however large or shared the value.
func ToGoOn(thread *starlark.Thread, v starlark.Value) (any, error) { return py.ToGoOn(thread, v) }

// LazyDict is a dict whose entries a compact Go value ([DictFields])
// computes when they are read, for builtins that return many small
// records (search() hits): a record costs its Go value instead of a hash
// table and its strings. To model code it is a dict in every way. Embed it
// in the Go value and call Init with that value; the value must not change
// its entries afterwards.
type LazyDict = py.LazyDict

// DictFields computes the entries of a [LazyDict]: a few str keys, in
// order, whose values are made when they are read.
type DictFields = py.DictFields

// StrLen returns the length of s in code points, as Python's len.
func StrLen(s string) int { return py.StrLen(s) }

// CharOffset converts a byte offset in s to a code point offset (the
// offset Python code uses to slice s).
func CharOffset(s string, byteOffset int) int { return py.CharOffset(s, byteOffset) }

// ByteOffset converts a code point offset in s (0 <= i <= StrLen(s)) to
// a byte offset.
func ByteOffset(s string, charOffset int) int { return py.ByteOffset(s, charOffset) }
