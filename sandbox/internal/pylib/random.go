package pylib

import (
	"crypto/sha512"
	"math"
	"math/big"
	"sort"
	"sync"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// mt19937 is CPython's Mersenne Twister (Modules/_randommodule.c): the same
// seed gives the same sequence as CPython's random module.
type mt19937 struct {
	mt        [624]uint32
	index     int
	gaussNext *float64
}

func (m *mt19937) initGenrand(s uint32) {
	m.mt[0] = s
	for i := 1; i < 624; i++ {
		m.mt[i] = 1812433253*(m.mt[i-1]^(m.mt[i-1]>>30)) + uint32(i)
	}
	m.index = 624
}

func (m *mt19937) initByArray(key []uint32) {
	m.initGenrand(19650218)
	i, j := 1, 0
	k := max(624, len(key))
	for ; k > 0; k-- {
		m.mt[i] = (m.mt[i] ^ ((m.mt[i-1] ^ (m.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			m.mt[0] = m.mt[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = 623; k > 0; k-- {
		m.mt[i] = (m.mt[i] ^ ((m.mt[i-1] ^ (m.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			m.mt[0] = m.mt[623]
			i = 1
		}
	}
	m.mt[0] = 0x80000000
	m.gaussNext = nil
}

// seedInt seeds from a Python int as random.seed(n) does (by |n|).
func (m *mt19937) seedInt(n *big.Int) {
	n = new(big.Int).Abs(n)
	var key []uint32
	for _, w := range n.Bits() {
		key = append(key, uint32(w))
		if bitsPerWord == 64 {
			key = append(key, uint32(uint64(w)>>32))
		}
	}
	for len(key) > 1 && key[len(key)-1] == 0 {
		key = key[:len(key)-1]
	}
	if len(key) == 0 {
		key = []uint32{0}
	}
	m.initByArray(key)
}

const bitsPerWord = 32 << (^uint(0) >> 63)

// seedBytes seeds from a str or bytes as random.seed(s) (version 2) does:
// the int of s followed by its sha512 digest, big-endian.
func (m *mt19937) seedBytes(b []byte) {
	sum := sha512.Sum512(b)
	m.seedInt(new(big.Int).SetBytes(append(append([]byte(nil), b...), sum[:]...)))
}

func (m *mt19937) genrand() uint32 {
	const upper, lower = 0x80000000, 0x7fffffff
	mag01 := [2]uint32{0, 0x9908b0df}
	if m.index >= 624 {
		var kk int
		for kk = 0; kk < 624-397; kk++ {
			y := (m.mt[kk] & upper) | (m.mt[kk+1] & lower)
			m.mt[kk] = m.mt[kk+397] ^ (y >> 1) ^ mag01[y&1]
		}
		for ; kk < 623; kk++ {
			y := (m.mt[kk] & upper) | (m.mt[kk+1] & lower)
			m.mt[kk] = m.mt[kk+(397-624)] ^ (y >> 1) ^ mag01[y&1]
		}
		y := (m.mt[623] & upper) | (m.mt[0] & lower)
		m.mt[623] = m.mt[396] ^ (y >> 1) ^ mag01[y&1]
		m.index = 0
	}
	y := m.mt[m.index]
	m.index++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// random is random.random(): 53 random bits as a float in [0, 1).
func (m *mt19937) random() float64 {
	a, b := m.genrand()>>5, m.genrand()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// getrandbits is random.getrandbits(k), k >= 0.
func (m *mt19937) getrandbits(k int) *big.Int {
	if k == 0 {
		return new(big.Int)
	}
	if k <= 32 {
		return new(big.Int).SetUint64(uint64(m.genrand() >> (32 - k)))
	}
	words := (k-1)/32 + 1
	le := make([]uint32, words)
	for i := 0; i < words; i, k = i+1, k-32 {
		r := m.genrand()
		if k < 32 {
			r >>= 32 - k
		}
		le[i] = r
	}
	be := make([]byte, 4*words)
	for i, w := range le {
		o := 4 * (words - 1 - i)
		be[o], be[o+1], be[o+2], be[o+3] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
	}
	return new(big.Int).SetBytes(be)
}

// randbelow is Random._randbelow_with_getrandbits(n), n > 0.
func (m *mt19937) randbelow(n *big.Int) *big.Int {
	k := n.BitLen()
	r := m.getrandbits(k)
	for r.Cmp(n) >= 0 {
		r = m.getrandbits(k)
	}
	return r
}

// randbelowInt is randbelow for a small n.
func (m *mt19937) randbelowInt(n int) int {
	return int(m.randbelow(big.NewInt(int64(n))).Int64())
}

func (m *mt19937) gauss(mu, sigma float64) float64 {
	var z float64
	if m.gaussNext != nil {
		z = *m.gaussNext
		m.gaussNext = nil
	} else {
		x2pi := m.random() * 2 * math.Pi
		g2rad := math.Sqrt(-2.0 * math.Log(1.0-m.random()))
		z = math.Cos(x2pi) * g2rad
		next := math.Sin(x2pi) * g2rad
		m.gaussNext = &next
	}
	return mu + z*sigma
}

// seedValue seeds m from a Python value as random.seed(a) does; None
// reseeds from the session's seed.
func (m *mt19937) seedValue(thread *starlark.Thread, a starlark.Value) error {
	switch x := a.(type) {
	case starlark.NoneType:
		m.seedBytes([]byte(sessionSeed(thread)))
	case starlark.Bool:
		m.seedInt(big.NewInt(int64(py.B2i(bool(x)))))
	case starlark.Int:
		m.seedInt(x.BigInt())
	case starlark.String:
		m.seedBytes([]byte(x))
	case starlark.Bytes:
		m.seedBytes([]byte(x))
	case starlark.Float:
		f := float64(x)
		if f == math.Trunc(f) && !math.IsInf(f, 0) {
			bf, _ := big.NewFloat(f).Int(nil)
			m.seedInt(bf)
			return nil
		}
		return py.Errorf("TypeError", "The only supported seed types are: None, int, float (integral), str, bytes, and bytearray (in the sandbox)")
	default:
		return py.Errorf("TypeError", "The only supported seed types are: None,\nint, float, str, bytes, and bytearray.")
	}
	return nil
}

// sessionSeed is the seed material of the session running on thread
// (Config.Seed): the orchestrator passes the run id, so a run's random
// numbers are the same when it is replayed or resumed.
func sessionSeed(thread *starlark.Thread) string {
	if thread != nil {
		if st := py.StepOf(thread); st != nil {
			return seedOf(st.State)
		}
	}
	return "rlm:"
}

// seedOf is the seed material of s (see sessionSeed).
func seedOf(s *py.State) string { return "rlm:" + s.Seed }

// randomKey is the session's generator behind the random module's
// functions, seeded from Config.Seed on first use.
var randomKey = &py.SessionKey[*mt19937]{Init: func(s *py.State) *mt19937 {
	m := &mt19937{}
	m.seedBytes([]byte(seedOf(s)))
	return m
}}

// sessionRandom is the generator behind the random module's functions:
// the session's (randomKey), or a new one outside a session.
func sessionRandom(thread *starlark.Thread) *mt19937 {
	if m, ok := randomKey.Of(thread); ok {
		return m
	}
	m := &mt19937{}
	m.seedBytes([]byte(sessionSeed(nil)))
	return m
}

// randomObj is a random.Random instance.
type randomObj struct{ m *mt19937 }

var typeRandom = &py.TypeObj{PyName: "Random", Check: py.IsType[*randomObj]}

// completeRandomType completes typeRandom (random.Random), once, on the
// random module's first import.
var completeRandomType = sync.OnceFunc(func() {
	typeRandom.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var a starlark.Value = starlark.None
		if err := starlark.UnpackPositionalArgs("Random", args, kwargs, 0, &a); err != nil {
			return nil, err
		}
		r := &randomObj{m: &mt19937{}}
		if err := r.m.seedValue(thread, a); err != nil {
			return nil, err
		}
		return r, nil
	}
})

func (r *randomObj) String() string         { return "<random.Random object>" }
func (r *randomObj) Type() string           { return "Random" }
func (r *randomObj) PyTypeObj() *py.TypeObj { return typeRandom }
func (r *randomObj) Freeze()                {}
func (r *randomObj) Truth() starlark.Bool   { return true }
func (r *randomObj) Hash() (uint32, error)  { return 0, nil }
func (r *randomObj) AttrNames() []string    { return randomNames() }
func (r *randomObj) Attr(name string) (starlark.Value, error) {
	f, ok := randomFns[name]
	if !ok {
		return nil, nil
	}
	return py.NewBuiltin(
		name,
		func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return f(thread, r.m, args, kwargs)
		},
	), nil
}

type randomFn func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

var randomFns map[string]randomFn

func randomNames() []string {
	var names []string
	for n := range randomFns {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// pyIndexInt converts an int-like value (int, integral float) for randrange.
func pyIndexInt(fn string, v starlark.Value) (*big.Int, error) {
	switch x := v.(type) {
	case starlark.Int:
		return x.BigInt(), nil
	case starlark.Bool:
		return big.NewInt(int64(py.B2i(bool(x)))), nil
	case starlark.Float:
		f := float64(x)
		if f == math.Trunc(f) && !math.IsInf(f, 0) {
			i, _ := big.NewFloat(f).Int(nil)
			return i, nil
		}
		return nil, py.Errorf("ValueError", "non-integer arg 1 for %s()", fn)
	}
	return nil, py.Errorf("TypeError", "'%s' object cannot be interpreted as an integer", py.PyType(v))
}

func randrange(m *mt19937, start, stop, step starlark.Value) (starlark.Value, error) {
	istart, err := pyIndexInt("randrange", start)
	if err != nil {
		return nil, err
	}
	if stop == nil || stop == starlark.None {
		if step != nil {
			return nil, py.Errorf("TypeError", "Missing a non-None stop argument")
		}
		if istart.Sign() > 0 {
			return starlark.MakeBigInt(m.randbelow(istart)), nil
		}
		return nil, py.Errorf("ValueError", "empty range for randrange()")
	}
	istop, err := pyIndexInt("randrange", stop)
	if err != nil {
		return nil, err
	}
	width := new(big.Int).Sub(istop, istart)
	istep := big.NewInt(1)
	if step != nil {
		if istep, err = pyIndexInt("randrange", step); err != nil {
			return nil, err
		}
	}
	if istep.Cmp(big.NewInt(1)) == 0 {
		if width.Sign() > 0 {
			return starlark.MakeBigInt(new(big.Int).Add(istart, m.randbelow(width))), nil
		}
		return nil, py.Errorf("ValueError", "empty range for randrange() (%s, %s, %s)", istart, istop, width)
	}
	var n *big.Int
	switch istep.Sign() {
	case 1:
		n = new(big.Int).Add(width, istep)
		n.Sub(n, big.NewInt(1))
	case -1:
		n = new(big.Int).Add(width, istep)
		n.Add(n, big.NewInt(1))
	default:
		return nil, py.Errorf("ValueError", "zero step for randrange()")
	}
	n = floorDiv(n, istep)
	if n.Sign() <= 0 {
		return nil, py.Errorf("ValueError", "empty range for randrange()")
	}
	r := new(big.Int).Mul(istep, m.randbelow(n))
	return starlark.MakeBigInt(r.Add(r, istart)), nil
}

func floorDiv(a, b *big.Int) *big.Int {
	q, md := new(big.Int).DivMod(a, b, new(big.Int))
	// DivMod is Euclidean (md >= 0); Python floors toward -inf.
	if md.Sign() != 0 && b.Sign() < 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// buildRandomFns builds randomFns, once, on the random module's first
// import.
var buildRandomFns = sync.OnceFunc(func() {
	floats := func(name string, n int, body func(m *mt19937, f []float64) float64, dflt ...float64) randomFn {
		return func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			vals := make([]starlark.Value, n)
			names := map[string][]string{"uniform": {"a", "b"}, "triangular": {"low", "high", "mode"}, "expovariate": {"lambd"}}[name]
			if names == nil {
				names = []string{"mu", "sigma"}
			}
			pairs := []any{}
			for i := 0; i < n; i++ {
				p := names[i]
				if i >= n-len(dflt) {
					p += "?"
				}
				pairs = append(pairs, p, &vals[i])
			}
			if err := starlark.UnpackArgs(name, args, kwargs, pairs...); err != nil {
				return nil, err
			}
			f := make([]float64, n)
			for i, v := range vals {
				if v == nil || v == starlark.None {
					f[i] = dflt[i-(n-len(dflt))]
					continue
				}
				x, err := py.FloatArg(name, v)
				if err != nil {
					return nil, err
				}
				f[i] = x
			}
			return starlark.Float(body(m, f)), nil
		}
	}
	randomFns = map[string]randomFn{
		"seed": func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a starlark.Value = starlark.None
			var version starlark.Value
			if err := starlark.UnpackArgs("seed", args, kwargs, "a?", &a, "version?", &version); err != nil {
				return nil, err
			}
			return starlark.None, m.seedValue(thread, a)
		},
		"random": func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs("random", args, kwargs, 0); err != nil {
				return nil, err
			}
			return starlark.Float(m.random()), nil
		},
		"getrandbits": func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var k int
			if err := starlark.UnpackPositionalArgs("getrandbits", args, kwargs, 1, &k); err != nil {
				return nil, err
			}
			if k < 0 {
				return nil, py.Errorf("ValueError", "number of bits must be non-negative")
			}
			if err := py.CheckAlloc(thread, int64(k/8)); err != nil {
				return nil, err
			}
			return starlark.MakeBigInt(m.getrandbits(k)), nil
		},
		"randrange": func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var start, stop, step starlark.Value
			if err := starlark.UnpackArgs("randrange", args, kwargs, "start", &start, "stop?", &stop, "step?", &step); err != nil {
				return nil, err
			}
			return randrange(m, start, stop, step)
		},
		"randint": func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var a, b starlark.Value
			if err := starlark.UnpackArgs("randint", args, kwargs, "a", &a, "b", &b); err != nil {
				return nil, err
			}
			bi, err := pyIndexInt("randint", b)
			if err != nil {
				return nil, err
			}
			return randrange(m, a, starlark.MakeBigInt(new(big.Int).Add(bi, big.NewInt(1))), nil)
		},
		"choice": func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var seq starlark.Value
			if err := starlark.UnpackArgs("choice", args, kwargs, "seq", &seq); err != nil {
				return nil, err
			}
			idx, ok := seq.(starlark.Indexable)
			if !ok {
				return nil, py.Errorf("TypeError", "'%s' object is not subscriptable", py.PyType(seq))
			}
			n := seqLen(idx)
			if n == 0 {
				return nil, py.Errorf("IndexError", "Cannot choose from an empty sequence")
			}
			return seqItem(thread, idx, m.randbelowInt(n))
		},
		"shuffle": func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackArgs("shuffle", args, kwargs, "x", &x); err != nil {
				return nil, err
			}
			l, ok := x.(*starlark.List)
			if !ok {
				return nil, py.Errorf("TypeError", "'%s' object does not support item assignment", py.PyType(x))
			}
			for i := l.Len() - 1; i >= 1; i-- {
				j := m.randbelowInt(i + 1)
				a, b := l.Index(i), l.Index(j)
				if err := l.SetIndex(i, b); err != nil {
					return nil, err
				}
				_ = l.SetIndex(j, a)
			}
			return starlark.None, nil
		},
		"sample": func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var pop, counts starlark.Value
			var k int
			if err := starlark.UnpackArgs("sample", args, kwargs, "population", &pop, "k", &k, "counts?", &counts); err != nil {
				return nil, err
			}
			idx, ok := pop.(starlark.Indexable)
			if !ok || py.IsType[*starlark.Dict](pop) {
				return nil, py.Errorf("TypeError", "Population must be a sequence.  For dicts or sets, use sorted(d).")
			}
			if counts != nil && counts != starlark.None {
				return nil, py.Errorf(
					"NotImplementedError",
					"sample(counts=...) is not available in the sandbox; repeat the items in the population instead",
				)
			}
			n := seqLen(idx)
			if k < 0 || k > n {
				return nil, py.Errorf("ValueError", "Sample larger than population or is negative")
			}
			if err := py.CheckAlloc(thread, int64(k)*16); err != nil {
				return nil, err
			}
			result := make([]starlark.Value, k)
			setsize := 21
			if k > 5 {
				setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
			}
			if n <= setsize {
				pool := make([]starlark.Value, n)
				for i := range pool {
					v, err := seqItem(thread, idx, i)
					if err != nil {
						return nil, err
					}
					pool[i] = v
				}
				for i := 0; i < k; i++ {
					j := m.randbelowInt(n - i)
					result[i] = pool[j]
					pool[j] = pool[n-i-1]
				}
			} else {
				selected := map[int]bool{}
				for i := 0; i < k; i++ {
					j := m.randbelowInt(n)
					for selected[j] {
						j = m.randbelowInt(n)
					}
					selected[j] = true
					v, err := seqItem(thread, idx, j)
					if err != nil {
						return nil, err
					}
					result[i] = v
				}
			}
			return starlark.NewList(result), nil
		},
		"choices": func(thread *starlark.Thread, m *mt19937, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var pop, weights, cum starlark.Value = nil, starlark.None, starlark.None
			k := 1
			if err := starlark.UnpackArgs("choices", args, kwargs, "population", &pop, "weights?", &weights, "cum_weights?", &cum, "k?", &k); err != nil {
				return nil, err
			}
			idx, ok := pop.(starlark.Indexable)
			if !ok {
				return nil, py.Errorf("TypeError", "'%s' object is not subscriptable", py.PyType(pop))
			}
			if k < 0 {
				k = 0
			}
			if err := py.CheckAlloc(thread, int64(k)*16); err != nil {
				return nil, err
			}
			n := seqLen(idx)
			out := make([]starlark.Value, k)
			if weights == starlark.None && cum == starlark.None {
				for i := range out {
					j := int(math.Floor(m.random() * float64(n)))
					v, err := seqItem(thread, idx, j)
					if err != nil {
						return nil, err
					}
					out[i] = v
				}
				return starlark.NewList(out), nil
			}
			var cw []float64
			if cum == starlark.None {
				ws, err := py.Collect(thread, weights)
				if err != nil {
					return nil, err
				}
				total := 0.0
				for _, w := range ws {
					f, err := py.FloatArg("choices", w)
					if err != nil {
						return nil, err
					}
					total += f
					cw = append(cw, total)
				}
			} else {
				if weights != starlark.None {
					return nil, py.Errorf("TypeError", "Cannot specify both weights and cumulative weights")
				}
				ws, err := py.Collect(thread, cum)
				if err != nil {
					return nil, err
				}
				for _, w := range ws {
					f, err := py.FloatArg("choices", w)
					if err != nil {
						return nil, err
					}
					cw = append(cw, f)
				}
			}
			if len(cw) != n {
				return nil, py.Errorf("ValueError", "The number of weights does not match the population")
			}
			total := cw[n-1]
			if total <= 0 {
				return nil, py.Errorf("ValueError", "Total of weights must be greater than zero")
			}
			if math.IsInf(total, 0) || math.IsNaN(total) {
				return nil, py.Errorf("ValueError", "Total of weights must be finite")
			}
			for i := range out {
				x := m.random() * total
				j := sort.Search(n-1, func(i int) bool { return cw[i] > x })
				v, err := seqItem(thread, idx, j)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return starlark.NewList(out), nil
		},
		"uniform": floats("uniform", 2, func(m *mt19937, f []float64) float64 { return f[0] + (f[1]-f[0])*m.random() }),
		"gauss":   floats("gauss", 2, func(m *mt19937, f []float64) float64 { return m.gauss(f[0], f[1]) }, 0, 1),
		"normalvariate": floats("normalvariate", 2, func(m *mt19937, f []float64) float64 {
			magic := 4 * math.Exp(-0.5) / math.Sqrt(2.0)
			for {
				u1 := m.random()
				u2 := 1.0 - m.random()
				z := magic * (u1 - 0.5) / u2
				if z*z/4.0 <= -math.Log(u2) {
					return f[0] + z*f[1]
				}
			}
		}, 0, 1),
		"expovariate": floats("expovariate", 1, func(m *mt19937, f []float64) float64 { return -math.Log(1.0-m.random()) / f[0] }),
		"triangular": floats("triangular", 3, func(m *mt19937, f []float64) float64 {
			low, high := f[0], f[1]
			u := m.random()
			c := 0.5
			if !math.IsNaN(f[2]) {
				if high == low {
					return low
				}
				c = (f[2] - low) / (high - low)
			}
			if u > c {
				u, c = 1.0-u, 1.0-c
				low, high = high, low
			}
			return low + (high-low)*math.Sqrt(u*c)
		}, 0, 1, math.NaN()),
	}
})

// seqLen is len(idx) (strings in code points).
func seqLen(idx starlark.Indexable) int {
	if s, ok := idx.(starlark.String); ok {
		return py.StrLen(string(s))
	}
	return idx.Len()
}

// seqItem is idx[i] for a sequence (strings by code point).
func seqItem(thread *starlark.Thread, idx starlark.Indexable, i int) (starlark.Value, error) {
	if s, ok := idx.(starlark.String); ok {
		return py.PyGetItem(thread, nil, starlark.Tuple{s, starlark.MakeInt(i)}, nil)
	}
	return idx.Index(i), nil
}

var _ = py.RegisterModule("random", randomModule)

// randomModule builds the random module on its first import.
func randomModule() *py.Module {
	buildRandomFns()
	completeRandomType()
	fns := map[string]py.BuiltinFn{}
	for name, f := range randomFns {
		fns[name] = func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return f(thread, sessionRandom(thread), args, kwargs)
		}
	}
	return py.NewModule("random", fns, starlark.StringDict{"Random": typeRandom})
}
