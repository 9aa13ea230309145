package py

import (
	ebinary "encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/internal/pyre"
)

// Python indexes str by code point; Starlark (and Go) by UTF-8 byte. The
// sandbox presents code points: len, s[i], s[a:b], find/index offsets,
// re match offsets and the helpers' offsets all count code points. ASCII
// text, where both agree, takes a fast path; what a string is (ASCII or
// not, and for non-ASCII text a table of byte offsets every strMarkEvery
// code points) is computed once per large string and cached by its data
// pointer and length (strings are immutable).

// strMarkEvery is the spacing in code points of the byte-offset table.
const strMarkEvery = 64

// strCacheMin is the size from which string facts are cached; smaller
// strings are scanned on each use.
const strCacheMin = 4 << 10

// strCacheSize is how many strings' facts are kept (most recently used).
const strCacheSize = 16

// strFacts describes a string's code points.
type strFacts struct {
	s     string // keeps the data alive so its address is not reused
	ascii bool
	runes int
	marks []int // marks[k] is the byte offset of code point k*strMarkEvery
}

// StrLast is the most recently used entry, checked without the lock.
var StrLast atomic.Pointer[strFacts]

var StrCache struct {
	sync.Mutex
	Entries []*strFacts // most recently used last
}

// IsASCII reports whether s holds only ASCII bytes.
func IsASCII(s string) bool {
	p := unsafe.Pointer(unsafe.StringData(s))
	word := func(off int) uint64 {
		return ebinary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, off))[:])
	}
	i := 0
	// 32 bytes a round, one test of the four words' top bits.
	for ; i+32 <= len(s); i += 32 {
		if (word(i)|word(i+8)|word(i+16)|word(i+24))&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if word(i)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// FactsOf returns the facts of s (nil for an ASCII string).
func FactsOf(s string) *strFacts {
	if len(s) < strCacheMin {
		if IsASCII(s) {
			return nil
		}
		return computeFacts(s)
	}
	if f := StrLast.Load(); f != nil && len(f.s) == len(s) && unsafe.StringData(f.s) == unsafe.StringData(s) {
		if f.ascii {
			return nil
		}
		return f
	}
	StrCache.Lock()
	for i := len(StrCache.Entries) - 1; i >= 0; i-- {
		f := StrCache.Entries[i]
		if len(f.s) == len(s) && unsafe.StringData(f.s) == unsafe.StringData(s) {
			if i != len(StrCache.Entries)-1 {
				copy(StrCache.Entries[i:], StrCache.Entries[i+1:])
				StrCache.Entries[len(StrCache.Entries)-1] = f
			}
			StrCache.Unlock()
			StrLast.Store(f)
			if f.ascii {
				return nil
			}
			return f
		}
	}
	StrCache.Unlock()
	f := &strFacts{s: s, ascii: IsASCII(s)}
	if !f.ascii {
		f = computeFacts(s)
	}
	StrCache.Lock()
	if len(StrCache.Entries) >= strCacheSize {
		copy(StrCache.Entries, StrCache.Entries[1:])
		StrCache.Entries = StrCache.Entries[:len(StrCache.Entries)-1]
	}
	StrCache.Entries = append(StrCache.Entries, f)
	StrCache.Unlock()
	StrLast.Store(f)
	if f.ascii {
		return nil
	}
	return f
}

func computeFacts(s string) *strFacts {
	f := &strFacts{s: s}
	n := 0
	for i := range s {
		if n%strMarkEvery == 0 {
			f.marks = append(f.marks, i)
		}
		n++
	}
	f.runes = n
	return f
}

// byteOffset returns the byte offset of code point k (0 <= k <= runes).
func (f *strFacts) byteOffset(k int) int {
	if k >= f.runes {
		return len(f.s)
	}
	b := f.marks[k/strMarkEvery]
	for r := k % strMarkEvery; r > 0; r-- {
		_, n := utf8.DecodeRuneInString(f.s[b:])
		b += n
	}
	return b
}

// runeOffset returns the number of code points in s[:b].
func (f *strFacts) runeOffset(b int) int {
	if b >= len(f.s) {
		return f.runes
	}
	// The last mark at or before b.
	lo, hi := 0, len(f.marks)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if f.marks[mid] <= b {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo*strMarkEvery + utf8.RuneCountInString(f.s[f.marks[lo]:b])
}

// StrLen returns the length of s in code points, as Python's len.
func StrLen(s string) int {
	if f := FactsOf(s); f != nil {
		return f.runes
	}
	return len(s)
}

// CharOffset converts a byte offset in s to a code point offset (the
// offset Python code uses to slice s).
func CharOffset(s string, byteOffset int) int {
	if byteOffset <= 0 {
		return byteOffset
	}
	if f := FactsOf(s); f != nil {
		return f.runeOffset(byteOffset)
	}
	return byteOffset
}

// ByteOffset converts a code point offset in s (0 <= i <= StrLen(s)) to
// a byte offset.
func ByteOffset(s string, charOffset int) int {
	if charOffset <= 0 {
		return charOffset
	}
	if f := FactsOf(s); f != nil {
		return f.byteOffset(charOffset)
	}
	return min(charOffset, len(s))
}

// PyGetItem is _py_getitem(x, i): x[i] in a read, with str indexed by
// code point (the front-end routes every subscript read here).
func PyGetItem(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 2 || len(kwargs) != 0 {
		return nil, fmt.Errorf("_py_getitem: want 2 arguments")
	}
	return pyIndex(thread, args[0], args[1])
}

// pyIndex is Python's x[y] in a read (the interpreter's subscript hook).
func pyIndex(thread *starlark.Thread, x, y starlark.Value) (starlark.Value, error) {
	switch x := x.(type) {
	case *starlark.List:
		if i, ok := smallInt(y); ok && i >= -x.Len() && i < x.Len() {
			if i < 0 {
				i += x.Len()
			}
			return x.Index(i), nil
		}
	case *starlark.Dict:
		v, found, err := x.Get(y)
		if err != nil {
			return nil, err
		}
		if found {
			return v, nil
		}
		return nil, KeyErr(y)
	case *LazyDict:
		return x.index(y)
	case starlark.String:
		if i, ok := smallInt(y); ok {
			if c, ok := strIndexFast(string(x), i); ok {
				return starlark.ByteString(c), nil
			}
		}
		if f := FactsOf(string(x)); f != nil {
			i, err := starlark.AsInt32(y)
			if s, ok := y.(*sliceObj); ok {
				return pySlice(thread, x, s.start, s.stop, s.step)
			}
			if err != nil {
				return nil, fmt.Errorf("string index: %s", err)
			}
			orig := i
			if i < 0 {
				i += f.runes
			}
			if i < 0 || i >= f.runes {
				return nil, fmt.Errorf("string index %d out of range [%d:%d]", orig, -f.runes, f.runes-1)
			}
			b := f.byteOffset(i)
			if c := f.s[b]; c < utf8.RuneSelf {
				return starlark.ByteString(c), nil
			}
			_, n := utf8.DecodeRuneInString(f.s[b:])
			return x[b : b+n], nil
		}
	case Proxy:
		v, err := Unproxy(thread, x)
		if err != nil {
			return nil, err
		}
		return pyIndex(thread, v, y)
	}
	if s, ok := y.(*sliceObj); ok {
		if _, isMap := x.(starlark.Mapping); !isMap {
			return pySlice(thread, x, s.start, s.stop, s.step)
		}
	}
	if t, ok := x.(*TypeObj); ok && metaOf(t) != nil {
		return metaOf(t).ClassItem(y)
	}
	return getIndex(x, y)
}

// smallInt returns v as an int if it is a starlark.Int that fits.
func smallInt(v starlark.Value) (int, bool) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, false
	}
	n, ok := i.Int64()
	return int(n), ok && n == int64(int(n))
}

