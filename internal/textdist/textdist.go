// Package textdist measures how far apart two short strings are, for the
// "did you mean" hints of error messages (a NameError's near name, a
// missing store key's near keys). It is a leaf: it imports only the
// standard library, so the sandbox and the builtins above it share one
// implementation.
package textdist

// Levenshtein returns the edit distance of a and b in bytes: the fewest
// single-byte insertions, deletions and substitutions that turn a into b.
// It costs O(len(a)*len(b)) time and O(len(b)) memory, so callers bound
// the lengths they compare.
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
