// Copyright 2017 The Bazel Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package starlark

import (
	"fmt"
	"hash/maphash"
	"os"
	"unsafe"
)

// hashtable is used to represent Starlark dict and set values.
//
// rlm: a compact, insertion-ordered table as CPython's dictobject.c
// (upstream: buckets of 8 entries of 56 bytes chained in a doubly linked
// insertion-order list). entries is a dense array of (hash, key, value)
// in insertion order, 40 bytes each; index is a sparse array of
// 1<<logSize slot numbers (int8, int16, int32 or int64 by table size)
// into entries, searched by open addressing with CPython's perturbed
// probing. A deleted entry leaves a tombstone (nil key) in entries and a
// dummy in index, both dropped when the table is next rebuilt. A table of
// 8 slots keeps its index inline (small), so a dict of up to 6 entries
// is two allocations: the Dict and its entries.
//
// Initialized instances of hashtable must not be copied.
type hashtable struct {
	_         noCopy         // triggers vet copylock check on this type.
	entries   []entry        // insertion order; key nil => deleted
	index     unsafe.Pointer // 1<<logSize slots of width bytes; nil when empty
	len       uint32         // number of live entries
	itercount uint32         // number of active iterators (ignored if frozen)
	head      uint32         // no live entry precedes entries[head]
	logSize   uint8
	width     uint8 // bytes per index slot: 1, 2, 4 or 8
	frozen    bool
	small     [minSlots]int8 // inline index of a table of minSlots slots
}

// noCopy is zero-sized type that triggers vet's copylock check.
// See https://github.com/golang/go/issues/8005#issuecomment-190753527.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

type entry struct {
	hash       uint32
	key, value Value // key nil => deleted
}

const (
	minLogSize = 3
	minSlots   = 1 << minLogSize

	ixEmpty = -1 // index slot never used
	ixDummy = -2 // index slot of a deleted entry
)

// usable returns how many entries (live or deleted) a table of n slots
// holds before it is rebuilt: two thirds, as CPython (6 for 8 slots).
func usable(n int) int { return n - n/3 }

// logSizeFor returns the log2 of the number of slots of a table that
// holds n entries.
func logSizeFor(n int) uint8 {
	log := uint8(minLogSize)
	for usable(1<<log) < n {
		log++
	}
	return log
}

// getIx returns the entry number in index slot i (or ixEmpty, ixDummy).
func (ht *hashtable) getIx(i uint) int {
	switch ht.width {
	case 1:
		return int(*(*int8)(unsafe.Add(ht.index, i)))
	case 2:
		return int(*(*int16)(unsafe.Add(ht.index, i*2)))
	case 4:
		return int(*(*int32)(unsafe.Add(ht.index, i*4)))
	default:
		return int(*(*int64)(unsafe.Add(ht.index, i*8)))
	}
}

// setIx sets index slot i to ix.
func (ht *hashtable) setIx(i uint, ix int) {
	switch ht.width {
	case 1:
		*(*int8)(unsafe.Add(ht.index, i)) = int8(ix)
	case 2:
		*(*int16)(unsafe.Add(ht.index, i*2)) = int16(ix)
	case 4:
		*(*int32)(unsafe.Add(ht.index, i*4)) = int32(ix)
	default:
		*(*int64)(unsafe.Add(ht.index, i*8)) = int64(ix)
	}
}

// indexWidth returns the bytes per slot of an index of 1<<log slots.
func indexWidth(log uint8) uint8 {
	switch {
	case log <= 7:
		return 1
	case log <= 15:
		return 2
	case log <= 31:
		return 4
	default:
		return 8
	}
}

// newIndex gives ht an empty index of 1<<log slots.
func (ht *hashtable) newIndex(log uint8) {
	n := 1 << log
	w := indexWidth(log)
	ht.logSize, ht.width = log, w
	if log == minLogSize {
		for i := range ht.small {
			ht.small[i] = ixEmpty
		}
		ht.index = unsafe.Pointer(&ht.small[0])
		return
	}
	words := make([]uint64, (n*int(w)+7)/8)
	for i := range words {
		words[i] = ^uint64(0) // ixEmpty in every width
	}
	ht.index = unsafe.Pointer(&words[0])
}

