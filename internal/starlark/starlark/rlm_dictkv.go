package starlark

import (
	"unsafe"

	"github.com/rlmhq/rlm/internal/starlark/internal/compile"
)

// rlm: a dict literal of up to 4 entries with constant keys (MAKEDICTKV,
// e.g. the record {"id": i, "v": i % 7} made in a loop) builds the same
// table every time it runs: the same keys, so the same hashes, the same
// index slots and the same order. The first dict a site makes, if its
// keys are distinct, is kept as the site's template (hashes, keys and the
// index, without the values), and the dicts it makes after are copies of
// it with their values filled in: no hashing, probing or inserting per
// entry.

// dictKVSites is the templates of one function's MAKEDICTKV sites
// (compile.Funcode.RLMDictKV), never changed once stored: a site is
// added by storing a new one.
type dictKVSites struct {
	sites []*dictKVSite
}

// dictKVSite is the template of the dict literal at pc.
type dictKVSite struct {
	pc    uint32
	n     int
	ents  [4]entry // hash and key of each entry, in order; values nil
	small [minSlots]int8
	ok    bool // false: the literal's keys repeat, no template
}

// dictKVSiteAt returns the template of f's dict literal at pc, nil if it
// has none yet.
func dictKVSiteAt(f *compile.Funcode, pc uint32) *dictKVSite {
	if s, _ := f.RLMDictKV.Load().(*dictKVSites); s != nil {
		for _, site := range s.sites {
			if site.pc == pc {
				return site
			}
		}
	}
	return nil
}

// addDictKVSite records d, the dict just made from the keys and values
// kv alternating by f's dict literal at pc, as that site's template (or
// as no template when its keys repeat). Two threads adding at once may
// lose one addition: that site gets its template the next time it runs.
func addDictKVSite(f *compile.Funcode, pc uint32, d *Dict, kv []Value) {
	n := len(kv) / 2
	site := &dictKVSite{pc: pc, n: n}
	ht := &d.ht
	if int(ht.len) == n && len(ht.entries) == n && ht.logSize == minLogSize && !ht.frozen {
		for i := range ht.entries {
			site.ents[i] = entry{hash: ht.entries[i].hash, key: ht.entries[i].key}
			if !sameConstKey(kv[2*i], site.ents[i].key) {
				return // not a literal of constant keys: no template
			}
		}
		site.small = ht.small
		site.ok = true
	}
	old, _ := f.RLMDictKV.Load().(*dictKVSites)
	next := &dictKVSites{}
	if old != nil {
		for _, s := range old.sites {
			if s.pc == pc {
				return
			}
		}
		next.sites = append(next.sites, old.sites...)
	}
	next.sites = append(next.sites, site)
	if old == nil {
		f.RLMDictKV.CompareAndSwap(nil, next)
	} else {
		f.RLMDictKV.CompareAndSwap(old, next)
	}
}

// make returns a new dict of the keys and values kv alternating, copied
// from the template, or nil if there is no template or kv's keys are not
// the template's.
func (site *dictKVSite) make(kv []Value) *Dict {
	n := len(kv) / 2
	if !site.ok || n != site.n {
		return nil
	}
	for i := 0; i < n; i++ {
		if !sameConstKey(kv[2*i], site.ents[i].key) {
			return nil
		}
	}
	p := new(smallDict)
	p.ents = site.ents
	for i := 0; i < n; i++ {
		p.ents[i].value = kv[2*i+1]
	}
	ht := &p.d.ht
	ht.logSize, ht.width = minLogSize, indexWidth(minLogSize)
	ht.small = site.small
	ht.index = unsafe.Pointer(&ht.small[0])
	ht.entries = p.ents[:n:len(p.ents)]
	ht.len = uint32(n)
	return &p.d
}

// sameConstKey reports whether k is the constant key c: the same str, or
// the same int in the same representation (ints of the int32 range; an
// int past it is never the same, and the literal is then made key by
// key).
func sameConstKey(k, c Value) bool {
	switch k := k.(type) {
	case String:
		c, ok := c.(String)
		// The key is the constant itself (the same bytes) but for
		// another module made from the same program.
		return ok && len(k) == len(c) && (unsafe.StringData(string(k)) == unsafe.StringData(string(c)) || k == c)
	case Int:
		c, ok := c.(Int)
		return ok && k.impl == c.impl
	}
	return false
}
