package pylib

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding"
	"encoding/hex"
	"hash"
	"sort"
	"strings"

	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/blake2s"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// hashAlgo is one hashlib algorithm.
type hashAlgo struct {
	name      string
	blockSize int
	// make returns a fresh hash; size and key are blake2's digest_size and
	// key (ignored by the others).
	make func(size int, key []byte) (hash.Hash, error)
	size int // default digest size
}

func plainHash(f func() hash.Hash) func(int, []byte) (hash.Hash, error) {
	return func(int, []byte) (hash.Hash, error) { return f(), nil }
}

var hashAlgos = map[string]*hashAlgo{
	"md5":      {name: "md5", blockSize: 64, size: 16, make: plainHash(md5.New)},
	"sha1":     {name: "sha1", blockSize: 64, size: 20, make: plainHash(sha1.New)},
	"sha224":   {name: "sha224", blockSize: 64, size: 28, make: plainHash(sha256.New224)},
	"sha256":   {name: "sha256", blockSize: 64, size: 32, make: plainHash(sha256.New)},
	"sha384":   {name: "sha384", blockSize: 128, size: 48, make: plainHash(sha512.New384)},
	"sha512":   {name: "sha512", blockSize: 128, size: 64, make: plainHash(sha512.New)},
	"sha3_224": {name: "sha3_224", blockSize: 144, size: 28, make: plainHash(func() hash.Hash { return sha3.New224() })},
	"sha3_256": {name: "sha3_256", blockSize: 136, size: 32, make: plainHash(func() hash.Hash { return sha3.New256() })},
	"sha3_384": {name: "sha3_384", blockSize: 104, size: 48, make: plainHash(func() hash.Hash { return sha3.New384() })},
	"sha3_512": {name: "sha3_512", blockSize: 72, size: 64, make: plainHash(func() hash.Hash { return sha3.New512() })},
	"blake2b": {name: "blake2b", blockSize: 128, size: 64, make: func(size int, key []byte) (hash.Hash, error) {
		return blake2b.New(size, key)
	}},
	"blake2s": {name: "blake2s", blockSize: 64, size: 32, make: func(size int, key []byte) (hash.Hash, error) {
		return blake2s.New256(key) // digest_size 32 only (checked below)
	}},
}

// hashObj is a hashlib hash object.
type hashObj struct {
	algo *hashAlgo
	h    hash.Hash
}

var _ starlark.HasAttrs = (*hashObj)(nil)

func (o *hashObj) String() string       { return "<" + o.algo.name + " _hashlib.HASH object>" }
func (o *hashObj) Type() string         { return "_hashlib.HASH" }
func (o *hashObj) Freeze()              {}
func (o *hashObj) Truth() starlark.Bool { return true }
func (o *hashObj) Hash() (uint32, error) {
	return 0, py.Errorf("TypeError", "unhashable type: '_hashlib.HASH'")
}
func (o *hashObj) AttrNames() []string {
	return []string{"block_size", "copy", "digest", "digest_size", "hexdigest", "name", "update"}
}

func (o *hashObj) Attr(name string) (starlark.Value, error) {
	noArgs := func(f func() starlark.Value) (starlark.Value, error) {
		return py.NewBuiltin(
			name,
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
					return nil, err
				}
				return f(), nil
			},
		), nil
	}
	switch name {
	case "name":
		return starlark.String(o.algo.name), nil
	case "digest_size":
		return starlark.MakeInt(o.h.Size()), nil
	case "block_size":
		return starlark.MakeInt(o.algo.blockSize), nil
	case "digest":
		return noArgs(func() starlark.Value { return starlark.Bytes(o.h.Sum(nil)) })
	case "hexdigest":
		return noArgs(func() starlark.Value { return starlark.String(hex.EncodeToString(o.h.Sum(nil))) })
	case "copy":
		return py.NewBuiltin(
			name,
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
					return nil, err
				}
				return o.copy()
			},
		), nil
	case "update":
		return py.NewBuiltin(
			name,
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				x, err := py.OneArg("update", args, kwargs)
				if err != nil {
					return nil, err
				}
				b, err := hashData(x)
				if err != nil {
					return nil, err
				}
				o.h.Write(b)
				return starlark.None, nil
			},
		), nil
	}
	return nil, nil
}