// getIndex is Starlark's own x[y] (same behaviour and messages, but a
// missing key is a [KeyErr]).
func getIndex(x, y starlark.Value) (starlark.Value, error) {
	switch x := x.(type) {
	case starlark.Mapping:
		z, found, err := x.Get(y)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, KeyErr(y)
		}
		return z, nil
	case starlark.Indexable:
		n := x.Len()
		i, err := starlark.AsInt32(y)
		if err != nil {
			return nil, fmt.Errorf("%s index: %s", x.Type(), err)
		}
		orig := i
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			if n == 0 {
				return nil, fmt.Errorf("index %d out of range: empty %s", orig, x.Type())
			}
			return nil, fmt.Errorf("%s index %d out of range [%d:%d]", x.Type(), orig, -n, n-1)
		}
		return x.Index(i), nil
	}
	return nil, fmt.Errorf("unhandled index operation %s[%s]", x.Type(), y.Type())
}

// pyGetSlice is _py_getslice(x, lo, hi, step): x[lo:hi:step] in a read
// (None for a missing bound), with str sliced by code point.
func pyGetSlice(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 4 || len(kwargs) != 0 {
		return nil, fmt.Errorf("_py_getslice: want 4 arguments")
	}
	return pySlice(thread, args[0], args[1], args[2], args[3])
}