func (ht *hashtable) init(size int) {
	if size < 0 {
		panic("size < 0")
	}
	if size == 0 {
		return // allocated by the first insert
	}
	// rlm: sized exactly: a dict whose final size is known (a literal,
	// a JSON object) holds its entries in an array of that length.
	ht.newIndex(logSizeFor(size))
	ht.entries = make([]entry, 0, size)
}

// smallDict is a Dict with room for the entries of a small literal in
// the same allocation.
type smallDict struct {
	d    Dict
	ents [4]entry
}

// newDictOf returns an empty dict sized for the n entries of a literal
// (rlm): a literal of up to 4 entries, by far the most common (records
// made in a loop), holds them in the dict's own allocation, one
// allocation instead of two; a larger one gets an entries array of
// exactly n (a duplicate key leaves it one short).
func newDictOf(n int) *Dict {
	if n > len(smallDict{}.ents) {
		d := new(Dict)
		d.ht.init(n)
		return d
	}
	p := new(smallDict)
	p.d.ht.newIndex(logSizeFor(len(p.ents)))
	p.d.ht.entries = p.ents[:0:len(p.ents)]
	return &p.d
}

func (ht *hashtable) freeze() {
	if !ht.frozen {
		ht.frozen = true
		for i := range ht.entries {
			if e := &ht.entries[i]; e.key != nil {
				e.key.Freeze()
				e.value.Freeze()
			}
		}
	}
}

// hashOf returns the hash of key k.
func hashOf(k Value) (uint32, error) {
	if s, ok := k.(String); ok {
		return hashString(string(s)), nil
	}
	return k.Hash()
}

// probe searches the index for key k of hash h. It returns the entry
// number of k, or -1 and the first empty slot of k's probe sequence (where
// k goes). The table must have an index.
//
// rlm: two strs (most keys) or two ints of the int32 range are compared
// directly, without Equal's type checks and dynamic calls. Comparing
// other keys can run user code (a class's __eq__) that mutates the
// table. As CPython's lookdict, the probe then starts again if the arrays
// were replaced (a rebuild, a clear, a grown entries array) or the
// compared entry was deleted: the old mask, slot and entry number mean
// nothing in the new table. A cleared table has no index: the key is not
// found (insert gives the table a new index).
func (ht *hashtable) probe(k Value, h uint32) (slot uint, ix int, err error) {
	ks, kIsStr := k.(String)
	var ki int64
	kIsInt := false
	if i, ok := k.(Int); ok {
		ki, kIsInt = i.small32()
	}
restart:
	if ht.index == nil {
		return 0, -1, nil
	}
	mask := uint(1)<<ht.logSize - 1
	perturb := uint(h)
	i := uint(h) & mask
	for {
		ix := ht.getIx(i)
		if ix == ixEmpty {
			return i, -1, nil
		}
		if ix >= 0 {
			e := &ht.entries[ix]
			if e.hash == h {
				eq, known := false, false
				if kIsStr {
					if es, ok := e.key.(String); ok {
						eq, known = ks == es, true
					}
				} else if kIsInt {
					if ei, ok := e.key.(Int); ok {
						if b, ok := ei.small32(); ok {
							eq, known = ki == b, true
						}
					}
				}
				if !known {
					index, ents := ht.index, unsafe.SliceData(ht.entries)
					if eq, err = Equal(k, e.key); err != nil {
						return 0, -1, err // e.g. excessively recursive tuple
					}
					if ht.index != index || unsafe.SliceData(ht.entries) != ents || ht.entries[ix].key == nil {
						goto restart // mutated by the comparison
					}
				}
				if eq {
					return i, ix, nil
				}
			}
		}
		perturb >>= 5
		i = (i*5 + perturb + 1) & mask
	}
}