func (o *hashObj) copy() (starlark.Value, error) {
	m, ok := o.h.(encoding.BinaryMarshaler)
	if !ok {
		return nil, py.Errorf("ValueError", "%s: copy() is not supported", o.algo.name)
	}
	state, err := m.MarshalBinary()
	if err != nil {
		return nil, py.Errorf("ValueError", "%s: copy(): %v", o.algo.name, err)
	}
	h, _ := o.algo.make(o.h.Size(), nil)
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
		return nil, py.Errorf("ValueError", "%s: copy(): %v", o.algo.name, err)
	}
	return &hashObj{algo: o.algo, h: h}, nil
}

// hashData is the bytes of a value passed to a hash: str must be encoded
// first, as in CPython.
func hashData(x starlark.Value) ([]byte, error) {
	switch v := x.(type) {
	case starlark.Bytes:
		return []byte(v), nil
	case starlark.String:
		return nil, py.Errorf("TypeError", "Strings must be encoded before hashing")
	}
	return nil, py.Errorf("TypeError", "object supporting the buffer API required")
}

func newHash(thread *starlark.Thread, a *hashAlgo, fn string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data, key starlark.Value
	var usedForSecurity, name starlark.Value
	size := a.size
	pairs := []any{"data?", &data, "usedforsecurity?", &usedForSecurity}
	if a.name == "blake2b" || a.name == "blake2s" {
		pairs = append(pairs, "digest_size?", &size, "key?", &key)
	}
	if fn == "new" {
		pairs = append([]any{"name", &name}, pairs...)
	}
	if err := starlark.UnpackArgs(fn, args, kwargs, pairs...); err != nil {
		return nil, err
	}
	var k []byte
	if key != nil {
		var err error
		if k, err = hashData(key); err != nil {
			return nil, err
		}
	}
	if a.name == "blake2s" && size != 32 {
		return nil, py.Errorf("ValueError", "blake2s: the sandbox supports digest_size=32 only")
	}
	if size < 1 || size > a.size {
		return nil, py.Errorf("ValueError", "digest_size must be between 1 and %d bytes", a.size)
	}
	h, err := a.make(size, k)
	if err != nil {
		return nil, py.Errorf("ValueError", "%s: %v", a.name, err)
	}
	if data != nil && data != starlark.None {
		b, err := hashData(data)
		if err != nil {
			return nil, err
		}
		h.Write(b)
	}
	return &hashObj{algo: a, h: h}, nil
}

var _ = py.RegisterModule("hashlib", hashlibModule)

// hashlibModule builds the hashlib module on its first import.
func hashlibModule() *py.Module {
	fns := map[string]py.BuiltinFn{}
	var names []string
	for name, a := range hashAlgos {
		names = append(names, name)
		fns[name] = func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return newHash(thread, a, name, args, kwargs)
		}
	}
	sort.Strings(names)
	fns["new"] = func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var nameV starlark.Value
		if len(args) > 0 {
			nameV = args[0]
		}
		for _, kv := range kwargs {
			if k, _ := starlark.AsString(kv[0]); k == "name" {
				nameV = kv[1]
			}
		}
		n, ok := nameV.(starlark.String)
		if !ok {
			return nil, py.Errorf("TypeError", "new() missing required argument 'name' (a str such as 'sha256')")
		}
		a := hashAlgos[strings.ToLower(strings.ReplaceAll(string(n), "-", "_"))]
		if a == nil {
			return nil, py.Errorf("ValueError", "unsupported hash type %s (available: %s)", string(n), strings.Join(names, ", "))
		}
		return newHash(thread, a, "new", args, kwargs)
	}
	set := func() starlark.Value {
		s := new(starlark.Set)
		for _, n := range names {
			_ = s.Insert(starlark.String(n))
		}
		return s
	}
	m := py.NewModule("hashlib", fns, starlark.StringDict{
		"algorithms_available":  set(),
		"algorithms_guaranteed": set(),
	})
	m.Members.Freeze() // shared by all sessions
	return m
}
