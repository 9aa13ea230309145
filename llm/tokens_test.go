package llm_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/llm"
)

var proseWords = strings.Fields(`the of and to in a is that for it as was with be by on not he this are or his
from at which but have an they you were her she there been one all we their has would when if so no
will more about what up out them into time could than other some these two may then do first any
model context variable question answer recursive language memory search summary evidence report
international organisation responsibility understanding development environment`)

// genText returns about n bytes of deterministic text of a kind: "prose",
// "log" or "cjk".
func genText(kind string, n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.Grow(n + 256)
	for line := 0; b.Len() < n; line++ {
		switch kind {
		case "prose":
			for i := 0; i < 12+r.IntN(10); i++ {
				w := proseWords[r.IntN(len(proseWords))]
				if i == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				b.WriteString(w)
				b.WriteByte(' ')
			}
			b.WriteString("end.\n")
		case "log":
			fmt.Fprintf(&b, "2026-11-22T03:%02d:%02d.%03dZ %s 10.%d.%d.%d req=%08x path=/api/v1/items/%d status=%d dur=%dms\n",
				r.IntN(60), r.IntN(60), r.IntN(1000), []string{"INFO", "WARN", "ERROR", "DEBUG"}[r.IntN(4)],
				r.IntN(256), r.IntN(256), r.IntN(256), r.Uint32(), r.IntN(100000), []int{200, 404, 500, 302}[r.IntN(4)], r.IntN(5000))
		case "json": // minified: no whitespace at all
			fmt.Fprintf(&b, `{"id":%d,"user":"u%05d","tags":["%s","%s"],"score":%.3f,"ok":%t},`,
				line, r.IntN(100000), proseWords[r.IntN(len(proseWords))], proseWords[r.IntN(len(proseWords))], r.Float64(), r.IntN(2) == 0)
		case "base64":
			const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
			for i := 0; i < 64; i++ {
				b.WriteByte(alphabet[r.IntN(64)])
			}
		case "cjk-dense": // no whitespace or punctuation
			for i := 0; i < 30; i++ {
				b.WriteRune(rune(0x4E00 + r.IntN(3000)))
			}
		case "cjk":
			for i := 0; i < 30; i++ {
				b.WriteRune(rune(0x4E00 + r.IntN(3000)))
			}
			b.WriteString("。\n")
		default:
			panic(kind)
		}
	}
	return b.String()
}

func TestCountLargeEstimate(t *testing.T) {
	for _, kind := range []string{"prose", "log", "cjk", "json", "base64", "cjk-dense"} {
		t.Run(kind, func(t *testing.T) {
			s := genText(kind, 128<<10)
			tok, err := llm.NewTokenizer(llm.EncodingO200k)
			require.NoError(t, err)
			exact := tok.Count(s)
			small := *tok
			small.EstimateThreshold = 16 << 10
			est, estimated := small.CountLarge(s)
			assert.True(t, estimated)
			assert.InEpsilon(t, exact, est, 0.05, "estimate %d vs exact %d", est, exact)
			// Samples stay small whatever the text (no whitespace to align
			// to must not make a sample run to the end of the text).
			assert.LessOrEqual(t, llm.SampledBytes(s, small.EstimateThreshold), small.EstimateThreshold+2*64*256)
			n, estimated := tok.CountLarge(s)
			assert.False(t, estimated)
			assert.Equal(t, exact, n)
		})
	}
}

func TestCountRequestTokens(t *testing.T) {
	req := llm.Request{
		Model:    "gpt-4o",
		Messages: []llm.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hello world"}},
	}
	n := llm.CountRequestTokens(req)
	content := llm.CountTokens("be brief") + llm.CountTokens("hello world")
	assert.Greater(t, n, content)
	assert.LessOrEqual(t, n, content+3+2*(3+1)) // chat-format overhead only
	req.Messages = append(req.Messages, llm.Message{Role: "user", Content: "more"})
	assert.Greater(t, llm.CountRequestTokens(req), n)
}

func BenchmarkCount(b *testing.B) {
	tok := llm.DefaultTokenizer()
	for _, kind := range []string{"prose", "log", "cjk", "json"} {
		s := genText(kind, 1<<20)
		b.Run(kind+"-1MB", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				tok.Count(s)
			}
		})
	}
}

// BenchmarkCountLarge compares sampled estimation on 64 MB with exact
// counting (BenchmarkCount) as the baseline; compare the MB/s columns.
// json is minified (no whitespace to align samples to).
func BenchmarkCountLarge(b *testing.B) {
	tok := llm.DefaultTokenizer()
	for _, kind := range []string{"prose", "json"} {
		s := strings.Repeat(genText(kind, 1<<20), 64)
		b.Run(kind+"-64MB", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if _, est := tok.CountLarge(s); !est {
					b.Fatal("not estimated")
				}
			}
		})
	}
}
