package rlmctx

// Values held by variables are plain Go values of these kinds only:
//
//	string, bool, nil, int64, *big.Int (integers beyond int64), float64,
//	[]any (JSON arrays, lists), *Dict (JSON objects, ordered).
//
// JSON numbers decode to int64 when written without '.', 'e' or 'E' (as
// Python's json module does), else float64.

// Dict is an insertion-ordered string-keyed map, the Go form of a JSON object
// or Python dict. The zero value is empty and ready to use.
type Dict struct {
	keys []string
	m    map[string]any
}

// NewDict returns an empty Dict with room for n entries.
func NewDict(n int) *Dict { return &Dict{keys: make([]string, 0, n), m: make(map[string]any, n)} }

// Set sets k to v, appending k if new.
func (d *Dict) Set(k string, v any) {
	if d.m == nil {
		d.m = map[string]any{}
	}
	if _, ok := d.m[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.m[k] = v
}

// Get returns the value for k.
func (d *Dict) Get(k string) (any, bool) {
	v, ok := d.m[k]
	return v, ok
}

// Keys returns the keys in insertion order. The slice must not be modified.
func (d *Dict) Keys() []string { return d.keys }

// Len is the number of entries.
func (d *Dict) Len() int { return len(d.keys) }

// Has reports whether k is present.
func (d *Dict) Has(k string) bool {
	_, ok := d.m[k]
	return ok
}
