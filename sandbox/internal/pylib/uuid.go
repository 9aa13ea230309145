package pylib

import (
	"encoding/hex"
	"math/big"
	"sync"

	"github.com/google/uuid"
	"github.com/rlmhq/rlm/internal/starlark/starlark"
	"github.com/rlmhq/rlm/internal/starlark/syntax"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// uuid: UUID objects, uuid3/uuid5 (exact, name-based) and uuid4 drawn
// from a generator seeded per session from Config.Seed (so a replayed or
// resumed run makes the same ids); uuid1 needs a clock and a MAC address
// and is not available.

type uuidObj struct{ u uuid.UUID }

var typeUUID = &py.TypeObj{PyName: "UUID", Check: py.IsType[*uuidObj]}

// completeUUIDType completes typeUUID, once, on the uuid module's first
// import.
var completeUUIDType = sync.OnceFunc(func() {
	typeUUID.Call = func(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var hexV, bytesV, intV starlark.Value = starlark.None, starlark.None, starlark.None
		if err := starlark.UnpackArgs("UUID", args, kwargs, "hex?", &hexV, "bytes?", &bytesV, "bytes_le?", new(starlark.Value), "fields?", new(starlark.Value), "int?", &intV); err != nil {
			return nil, err
		}
		switch {
		case hexV != starlark.None:
			s, ok := hexV.(starlark.String)
			if !ok {
				return nil, py.Errorf("TypeError", "one of the hex, bytes, bytes_le, fields, or int arguments must be given")
			}
			u, err := uuid.Parse(string(s))
			if err != nil {
				return nil, py.Errorf("ValueError", "badly formed hexadecimal UUID string")
			}
			return &uuidObj{u}, nil
		case bytesV != starlark.None:
			b, ok := bytesV.(starlark.Bytes)
			if !ok || len(b) != 16 {
				return nil, py.Errorf("ValueError", "bytes is not a 16-char string")
			}
			var u uuid.UUID
			copy(u[:], b)
			return &uuidObj{u}, nil
		case intV != starlark.None:
			i, ok := intV.(starlark.Int)
			if !ok || i.Sign() < 0 || i.BigInt().BitLen() > 128 {
				return nil, py.Errorf("ValueError", "int is out of range (need a 128-bit value)")
			}
			var u uuid.UUID
			i.BigInt().FillBytes(u[:])
			return &uuidObj{u}, nil
		}
		return nil, py.Errorf("TypeError", "one of the hex, bytes, bytes_le, fields, or int arguments must be given")
	}
})

var _ starlark.Comparable = (*uuidObj)(nil)

func (o *uuidObj) String() string           { return o.u.String() }
func (o *uuidObj) Type() string             { return "UUID" }
func (o *uuidObj) PyTypeObj() *py.TypeObj   { return typeUUID }
func (o *uuidObj) Freeze()                  {}
func (o *uuidObj) Truth() starlark.Bool     { return true }
func (o *uuidObj) Hash() (uint32, error)    { return starlark.String(o.u[:]).Hash() }
func (o *uuidObj) WriteRepr(r *py.Renderer) { r.B.WriteString("UUID('" + o.u.String() + "')") }
func (o *uuidObj) PyStr() string            { return o.u.String() }
func (o *uuidObj) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	a, b := o.u.String(), y.(*uuidObj).u.String()
	return py.CmpResult(op, compareStrings(a, b)), nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (o *uuidObj) AttrNames() []string {
	return []string{"bytes", "hex", "int", "urn", "variant", "version"}
}

func (o *uuidObj) Attr(name string) (starlark.Value, error) {
	switch name {
	case "hex":
		return starlark.String(hex.EncodeToString(o.u[:])), nil
	case "int":
		return starlark.MakeBigInt(new(big.Int).SetBytes(o.u[:])), nil
	case "bytes":
		return starlark.Bytes(o.u[:]), nil
	case "urn":
		return starlark.String(o.u.URN()), nil
	case "version":
		if o.u.Variant() != uuid.RFC4122 {
			return starlark.None, nil
		}
		return starlark.MakeInt(int(o.u.Version())), nil
	case "variant":
		return starlark.String(
			map[uuid.Variant]string{uuid.RFC4122: "specified in RFC 4122", uuid.Reserved: "reserved for NCS compatibility", uuid.Microsoft: "reserved for Microsoft compatibility", uuid.Future: "reserved for future definition"}[o.u.Variant()],
		), nil
	}
	return nil, nil
}

// uuidRandomKey is the session's generator behind uuid4, seeded from
// Config.Seed apart from the random module's, on first use.
var uuidRandomKey = &py.SessionKey[*mt19937]{Init: func(s *py.State) *mt19937 {
	m := &mt19937{}
	m.seedBytes([]byte("uuid:" + seedOf(s)))
	return m
}}

// sessionUUIDRandom is the generator behind uuid4: the session's
// (uuidRandomKey), or a new one outside a session.
func sessionUUIDRandom(thread *starlark.Thread) *mt19937 {
	if m, ok := uuidRandomKey.Of(thread); ok {
		return m
	}
	m := &mt19937{}
	m.seedBytes([]byte("uuid:" + sessionSeed(nil)))
	return m
}

var _ = py.RegisterModule("uuid", uuidModule)

// uuidModule builds the uuid module on its first import.
func uuidModule() *py.Module {
	completeUUIDType()
	named := func(fn string, make func(ns uuid.UUID, name []byte) uuid.UUID) py.BuiltinFn {
		return func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var ns, name starlark.Value
			if err := starlark.UnpackArgs(fn, args, kwargs, "namespace", &ns, "name", &name); err != nil {
				return nil, err
			}
			n, ok := ns.(*uuidObj)
			if !ok {
				return nil, py.Errorf("AttributeError", "'%s' object has no attribute 'bytes'", py.PyType(ns))
			}
			var b []byte
			switch x := name.(type) {
			case starlark.String:
				b = []byte(x)
			case starlark.Bytes:
				b = []byte(x)
			default:
				return nil, py.Errorf("TypeError", "name must be str or bytes, not %s", py.PyType(name))
			}
			return &uuidObj{make(n.u, b)}, nil
		}
	}
	return py.NewModule("uuid", map[string]py.BuiltinFn{
		"uuid3": named("uuid3", uuid.NewMD5),
		"uuid5": named("uuid5", uuid.NewSHA1),
		"uuid4": func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs("uuid4", args, kwargs, 0); err != nil {
				return nil, err
			}
			var u uuid.UUID
			sessionUUIDRandom(thread).getrandbits(128).FillBytes(u[:])
			u[6] = (u[6] & 0x0f) | 0x40
			u[8] = (u[8] & 0x3f) | 0x80
			return &uuidObj{u}, nil
		},
		"uuid1": py.Unavailable(
			"uuid.uuid1",
			"uuid1() needs a clock and a network address; use uuid.uuid4() (seeded per run) or uuid.uuid5(namespace, name)",
		),
	}, starlark.StringDict{
		"UUID":           typeUUID,
		"NAMESPACE_DNS":  &uuidObj{uuid.NameSpaceDNS},
		"NAMESPACE_URL":  &uuidObj{uuid.NameSpaceURL},
		"NAMESPACE_OID":  &uuidObj{uuid.NameSpaceOID},
		"NAMESPACE_X500": &uuidObj{uuid.NameSpaceX500},
	})
}
