package sandbox

import (
	"unsafe"

	"go.starlark.net/starlark"
)

// iface is the layout of a non-empty interface value such as
// starlark.Value: its type word and its data word.
type iface struct{ tab, data unsafe.Pointer }

// strTab is the type word of a starlark.String held in a starlark.Value.
var strTab = func() unsafe.Pointer {
	var v starlark.Value = starlark.String("")
	return (*iface)(unsafe.Pointer(&v)).tab
}()

// boxStrings returns parts as Values without an allocation per string.
// Converting a string to an interface copies its 16-byte header into a
// new allocation; here each Value's data word points at its element of
// parts instead, so the caller must never change parts afterwards (it
// gives the array up). One array of headers then serves all the strings
// (a split of a 10 MB text into 1.7M words: 1.7M allocations fewer); a
// Value kept alone keeps the whole array alive, 16 bytes per part, next
// to the text the parts point into anyway.
func boxStrings(parts []string) []starlark.Value {
	elems := make([]starlark.Value, len(parts))
	for i := range parts {
		v := (*iface)(unsafe.Pointer(&elems[i]))
		v.tab = strTab
		v.data = unsafe.Pointer(&parts[i])
	}
	return elems
}
