package orchestrator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	rlmctx "github.com/rlmhq/rlm/context"
)

// MarshalValue encodes a context value (string, bool, nil, int64, *big.Int,
// float64, []any, *rlmctx.Dict) as JSON, keeping dict key order.
func MarshalValue(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		enc, _ := json.Marshal(x)
		b.Write(enc)
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case *big.Int:
		b.WriteString(x.String())
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null")
		} else {
			enc, _ := json.Marshal(x)
			b.Write(enc)
		}
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *rlmctx.Dict:
		b.WriteByte('{')
		if x != nil {
			for i, k := range x.Keys() {
				if i > 0 {
					b.WriteByte(',')
				}
				enc, _ := json.Marshal(k)
				b.Write(enc)
				b.WriteByte(':')
				e, _ := x.Get(k)
				if err := writeJSON(b, e); err != nil {
					return err
				}
			}
		}
		b.WriteByte('}')
	default:
		enc, err := json.Marshal(x)
		if err != nil {
			return fmt.Errorf("orchestrator: cannot encode %T as JSON: %w", v, err)
		}
		b.Write(enc)
	}
	return nil
}

// valueFromJSON decodes JSON into context values (objects as *rlmctx.Dict
// in key order, integers as int64).
func valueFromJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeJSON(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func decodeJSON(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := rlmctx.NewDict(4)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				d.Set(k, v)
			}
			_, err := dec.Token()
			return d, err
		case '[':
			var l []any
			for dec.More() {
				v, err := decodeJSON(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			if l == nil {
				l = []any{}
			}
			_, err := dec.Token()
			return l, err
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		if bi, ok := new(big.Int).SetString(t.String(), 10); ok {
			return bi, nil
		}
		f, err := t.Float64()
		return f, err
	case string, bool, nil:
		return t, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
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