// pySlice is Python's x[lo:hi:step] in a read (the interpreter's slice
// hook).
func pySlice(thread *starlark.Thread, x, lo, hi, stepv starlark.Value) (starlark.Value, error) {
	if s, ok := x.(starlark.String); ok && stepv == starlark.None {
		if v, ok := strSliceFast(string(s), lo, hi); ok {
			return starlark.String(v), nil
		}
	}
	if _, ok := x.(Proxy); ok {
		var err error
		if x, err = Unproxy(thread, x); err != nil {
			return nil, err
		}
	}
	var f *strFacts
	n := 0
	s, isStr := x.(starlark.String)
	if isStr {
		if f = FactsOf(string(s)); f != nil {
			n = f.runes
		} else {
			n = len(s)
		}
	} else {
		sl, ok := x.(starlark.Sliceable)
		if !ok {
			return nil, fmt.Errorf("invalid slice operand %s", x.Type())
		}
		n = sl.Len()
	}
	start, end, step, err := sliceBounds(lo, hi, stepv, n)
	if err != nil {
		return nil, err
	}
	if f == nil {
		if isStr && step == 1 {
			return s[start:end], nil
		}
		return x.(starlark.Sliceable).Slice(start, end, step), nil
	}
	if step == 1 {
		return s[f.byteOffset(start):f.byteOffset(end)], nil
	}
	runes := []rune(string(s))
	var b strings.Builder
	for i := start; (step > 0 && i < end) || (step < 0 && i > end); i += step {
		b.WriteRune(runes[i])
	}
	return starlark.String(b.String()), nil
}

// strEndScan is how many bytes at an end of a large string (one whose
// facts FactsOf caches) strIndexFast and strSliceFast test for ASCII;
// past it, the cached facts cost less than the test.
const strEndScan = 256

// strEndASCII reports whether the k bytes of s from offset off (at one
// end of s) are ASCII and few enough to test: then the code point
// offsets up to that end are the byte offsets (no byte of a multi-byte
// UTF-8 sequence is ASCII).
func strEndASCII(s string, off, k int) bool {
	return (k <= strEndScan || len(s) < strCacheMin) && IsASCII(s[off:off+k])
}

// strIndexFast returns s[i] (Python's, by code point) when s's bytes up
// to it (i >= 0) or from it (i < 0) are ASCII, without FactsOf's scan of
// the whole of s: ok is false for the rest, errors included.
func strIndexFast(s string, i int) (c byte, ok bool) {
	n := len(s)
	switch {
	case i >= 0 && i < n && strEndASCII(s, 0, i+1):
		return s[i], true
	case i < 0 && -i <= n && strEndASCII(s, n+i, -i):
		return s[n+i], true
	}
	return 0, false
}

// strSliceFast returns s[lo:hi] (Python's, by code point, step 1) when
// the bytes of s that decide the code point offsets are ASCII, without
// FactsOf's scan of the whole of s: s[i:j], s[i:] and s[:j] with i, j >=
// 0 when s is ASCII up to the end bound (j, or i without one), s[-k:] and
// s[:-k] when its last k bytes are. ok is false for the rest.
func strSliceFast(s string, lo, hi starlark.Value) (v string, ok bool) {
	n := len(s)
	i, j := 0, n
	loNone, hiNone := lo == starlark.None, hi == starlark.None
	if !loNone {
		if i, ok = smallInt(lo); !ok {
			return "", false
		}
	}
	if !hiNone {
		if j, ok = smallInt(hi); !ok {
			return "", false
		}
	}
	switch {
	case i >= 0 && j >= 0:
		end := min(j, n)
		if hiNone {
			end = min(i, n)
		}
		if !strEndASCII(s, 0, end) {
			return "", false
		}
		i, j = min(i, n), min(j, n)
		if j <= i {
			return "", true
		}
		return s[i:j], true
	case i < 0 && hiNone:
		k := min(-i, n)
		if !strEndASCII(s, n-k, k) {
			return "", false
		}
		return s[n-k:], true
	case loNone && j < 0:
		k := min(-j, n)
		if !strEndASCII(s, n-k, k) {
			return "", false
		}
		return s[:n-k], true
	}
	return "", false
}