// emptySlot returns the first empty slot of the probe sequence of hash h.
func (ht *hashtable) emptySlot(h uint32) uint {
	mask := uint(1)<<ht.logSize - 1
	perturb := uint(h)
	i := uint(h) & mask
	for ht.getIx(i) != ixEmpty {
		perturb >>= 5
		i = (i*5 + perturb + 1) & mask
	}
	return i
}

func (ht *hashtable) insert(k, v Value) error {
	if err := ht.checkMutable("insert into"); err != nil {
		return err
	}
	h, err := hashOf(k)
	if err != nil {
		return err
	}
	if ht.index == nil {
		ht.newIndex(minLogSize)
	}
	slot, ix, err := ht.probe(k, h)
	if err != nil {
		return err
	}
	if ix >= 0 {
		ht.entries[ix].value = v // key already present; update value
		return nil
	}
	if ht.index == nil { // rlm: cleared by a key's __eq__ in probe
		ht.newIndex(minLogSize)
		slot = ht.emptySlot(h)
	}
	n := len(ht.entries)
	if n >= usable(1<<ht.logSize) {
		ht.rebuild(ht.grownLogSize())
		slot = ht.emptySlot(h)
		n = len(ht.entries)
	}
	if n == cap(ht.entries) {
		ht.growEntries()
	}
	ht.entries = append(ht.entries, entry{hash: h, key: k, value: v})
	ht.setIx(slot, n)
	ht.len++
	return nil
}

// grownLogSize is the size of the table that replaces a full one: room
// for twice the live entries, as CPython (deleted ones are dropped).
func (ht *hashtable) grownLogSize() uint8 {
	return logSizeFor(2*int(ht.len) + 1)
}

// growEntries reallocates the full entries array, doubling it up to what
// the index holds.
func (ht *hashtable) growEntries() {
	ht.entries = append(make([]entry, 0, ht.entriesCap()), ht.entries...)
}

// entriesCap is the capacity of the entries array that replaces a full
// one.
func (ht *hashtable) entriesCap() int {
	return min(max(2*cap(ht.entries), 4), usable(1<<ht.logSize))
}

// rebuild replaces the index by one of 1<<log slots and the entries by
// the live ones, in order.
func (ht *hashtable) rebuild(log uint8) {
	ht.reindex(ht.entries, log, ht.rebuiltCap(log))
}

// rebuiltCap is the capacity of the entries array of a table rebuilt
// with 1<<log slots.
func (ht *hashtable) rebuiltCap(log uint8) int {
	return min(max(2*int(ht.len), 4), usable(1<<log))
}

// reindex gives ht a new index of 1<<log slots and, as its entries, the
// live entries of ents, in order, in an array of capacity c (their
// stored hashes are reused: no key is hashed or compared).
func (ht *hashtable) reindex(ents []entry, log uint8, c int) {
	ht.newIndex(log)
	live := make([]entry, 0, c)
	for i := range ents {
		if e := &ents[i]; e.key != nil {
			ht.setIx(ht.emptySlot(e.hash), len(live))
			live = append(live, *e)
		}
	}
	ht.entries = live
	ht.head = 0
}

// growBytes returns how many bytes the next insertion of a new key
// allocates (0 when it fits in place).
func (ht *hashtable) growBytes() int64 {
	const entryBytes = int64(unsafe.Sizeof(entry{}))
	if ht.index == nil {
		return 0
	}
	n := len(ht.entries)
	if n >= usable(1<<ht.logSize) {
		log := ht.grownLogSize()
		index := int64(0) // a table of minSlots keeps its index inline
		if log > minLogSize {
			index = int64(1) << log * int64(indexWidth(log))
		}
		return entryBytes*int64(ht.rebuiltCap(log)) + index
	}
	if n == cap(ht.entries) {
		return entryBytes * int64(ht.entriesCap())
	}
	return 0
}

func (ht *hashtable) lookup(k Value) (v Value, found bool, err error) {
	h, err := hashOf(k)
	if err != nil {
		return nil, false, err // unhashable
	}
	if ht.len == 0 {
		return None, false, nil // empty
	}
	_, ix, err := ht.probe(k, h)
	if err != nil {
		return nil, false, err
	}
	if ix < 0 {
		return None, false, nil // not found
	}
	return ht.entries[ix].value, true, nil
}

