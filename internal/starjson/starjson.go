// Package starjson decodes JSON straight into Starlark values, with the
// semantics of Python's json.loads (internal/pyjson's decoder): objects
// become dicts (input order kept, a repeated key keeping its first
// position and last value), integers ints of any size, other numbers
// floats, NaN and Infinity accepted. No Go copy of the document is built
// on the way, so the sandbox's json.loads and a JSON file loaded as a
// context variable cost only the interpreter's values.
//
// It sits below the sandbox and the context package: it imports only
// internal/pyjson and the Starlark interpreter.
package starjson

import (
	"math/big"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/internal/pyjson"
)

// Options configures [Decode].
type Options struct {
	pyjson.DecodeOptions
}

// maxInterned bounds the distinct object keys that one decoding shares,
// and maxShortInterned the distinct short strings (of at most maxShort
// bytes) among the other values.
const (
	maxInterned      = 1 << 14
	maxShortInterned = 1 << 12
	maxShort         = 16
)

// minShared is the length from which a string of a shared input
// (DecodeOptions.Shared) points into it; shorter ones, and every key or
// short string kept for sharing, are copied. A string pointing into the
// input keeps all of it alive: a list of records with short fields would
// otherwise hold the whole document beside its values (20 MB for 200k
// records whose strings are 3 MB), where a document of long texts is
// mostly those texts anyway.
const minShared = 128

// Decode parses one JSON document into Starlark values: dict, list, str,
// int, float, bool and None. The keys repeated across objects (a list of
// records' "id", "name", ...) share one string value, and so do repeated
// short strings. With
// o.Shared, strings of minShared bytes or more without escapes point into
// data, which must then never change (a Go string's bytes, or a buffer
// handed over); shorter ones are copied, so that they do not keep data
// alive. Errors are
// *pyjson.SyntaxError, or Stop's error.
func Decode(data []byte, o Options) (starlark.Value, error) {
	b := newBuilder(o)
	return pyjson.DecodeWith[starlark.Value](data, b, o.DecodeOptions)
}

// DecodeLines parses JSON Lines (one JSON document per non-blank line)
// into a Starlark list of the lines' values, with Decode's semantics and
// sharing (keys and short strings are shared across lines). Errors are
// *pyjson.SyntaxError naming the line ("JSON Lines record N: ..."), or
// Stop's error.
func DecodeLines(data []byte, o Options) (*starlark.List, error) {
	b := newBuilder(o)
	vals, err := pyjson.DecodeLinesWith[starlark.Value](data, b, o.DecodeOptions)
	if err != nil {
		return nil, err
	}
	return starlark.NewList(vals), nil
}

// builder makes the Starlark values of one decoding.
type builder struct {
	// keys interns object keys: a boxed starlark.String costs an
	// allocation per use, and a list of records repeats the same few.
	keys map[string]starlark.Value
	// short interns short string values (tags, statuses, dates), which
	// records repeat as much as their keys.
	short map[string]starlark.Value
	// shared: the strings handed over may point into the input (see
	// minShared).
	shared bool
}

func newBuilder(o Options) *builder {
	return &builder{keys: make(map[string]starlark.Value), short: make(map[string]starlark.Value), shared: o.Shared}
}

// own returns s, copied if it points into a shared input.
func (b *builder) own(s string) string {
	if b.shared {
		return strings.Clone(s)
	}
	return s
}

func (b *builder) Null() starlark.Value             { return starlark.None }
func (b *builder) Bool(x bool) starlark.Value       { return starlark.Bool(x) }
func (b *builder) Int(i int64) starlark.Value       { return starlark.MakeInt64(i) }
func (b *builder) BigInt(x *big.Int) starlark.Value { return starlark.MakeBigInt(x) }
func (b *builder) Float(f float64) starlark.Value   { return starlark.Float(f) }

func (b *builder) String(s string) starlark.Value {
	if len(s) >= minShared {
		return starlark.String(s)
	}
	if len(s) > maxShort {
		return starlark.String(b.own(s))
	}
	if v, ok := b.short[s]; ok {
		return v
	}
	s = b.own(s)
	v := starlark.Value(starlark.String(s))
	if len(b.short) < maxShortInterned {
		b.short[s] = v
	}
	return v
}

func (b *builder) key(s string) starlark.Value {
	if k, ok := b.keys[s]; ok {
		return k
	}
	if len(s) < minShared {
		s = b.own(s)
	}
	k := starlark.Value(starlark.String(s))
	if len(b.keys) < maxInterned {
		b.keys[s] = k
	}
	return k
}

func (b *builder) Object(keys []string, vals []starlark.Value) (starlark.Value, error) {
	d := starlark.NewDict(len(keys))
	for i, k := range keys {
		if err := d.SetKey(b.key(k), vals[i]); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (b *builder) Array(vals []starlark.Value) (starlark.Value, error) {
	elems := make([]starlark.Value, len(vals))
	copy(elems, vals)
	return starlark.NewList(elems), nil
}

// Values returns a builder of Starlark values boxed as any, with
// Decode's semantics and sharing, for a decoding that makes them beside
// values of its own (the context package outlines a JSON variable's
// document as it makes its interpreter values: rlmctx.LoadOptions.Values).
// Every value it makes is a starlark.Value.
func Values(o Options) pyjson.Builder[any] { return anyBuilder{newBuilder(o)} }

// anyBuilder is builder with its values boxed as any.
type anyBuilder struct{ b *builder }

func (a anyBuilder) Null() any             { return a.b.Null() }
func (a anyBuilder) Bool(x bool) any       { return a.b.Bool(x) }
func (a anyBuilder) Int(i int64) any       { return a.b.Int(i) }
func (a anyBuilder) BigInt(x *big.Int) any { return a.b.BigInt(x) }
func (a anyBuilder) Float(f float64) any   { return a.b.Float(f) }
func (a anyBuilder) String(s string) any   { return a.b.String(s) }

func (a anyBuilder) Object(keys []string, vals []any) (any, error) {
	d := starlark.NewDict(len(keys))
	for i, k := range keys {
		if err := d.SetKey(a.b.key(k), vals[i].(starlark.Value)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (a anyBuilder) Array(vals []any) (any, error) {
	elems := make([]starlark.Value, len(vals))
	for i, v := range vals {
		elems[i] = v.(starlark.Value)
	}
	return starlark.NewList(elems), nil
}