// sliceBounds normalizes slice bounds for a sequence of length n as
// Python does (and Starlark's Sliceable.Slice expects). Bounds of any size
// clamp to the sequence, as in CPython; a step longer than the sequence
// takes one element.
func sliceBounds(lo, hi, stepV starlark.Value, n int) (start, end, step int, err error) {
	step = 1
	if stepV != starlark.None {
		if step, err = sliceIndex(stepV); err != nil {
			return 0, 0, 0, err
		}
		if step == 0 {
			return 0, 0, 0, &PyError{Kind: "ValueError", Msg: "slice step cannot be zero"}
		}
		step = max(-(n + 1), min(step, n+1)) // no overflow stepping past the end
	}
	bound := func(v starlark.Value, dflt, lowest, highest int) (int, error) {
		if v == starlark.None {
			return dflt, nil
		}
		i, err := sliceIndex(v)
		if err != nil {
			return 0, err
		}
		if i < 0 {
			i += n
		}
		return max(lowest, min(i, highest)), nil
	}
	if step > 0 {
		if start, err = bound(lo, 0, 0, n); err != nil {
			return
		}
		if end, err = bound(hi, n, 0, n); err != nil {
			return
		}
		end = max(end, start)
	} else {
		if start, err = bound(lo, n-1, -1, n-1); err != nil {
			return
		}
		if end, err = bound(hi, -1, -1, n-1); err != nil {
			return
		}
		start = max(start, end)
	}
	return start, end, step, nil
}

// sliceIndex converts a slice bound or step to an int, clamping integers
// beyond the int range as CPython clamps them to its ssize_t range.
func sliceIndex(v starlark.Value) (int, error) {
	var i starlark.Int
	switch x := v.(type) {
	case starlark.Int:
		i = x
	case starlark.Bool:
		i = starlark.MakeInt(map[bool]int{true: 1, false: 0}[bool(x)])
	default:
		return 0, &PyError{Kind: "TypeError", Msg: "slice indices must be integers or None or have an __index__ method"}
	}
	if n, ok := i.Int64(); ok && n >= math.MinInt/2 && n <= math.MaxInt/2 {
		return int(n), nil
	}
	// Far beyond any length: half the int range leaves room for i+n.
	if i.Sign() < 0 {
		return math.MinInt / 2, nil
	}
	return math.MaxInt / 2, nil
}

// strFind implements str.find/rfind/index/rindex (and startswith and
// endswith with a start) on non-ASCII text with start/end and the
// resulting offset in code points; for ASCII text it leaves the call to
// Starlark's own method (handled is false).
func strFind(thread *starlark.Thread, s, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, bool, error) {
	if sub, ok := oneStr(args, kwargs); ok && name != "startswith" && name != "endswith" {
		// The rare-byte literal scan, without a call of Starlark's method.
		var i int
		if name == "find" || name == "index" {
			i = pyre.IndexLiteral(s, sub)
		} else {
			i = pyre.LastIndexLiteral(s, sub)
		}
		if i >= 0 || name == "find" || name == "rfind" {
			if f := FactsOf(s); i > 0 && f != nil {
				i = f.runeOffset(i)
			}
			return starlark.MakeInt(i), true, nil
		}
		// index/rindex of a missing substring: the usual error below.
	}
	f := FactsOf(s)
	if f == nil || len(kwargs) != 0 {
		return nil, false, nil
	}
	conv := append(starlark.Tuple(nil), args...)
	for i := 1; i < len(conv) && i < 3; i++ {
		n, ok := smallInt(conv[i])
		if !ok {
			continue
		}
		if n < 0 {
			n = max(n+f.runes, 0)
		}
		conv[i] = starlark.MakeInt(f.byteOffset(min(n, f.runes)))
	}
	m, err := starlark.String(s).Attr(name)
	if err != nil || m == nil {
		return nil, false, err
	}
	v, err := starlark.Call(thread, m, conv, nil)
	if err != nil {
		return nil, true, err
	}
	if i, ok := smallInt(v); ok && i > 0 {
		v = starlark.MakeInt(f.runeOffset(i))
	}
	return v, true, nil
}

// oneStr returns the only argument when the call has exactly one, a str,
// and no keywords.
func oneStr(args starlark.Tuple, kwargs []starlark.Tuple) (string, bool) {
	if len(args) != 1 || len(kwargs) != 0 {
		return "", false
	}
	s, ok := args[0].(starlark.String)
	return string(s), ok
}

// Rlen is the length of s in code points (widths count characters).
func Rlen(s string) int { return utf8.RuneCountInString(s) }