// count returns the number of distinct elements of iter that are elements of ht.
func (ht *hashtable) count(iter Iterator) (int, error) {
	if ht.len == 0 {
		return 0, nil // empty
	}
	var k Value
	count := 0
	// A bit per entry records the elements of ht seen.
	seen := make([]uint64, (len(ht.entries)+63)/64)
	for iter.Next(&k) && count != int(ht.len) {
		h, err := hashOf(k)
		if err != nil {
			return 0, err // unhashable
		}
		_, ix, err := ht.probe(k, h)
		if err != nil {
			return 0, err
		}
		if ix/64 >= len(seen) { // rlm: a key's __eq__ inserted into ht
			seen = append(seen, make([]uint64, ix/64+1-len(seen))...)
		}
		if ix >= 0 && seen[ix/64]&(1<<(ix%64)) == 0 {
			seen[ix/64] |= 1 << (ix % 64)
			count++
		}
	}
	return count, nil
}

// Items returns all the items in the map (as key/value pairs) in insertion order.
func (ht *hashtable) items() []Tuple {
	items := make([]Tuple, 0, ht.len)
	array := make([]Value, ht.len*2) // allocate a single backing array
	for i := range ht.entries {
		e := &ht.entries[i]
		if e.key == nil {
			continue
		}
		pair := Tuple(array[:2:2])
		array = array[2:]
		pair[0] = e.key
		pair[1] = e.value
		items = append(items, pair)
	}
	return items
}

func (ht *hashtable) first() (Value, bool) {
	for i := int(ht.head); i < len(ht.entries); i++ {
		if k := ht.entries[i].key; k != nil {
			if !ht.frozen { // a frozen table may be shared
				ht.head = uint32(i)
			}
			return k, true
		}
	}
	return None, false
}

func (ht *hashtable) keys() []Value {
	keys := make([]Value, 0, ht.len)
	for i := range ht.entries {
		if k := ht.entries[i].key; k != nil {
			keys = append(keys, k)
		}
	}
	return keys
}

func (ht *hashtable) delete(k Value) (v Value, found bool, err error) {
	if err := ht.checkMutable("delete from"); err != nil {
		return nil, false, err
	}
	if ht.len == 0 {
		return None, false, nil // empty
	}
	h, err := hashOf(k)
	if err != nil {
		return nil, false, err // unhashable
	}
	slot, ix, err := ht.probe(k, h)
	if err != nil {
		return nil, false, err
	}
	if ix < 0 {
		return None, false, nil // not found
	}
	v = ht.entries[ix].value
	ht.entries[ix] = entry{}
	ht.setIx(slot, ixDummy)
	ht.len--
	return v, true, nil
}

// popLast removes the last live entry and returns it (found false when
// the table is empty). rlm: dict.popitem pops the last item, as CPython
// (upstream: the first). The entry's index slot is found by its number,
// without comparing keys, and the tombstones ending the entries array
// are dropped with it (as CPython's popitem), so popping a dict empty is
// linear.
func (ht *hashtable) popLast() (k, v Value, found bool, err error) {
	if ht.len == 0 {
		return nil, nil, false, nil
	}
	if err := ht.checkMutable("delete from"); err != nil {
		return nil, nil, false, err
	}
	i := len(ht.entries) - 1
	for ht.entries[i].key == nil {
		i--
	}
	e := &ht.entries[i]
	k, v = e.key, e.value
	mask := uint(1)<<ht.logSize - 1
	perturb := uint(e.hash)
	j := uint(e.hash) & mask
	for ht.getIx(j) != i {
		perturb >>= 5
		j = (j*5 + perturb + 1) & mask
	}
	ht.setIx(j, ixDummy)
	clear(ht.entries[i:])
	ht.entries = ht.entries[:i]
	ht.head = min(ht.head, uint32(i))
	ht.len--
	return k, v, true, nil
}

