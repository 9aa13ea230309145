package rlmctx

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadStoreJSONAsDocument: a "store:KEY" JSON variable is read as a
// JSON file is, its stored text its document (what resume hashes and
// summaries read), with the same value and summary as a Go value of it
// gives; one held only in memory, and a text, load as before.
func TestLoadStoreJSONAsDocument(t *testing.T) {
	value := map[string]any{"items": []any{map[string]any{"id": 1.0, "name": "a"}, map[string]any{"id": 2.0, "name": "b"}}, "n": 2.0}
	tests := []struct {
		name    string
		value   any
		opts    []SetOption
		wantDoc bool
	}{
		{"persisted JSON", value, []SetOption{WithPersist()}, true},
		{"JSON in memory", value, nil, false},
		{"persisted text", "plain text", []SetOption{WithPersist()}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := OpenStore(StoreConfig{Dir: t.TempDir()})
			require.NoError(t, err)
			defer s.Close()
			_, err = s.Set("k", tt.value, tt.opts...)
			require.NoError(t, err)
			v, _, err := LoadVar(context.Background(), VarSpec{Name: "doc", Source: "store:k"}, LoadOptions{Store: s})
			require.NoError(t, err)
			var doc bytes.Buffer
			ok, err := v.WriteDocument(&doc)
			require.NoError(t, err)
			assert.Equal(t, tt.wantDoc, ok, "read as a document")
			if ok {
				var got any
				require.NoError(t, json.Unmarshal(doc.Bytes(), &got))
				assert.Equal(t, tt.value, got, "the document is the stored JSON")
			}
			assert.Equal(t, "store:k", v.Source)
			assert.Equal(t, tt.value, normalizeForTest(v.GoValue()))
			want, err := NewVariable("doc", tt.value, WithType(v.Type), WithSource("store:k"))
			require.NoError(t, err)
			assert.Equal(t, want.Summary(), v.Summary(), "the summary a Go value gives")
		})
	}
}

// normalizeForTest turns a variable's Go value into what encoding/json
// decodes (float64 numbers) for comparison.
func normalizeForTest(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}
