package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
)

// Task kinds.
const (
	KindNIAH      = "niah"
	KindAggregate = "aggregate"
	KindPairs     = "pairs"
	KindFiles     = "files"
)

// Kinds lists the built-in task kinds.
func Kinds() []string { return []string{KindNIAH, KindAggregate, KindPairs, KindFiles} }

// Task is one generated benchmark item: the context variables, the query and
// the gold answer.
type Task struct {
	Kind  string `json:"task"`
	Size  int    `json:"size"`  // requested context size in tokens
	Seed  uint64 `json:"seed"`  // base seed
	Index int    `json:"index"` // item number under the seed
	Query string `json:"query"`
	Vars  []Var  `json:"-"`
	Gold  Gold   `json:"gold"`
}

// Var is one context variable: Value is a string (text) or an
// *rlmctx.Dict of path -> string (files).
type Var struct {
	Name  string
	Value any
}

// Answer formats, which pick the scorer in [Score].
const (
	GoldNumber = "number" // exact number (niah) or 0.75^|error| (aggregate count)
	GoldLabel  = "label"  // one label among candidates, exact
	GoldPairs  = "pairs"  // set of unordered id pairs, F1
	GoldFiles  = "files"  // definition path + set of caller paths, exact
)

// Gold is a task's answer and how to score it.
type Gold struct {
	Format string `json:"format"`
	// Answer is the canonical answer text.
	Answer string `json:"answer"`
	// Number is the numeric answer (GoldNumber).
	Number int64 `json:"number,omitempty"`
	// Partial makes a numeric answer score 0.75^|error| instead of exact.
	Partial bool `json:"partial,omitempty"`
	// Labels are the candidate labels (GoldLabel).
	Labels []string `json:"labels,omitempty"`
	// Pairs are the gold pairs, each sorted, the list sorted (GoldPairs).
	Pairs [][2]string `json:"pairs,omitempty"`
	// Defined and Callers answer a files question (GoldFiles).
	Defined string   `json:"defined,omitempty"`
	Callers []string `json:"callers,omitempty"`
}

// Key identifies a benchmark item in results: task, size, seed, index and
// mode.
type Key struct {
	Task  string `json:"task"`
	Size  int    `json:"size"`
	Seed  uint64 `json:"seed"`
	Index int    `json:"index"`
	Mode  string `json:"mode"`
}

// String renders k as task/size/seed=N/index/mode, e.g.
// niah/8k/seed=1/0/rlm.
func (k Key) String() string {
	return fmt.Sprintf("%s/%s/seed=%d/%d/%s", k.Task, FormatSize(k.Size), k.Seed, k.Index, k.Mode)
}

// Generate builds item index of task kind at about size tokens from seed.
// The same arguments always give the same bytes.
func Generate(kind string, size int, seed uint64, index int) (*Task, error) {
	if size <= 0 {
		return nil, fmt.Errorf("%w: %d (want a positive number of tokens)", ErrBadSize, size)
	}
	r := newRand(kind, size, seed, index)
	t := &Task{Kind: kind, Size: size, Seed: seed, Index: index}
	switch kind {
	case KindNIAH:
		genNIAH(t, r)
	case KindAggregate:
		genAggregate(t, r)
	case KindPairs:
		genPairs(t, r)
	case KindFiles:
		genFiles(t, r)
	default:
		return nil, fmt.Errorf("%w %q (choose from %s)", ErrUnknownTask, kind, strings.Join(Kinds(), ", "))
	}
	return t, nil
}

// newRand returns a PCG generator for one item, mixing every part of the
// item's identity so items never share streams.
func newRand(kind string, size int, seed uint64, index int) *rand.Rand {
	h := uint64(14695981039346656037)
	for i := 0; i < len(kind); i++ {
		h ^= uint64(kind[i])
		h *= 1099511628211
	}
	s2 := splitmix(h ^ splitmix(uint64(size)) ^ splitmix(uint64(index)+0x9e3779b97f4a7c15))
	return rand.New(rand.NewPCG(splitmix(seed), s2))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ParseSize parses a token count such as 8k, 128K, 1m, 10M or 5000.
func ParseSize(s string) (int, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	mult := 1
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1000, t[:len(t)-1]
	case strings.HasSuffix(t, "m"):
		mult, t = 1000000, t[:len(t)-1]
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 || f*float64(mult) > 1e10 {
		return 0, fmt.Errorf("%w %q (want e.g. 8k, 128k, 1m)", ErrBadSize, s)
	}
	return int(f * float64(mult)), nil
}

// ParseSizes parses a comma-separated list of sizes.
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		n, err := ParseSize(p)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty list", ErrBadSize)
	}
	return out, nil
}

// FormatSize renders a token count the way ParseSize reads it (8k, 1m).
func FormatSize(n int) string {
	switch {
	case n >= 1000000 && n%1000000 == 0:
		return strconv.Itoa(n/1000000) + "m"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// ParseKinds parses a comma-separated list of task kinds.
func ParseKinds(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(strings.ToLower(p))
		if p == "" {
			continue
		}
		if !isKind(p) {
			return nil, fmt.Errorf("%w %q (choose from %s)", ErrUnknownTask, p, strings.Join(Kinds(), ", "))
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty list (choose from %s)", ErrUnknownTask, strings.Join(Kinds(), ", "))
	}
	return out, nil
}

func isKind(k string) bool {
	for _, x := range Kinds() {
		if x == k {
			return true
		}
	}
	return false
}

// Text returns the variable's content as one text: the string itself, or
// for a files dict each file under a "--- path ---" header. Direct mode
// pastes this into the prompt.
func (v Var) Text() string {
	switch x := v.Value.(type) {
	case string:
		return x
	case *rlmctx.Dict:
		var b strings.Builder
		for _, k := range x.Keys() {
			val, _ := x.Get(k)
			s, _ := val.(string)
			b.WriteString("--- ")
			b.WriteString(k)
			b.WriteString(" ---\n")
			b.WriteString(s)
			if !strings.HasSuffix(s, "\n") {
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	return fmt.Sprint(v.Value)
}

// pick returns a random element of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
