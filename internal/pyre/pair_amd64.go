package pyre

// pairBlocks returns the first of blocks blocks of pairBlock positions
// that holds a position i with p1[i] == c1 and p2[i] == c2, and the mask
// of such positions in it (bit j for position block*pairBlock+j); when no
// block does, it returns blocks and 0. It reads p1 and p2 up to
// blocks*pairBlock bytes. SSE2, which every amd64 has: two 16-byte
// compares per 16 positions.
//
//go:noescape
func pairBlocks(p1, p2 *byte, blocks int, c1, c2 byte) (block int, mask uint32)
