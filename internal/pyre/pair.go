package pyre

import (
	"encoding/binary"
	"unsafe"
)

// pairBlock is the number of candidate positions pairBlocks tests per
// block.
const pairBlock = 32

// pairBlocksGeneric is pairBlocks in portable Go: 8 positions per word,
// where a byte of (p1 word ^ c1) | (p2 word ^ c2) is zero exactly when
// both bytes match (zeroBytes may also flag a byte above a zero one; the
// caller verifies every candidate).
func pairBlocksGeneric(p1, p2 *byte, blocks int, c1, c2 byte) (block int, mask uint32) {
	w1, w2 := lsb*uint64(c1), lsb*uint64(c2)
	a, b := unsafe.Pointer(p1), unsafe.Pointer(p2)
	for k := 0; k < blocks; k++ {
		off := k * pairBlock
		var m uint32
		for j := 0; j < pairBlock; j += 8 {
			z := zeroBytes((load64(a, off+j) ^ w1) | (load64(b, off+j) ^ w2))
			// One bit per byte: gather the top bits of the 8 bytes.
			m |= uint32((z>>7)*0x0102040810204080>>56) << j
		}
		if m != 0 {
			return k, m
		}
	}
	return blocks, 0
}

// load64 reads the little-endian word at p+off; the caller keeps it
// within the text.
func load64(p unsafe.Pointer, off int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, off))[:])
}
