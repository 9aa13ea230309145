package rlmctx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/pyjson"
)

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x", null, true]}`, `[]`, `"\u00e9\ud83d\ude00"`, `-0.0e+1`, `{"a":{"a":{}}}`, `[1,]`, `123456789012345678901234567890`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := pyjson.Decode(data)
		if json.Valid(data) && utf8.Valid(data) && !bytes.Contains(data, []byte(`\ud`)) && !bytes.Contains(data, []byte(`\uD`)) {
			if err != nil {
				t.Fatalf("valid JSON rejected: %q: %v", data, err)
			}
		}
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := pyjson.Encode(&buf, v); err != nil {
			t.Fatal(err)
		}
		v2, err := pyjson.Decode(buf.Bytes())
		if err != nil {
			t.Fatalf("re-encoded JSON rejected: %q: %v", buf.String(), err)
		}
		var buf2 bytes.Buffer
		pyjson.Encode(&buf2, v2)
		if buf.String() != buf2.String() {
			t.Fatalf("round trip differs: %q vs %q", buf.String(), buf2.String())
		}
	})
}

func FuzzChunkText(f *testing.F) {
	f.Add("line one\nline two\n", 8)
	f.Add("日本語 テキスト", 4)
	f.Add(strings.Repeat("word ", 50), 7)
	f.Add(strings.Repeat("x", 9)+"\r\n"+strings.Repeat("y", 20), 10)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 4 || max > 1<<16 || !utf8.ValidString(s) {
			return
		}
		pieces := ChunkText(s, max)
		if strings.Join(pieces, "") != s {
			t.Fatalf("join differs")
		}
		for i, p := range pieces {
			if len(p) > max || p == "" || !utf8.ValidString(p) {
				t.Fatalf("bad piece %q (max %d)", p, max)
			}
			if i+1 < len(pieces) && strings.HasSuffix(p, "\r") && strings.HasPrefix(pieces[i+1], "\n") {
				t.Fatalf("CRLF split after piece %d %q (max %d)", i, p, max)
			}
		}
	})
}
