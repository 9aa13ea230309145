package llm

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// Embed returns one embedding per text, in order. Texts are deduplicated,
// looked up in the cache (memory, then CacheDir), and the rest sent in
// batches of at most EmbedBatchSize inputs, concurrently within the
// client's limits.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	model := c.cfg.EmbeddingModel
	if model == "" {
		return nil, &Error{Kind: KindBadRequest, Message: "no embedding model configured (set Config.EmbeddingModel)", Err: ErrNoModel}
	}
	out := make([][]float32, len(texts))
	// Unique uncached texts, each with the positions it fills.
	var todo []string
	where := map[string][]int{}
	for i, t := range texts {
		key := embedKey(model, t)
		if v, ok := c.cache.get(key); ok {
			out[i] = v
			continue
		}
		if _, seen := where[t]; !seen {
			todo = append(todo, t)
		}
		where[t] = append(where[t], i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	bs := c.cfg.embedBatchSize()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for start := 0; start < len(todo); start += bs {
		batch := todo[start:min(start+bs, len(todo))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			vecs, err := c.embedBatch(ctx, model, batch)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				return
			}
			for j, t := range batch {
				c.cache.put(embedKey(model, t), vecs[j])
				for _, i := range where[t] {
					out[i] = vecs[j]
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func (c *Client) embedBatch(ctx context.Context, model string, batch []string) ([][]float32, error) {
	var res *Reservation
	tokens := 0
	charged, _ := ctx.Value(embedChargeKey{}).(func(batch []string, model string, u Usage))
	if c.cfg.EmbedLedger != nil || c.sched.tpm != nil || charged != nil {
		t := TokenizerForModel(model)
		for _, s := range batch {
			tokens += t.Count(s)
		}
	}
	if c.cfg.EmbedLedger != nil {
		var err error
		if res, err = c.cfg.EmbedLedger.Reserve(model, tokens, 0); err != nil {
			return nil, err
		}
	}
	var resp openai.EmbeddingResponse
	err := c.do(ctx, tokens, func(ctx context.Context) error {
		var err error
		resp, err = c.api.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: batch, Model: openai.EmbeddingModel(model)})
		return err
	})
	if err != nil {
		if res != nil {
			res.Cancel()
		}
		return nil, err
	}
	if len(resp.Data) != len(batch) {
		if res != nil {
			res.Cancel()
		}
		return nil, &Error{
			Kind:    KindTransient,
			Message: fmt.Sprintf("embeddings: server returned %d vectors for %d inputs", len(resp.Data), len(batch)),
		}
	}
	vecs := make([][]float32, len(batch))
	for k, d := range resp.Data {
		i := d.Index
		if i < 0 || i >= len(batch) || vecs[i] != nil {
			i = k // servers that omit or garble index: trust order
		}
		vecs[i] = d.Embedding
	}
	for i, v := range vecs {
		if v == nil {
			return nil, &Error{Kind: KindTransient, Message: fmt.Sprintf("embeddings: no vector for input %d", i)}
		}
	}
	u := Usage{PromptTokens: resp.Usage.PromptTokens}
	if u.PromptTokens == 0 {
		u.PromptTokens = tokens
	}
	if res != nil {
		res.Commit(u)
	}
	if charged != nil {
		charged(batch, model, u)
	}
	return vecs, nil
}

// embedChargeKey carries a func told of every embedding request a
// [Client] sends (its texts, model and usage), so that a [Recorder] can
// record what each request cost and a resume can charge it again.
type embedChargeKey struct{}

// embedCharge is what one embedding request cost, recorded with the
// entry of the request's first text.
type embedCharge struct {
	Model string `json:"model"`
	Usage Usage  `json:"usage"`
}

// embedCharger is an Embedder that can charge its ledger for an embedding
// request answered from a recording (see [Resumer]).
type embedCharger interface {
	chargeReplayed(ch embedCharge) error
}

// chargeReplayed charges the client's EmbedLedger for a replayed
// embedding request, as if it had been sent: a ledger over budget refuses
// it as it would refuse the request.
func (c *Client) chargeReplayed(ch embedCharge) error {
	if c.cfg.EmbedLedger == nil {
		return nil
	}
	res, err := c.cfg.EmbedLedger.Reserve(ch.Model, ch.Usage.PromptTokens, 0)
	if err != nil {
		return err
	}
	res.Commit(ch.Usage)
	return nil
}

func embedKey(model, text string) string {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// embedCache caches vectors by content hash in memory and, if dir is set,
// on disk: one file per vector holding a magic number, the vector length,
// the little-endian float32 values and a CRC-32 of them, written to a
// temporary file, synced and renamed into place. A crash mid-write leaves
// at worst a stray temporary file, never a partial entry; an entry that
// fails its checks (e.g. torn by a power loss) is treated as missing and
// rewritten by the next Embed.
type embedCache struct {
	dir string
	mu  sync.RWMutex
	mem map[string][]float32
}

// cacheMagic starts every cache file (format version 1).
const cacheMagic = "rlmE"

// cacheWriteHook, if set (by tests), is called half-way through writing a
// cache file's temporary copy.
var cacheWriteHook func(tmpPath string)

func newEmbedCache(dir string) *embedCache {
	if dir != "" {
		dir = filepath.Join(dir, "embeddings")
	}
	return &embedCache{dir: dir, mem: map[string][]float32{}}
}

func (c *embedCache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".f32")
}

func (c *embedCache) get(key string) ([]float32, bool) {
	c.mu.RLock()
	v, ok := c.mem[key]
	c.mu.RUnlock()
	if ok || c.dir == "" {
		return v, ok
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	if v, ok = decodeVector(b); !ok {
		return nil, false // corrupt: re-embedded and overwritten by put
	}
	c.mu.Lock()
	c.mem[key] = v
	c.mu.Unlock()
	return v, true
}

func (c *embedCache) put(key string, v []float32) {
	c.mu.Lock()
	c.mem[key] = v
	c.mu.Unlock()
	if c.dir == "" {
		return
	}
	// Disk caching is best effort: a failure only costs a re-embed later.
	_ = writeAtomic(c.path(key), encodeVector(v))
}

// encodeVector is the cache file format: magic, uint32 length n, n
// float32 values, CRC-32 (IEEE) of the values; all little-endian.
func encodeVector(v []float32) []byte {
	b := make([]byte, 8+4*len(v)+4)
	copy(b, cacheMagic)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(v)))
	body := b[8 : 8+4*len(v)]
	for i, f := range v {
		binary.LittleEndian.PutUint32(body[4*i:], math.Float32bits(f))
	}
	binary.LittleEndian.PutUint32(b[8+4*len(v):], crc32.ChecksumIEEE(body))
	return b
}

// decodeVector parses encodeVector's format, reporting false for anything
// truncated, padded or corrupt.
func decodeVector(b []byte) ([]float32, bool) {
	if len(b) < 12 || string(b[:4]) != cacheMagic {
		return nil, false
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if n == 0 || len(b) != 8+4*n+4 {
		return nil, false
	}
	body := b[8 : 8+4*n]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[8+4*n:]) {
		return nil, false
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
	}
	return v, true
}

// writeAtomic writes data to path via a synced temporary file and rename,
// so path holds either its old content or all of data.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	err = func() error {
		half := len(data) / 2
		if _, err := f.Write(data[:half]); err != nil {
			return err
		}
		if cacheWriteHook != nil {
			cacheWriteHook(f.Name())
		}
		if _, err := f.Write(data[half:]); err != nil {
			return err
		}
		return f.Sync()
	}()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Cosine returns the cosine similarity of two embedding vectors (over the
// shorter length if they differ), or 0 if either is all zeros.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := 0; i < len(a) && i < len(b); i++ {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
