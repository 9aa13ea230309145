package pyjson

import "iter"

// Values held by variables are plain Go values of these kinds only:
//
//	string, bool, nil, int64, *big.Int (integers beyond int64), float64,
//	[]any (JSON arrays, lists), *Dict (JSON objects, ordered).
//
// JSON numbers decode to int64 when written without '.', 'e' or 'E' (as
// Python's json module does), else float64.

// Dict is an insertion-ordered string-keyed map, the Go form of a JSON object
// or Python dict. The zero value is empty and ready to use. Small dicts are
// two slices; an index map is added past dictIndexMin entries.
type Dict struct {
	keys []string
	vals []any
	idx  map[string]int
}

// dictIndexMin is the size above which a Dict keeps an index map.
const dictIndexMin = 8

// NewDict returns an empty Dict with room for n entries.
func NewDict(n int) *Dict { return &Dict{keys: make([]string, 0, n), vals: make([]any, 0, n)} }

func (d *Dict) find(k string) int {
	if d.idx != nil {
		if i, ok := d.idx[k]; ok {
			return i
		}
		return -1
	}
	for i, kk := range d.keys {
		if kk == k {
			return i
		}
	}
	return -1
}

// Set sets k to v, appending k if new (an existing key keeps its position).
func (d *Dict) Set(k string, v any) {
	if i := d.find(k); i >= 0 {
		d.vals[i] = v
		return
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	switch {
	case d.idx != nil:
		d.idx[k] = len(d.keys) - 1
	case len(d.keys) > dictIndexMin:
		d.reindex()
	}
}

func (d *Dict) reindex() {
	d.idx = make(map[string]int, len(d.keys))
	for i, k := range d.keys {
		d.idx[k] = i
	}
}

// Get returns the value for k.
func (d *Dict) Get(k string) (any, bool) {
	if i := d.find(k); i >= 0 {
		return d.vals[i], true
	}
	return nil, false
}

// Has reports whether k is present.
func (d *Dict) Has(k string) bool { return d.find(k) >= 0 }

// Delete removes k, reporting whether it was present.
func (d *Dict) Delete(k string) bool {
	i := d.find(k)
	if i < 0 {
		return false
	}
	d.keys = append(d.keys[:i], d.keys[i+1:]...)
	d.vals = append(d.vals[:i], d.vals[i+1:]...)
	if d.idx != nil {
		if len(d.keys) > dictIndexMin {
			d.reindex()
		} else {
			d.idx = nil
		}
	}
	return true
}

// Keys returns the keys in insertion order. The slice must not be modified.
func (d *Dict) Keys() []string { return d.keys }

// All iterates over the entries in insertion order.
func (d *Dict) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for i, k := range d.keys {
			if !yield(k, d.vals[i]) {
				return
			}
		}
	}
}

// Len is the number of entries.
func (d *Dict) Len() int { return len(d.keys) }