// checkMutable reports an error if the hash table should not be mutated.
// verb+" dict" should describe the operation.
func (ht *hashtable) checkMutable(verb string) error {
	if ht.frozen {
		return fmt.Errorf("cannot %s frozen hash table", verb)
	}
	if ht.itercount > 0 {
		return fmt.Errorf("cannot %s hash table during iteration", verb)
	}
	return nil
}

func (ht *hashtable) clear() error {
	if err := ht.checkMutable("clear"); err != nil {
		return err
	}
	ht.entries = nil
	ht.index = nil
	ht.logSize, ht.width = 0, 0
	ht.len = 0
	ht.head = 0
	return nil
}

// copyFrom makes the empty table ht a copy of other's live entries, in
// order: the arrays are copied as they are when other has no tombstones.
func (ht *hashtable) copyFrom(other *hashtable) {
	n := int(other.len)
	if n == 0 {
		return
	}
	if n != len(other.entries) {
		// rlm: without the tombstones, reusing the stored hashes (no
		// key's __hash__ or __eq__ runs).
		ht.reindex(other.entries, logSizeFor(n), n)
		ht.len = other.len
		return
	}
	ht.entries = append(make([]entry, 0, n), other.entries...)
	ht.len = other.len
	if other.logSize == minLogSize {
		ht.logSize, ht.width = other.logSize, other.width
		ht.small = other.small
		ht.index = unsafe.Pointer(&ht.small[0])
		return
	}
	ht.newIndex(other.logSize)
	size := uintptr(1) << other.logSize * uintptr(other.width)
	copy(unsafe.Slice((*byte)(ht.index), size), unsafe.Slice((*byte)(other.index), size))
}

func (ht *hashtable) addAll(other *hashtable) error {
	for i := range other.entries {
		if e := &other.entries[i]; e.key != nil {
			if err := ht.insert(e.key, e.value); err != nil {
				return err
			}
		}
	}
	return nil
}

// dump is provided as an aid to debugging.
func (ht *hashtable) dump() {
	fmt.Fprintf(os.Stderr, "hashtable %p len=%d entries=%d slots=%d\n",
		ht, ht.len, len(ht.entries), 1<<ht.logSize)
	if ht.index != nil {
		for i := uint(0); i < 1<<ht.logSize; i++ {
			fmt.Fprintf(os.Stderr, "\tslot %d: %d\n", i, ht.getIx(i))
		}
	}
	for i, e := range ht.entries {
		fmt.Fprintf(os.Stderr, "\tentry %d hash=%d key=%v value=%v\n", i, e.hash, e.key, e.value)
	}
}

func (ht *hashtable) iterate() *keyIterator {
	if !ht.frozen {
		ht.itercount++
	}
	return &keyIterator{ht: ht}
}

type keyIterator struct {
	ht *hashtable
	i  int
}

func (it *keyIterator) Next(k *Value) bool {
	ents := it.ht.entries
	for it.i < len(ents) {
		e := &ents[it.i]
		it.i++
		if e.key != nil {
			*k = e.key
			return true
		}
	}
	return false
}

func (it *keyIterator) Done() {
	if !it.ht.frozen {
		it.ht.itercount--
	}
}

// all is a go1.23 iterator over the entries of the hash table.
func (ht *hashtable) all(yield func(k, v Value) bool) {
	if !ht.frozen {
		ht.itercount++
		defer func() { ht.itercount-- }()
	}
	for i := range ht.entries {
		if e := &ht.entries[i]; e.key != nil && !yield(e.key, e.value) {
			return
		}
	}
}

var seed = maphash.MakeSeed()

// hashString computes the hash of s.
func hashString(s string) uint32 {
	if len(s) >= 12 {
		// Call the Go runtime's optimized hash implementation,
		// which uses the AES instructions on amd64 and arm64 machines.
		h := maphash.String(seed, s)
		return uint32(h>>32) ^ uint32(h)
	}
	return softHashString(s)
}

// softHashString computes the 32-bit FNV-1a hash of s in software.
func softHashString(s string) uint32 {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
