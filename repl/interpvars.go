package repl

import (
	"fmt"
	"runtime"
	"runtime/metrics"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
	"github.com/rlmhq/rlm/internal/starjson"
	"github.com/rlmhq/rlm/sandbox"
)

// InterpVars makes the interpreter's values of context variables, in
// order. A variable loaded from a JSON document gets the values LoadVar
// made as it outlined the document ([JSONValues], taken once), or else is
// decoded from its text straight into Starlark values, after its Go value
// is released ([rlmctx.Variable.Release]), so the two copies are never
// alive together; a NAME_chunks companion of a list or dict gets pieces
// that share the parent's values. Other variables are converted with
// [sandbox.FromGo].
func InterpVars(vars []*rlmctx.Variable) ([]starlark.Value, error) {
	taken := make(map[*rlmctx.Variable]starlark.Value)
	for _, v := range vars {
		if x, ok := v.TakeValues(); ok {
			if sv, ok := x.(starlark.Value); ok {
				taken[v] = sv
			}
		}
	}
	// Release first: a chunk companion's Go pieces are views of its
	// parent's Go value, which would stay alive through them.
	var docs int64 // the documents to decode
	for _, v := range vars {
		if v.Release() && taken[v] == nil {
			docs += int64(len(v.Document()))
		}
	}
	if docs >= collectAfter && docs >= liveHeap()/4 {
		// Reclaim the released Go values before the decoding allocates as
		// much again: the collector would otherwise wait for the heap to
		// double past them. What is left to mark is mostly the documents'
		// bytes (no pointers), so this costs milliseconds. On a heap much
		// larger than the documents (rlm serve, other runs' values) the
		// collection would mark all of it to reclaim little, and the
		// collector's own pacing bounds the peak as well: skip it.
		runtime.GC()
	}
	made := make(map[*rlmctx.Variable]starlark.Value, len(vars))
	out := make([]starlark.Value, len(vars))
	for i, v := range vars {
		sv, ok := taken[v]
		var err error
		if !ok {
			sv, err = interpVar(v, made)
		}
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", v.Name, err)
		}
		made[v] = sv
		out[i] = sv
	}
	return out, nil
}

// JSONValues is what [rlmctx.LoadOptions].Values takes to make a JSON
// variable's interpreter values in the pass that outlines its document,
// for a caller that makes a REPL of the variables next (rlm exec, rlm
// run, rlm serve's "store:KEY" variables): InterpVars then takes them
// instead of decoding the document again, and a summary decodes only the
// document's head.
func JSONValues() pyjson.Builder[any] {
	return starjson.Values(starjson.Options{DecodeOptions: pyjson.DecodeOptions{Shared: true}})
}

// collectAfter is the size of released documents past which InterpVars
// collects the garbage before decoding them.
const collectAfter = 32 << 20

// liveHeap is the heap the last garbage collection found live (no
// collection is made to read it).
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

func interpVar(v *rlmctx.Variable, made map[*rlmctx.Variable]starlark.Value) (starlark.Value, error) {
	if parent, ends, ok := v.Chunks(); ok {
		if p, ok := made[parent]; ok {
			if sv, ok := starPieces(p, ends); ok {
				return sv, nil
			}
		}
	}
	if doc := v.Document(); doc != nil {
		o := starjson.Options{DecodeOptions: pyjson.DecodeOptions{Shared: true, Source: v.Source}}
		if v.DocumentLines() {
			return starjson.DecodeLines(doc, o)
		}
		return starjson.Decode(doc, o)
	}
	return sandbox.FromGo(v.GoValue())
}

// starPieces cuts a Starlark list or dict into a list of the pieces
// ending at ends (see [rlmctx.Variable.Chunks]), sharing its items.
func starPieces(v starlark.Value, ends []int) (starlark.Value, bool) {
	n := 0
	if len(ends) > 0 {
		n = ends[len(ends)-1]
	}
	out := make([]starlark.Value, 0, len(ends))
	switch x := v.(type) {
	case *starlark.List:
		if x.Len() != n {
			return nil, false
		}
		start := 0
		for _, end := range ends {
			elems := make([]starlark.Value, end-start)
			for i := range elems {
				elems[i] = x.Index(start + i)
			}
			out = append(out, starlark.NewList(elems))
			start = end
		}
	case *starlark.Dict:
		if x.Len() != n {
			return nil, false
		}
		i, piece := 0, 0
		var d *starlark.Dict
		for k, e := range x.Entries() {
			if d == nil {
				start := 0
				if piece > 0 {
					start = ends[piece-1]
				}
				d = starlark.NewDict(ends[piece] - start)
			}
			if err := d.SetKey(k, e); err != nil {
				return nil, false
			}
			i++
			if i == ends[piece] {
				out = append(out, d)
				d, piece = nil, piece+1
			}
		}
	default:
		return nil, false
	}
	return starlark.NewList(out), true
}
