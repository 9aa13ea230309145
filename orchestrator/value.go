package orchestrator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
)

// MarshalValue encodes a context value (string, bool, nil, int64, *big.Int,
// float64, []any, *rlmctx.Dict) as JSON with pyjson.Encode (Python's
// json.dumps rules, dict key order kept), except that NaN and infinities
// become null so that the result is strict JSON (it is embedded in the
// trajectory and in rlm run --json).
func MarshalValue(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := pyjson.Encode(&b, finite(v)); err != nil {
		return nil, fmt.Errorf("orchestrator: encoding %T as JSON: %w", v, err)
	}
	return b.Bytes(), nil
}

// finite returns v with every NaN or infinite float replaced by nil; v
// itself is returned (not copied) when it holds none.
func finite(v any) any {
	if !hasNonFinite(v, 0) {
		return v
	}
	return replaceNonFinite(v)
}

func hasNonFinite(v any, depth int) bool {
	if depth > 10000 {
		return false // EncodeJSON reports the depth
	}
	switch x := v.(type) {
	case float64:
		return math.IsNaN(x) || math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if hasNonFinite(e, depth+1) {
				return true
			}
		}
	case *rlmctx.Dict:
		if x == nil {
			return false
		}
		for _, k := range x.Keys() {
			if e, _ := x.Get(k); hasNonFinite(e, depth+1) {
				return true
			}
		}
	}
	return false
}

func replaceNonFinite(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = replaceNonFinite(e)
		}
		return out
	case *rlmctx.Dict:
		if x == nil {
			return x
		}
		out := rlmctx.NewDict(x.Len())
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			out.Set(k, replaceNonFinite(e))
		}
		return out
	}
	return v
}

// answerText renders the primary answer of a SUBMIT: the "answer" field (or
// the first field) as text; strings are printed as is, others as JSON.
func answerText(out *rlmctx.Dict) string {
	if out == nil || out.Len() == 0 {
		return ""
	}
	v, ok := out.Get("answer")
	if !ok {
		v, _ = out.Get(out.Keys()[0])
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := MarshalValue(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
