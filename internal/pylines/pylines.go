// Package pylines implements Python's line-break rules for str
// (str.splitlines): lines end at \n, \r\n, \r, \v, \f, \x1c-\x1e, \x85,
// \u2028 and \u2029. Text holding only \n among them, the common case, is
// handled with the standard library's vectorized searches instead of a
// loop over the bytes.
package pylines

import "strings"

// HasRare reports whether s holds a line break other than \n (each
// search is vectorized, unlike a loop over the bytes).
func HasRare(s string) bool {
	for _, c := range []byte{'\r', '\v', '\f', 0x1c, 0x1d, 0x1e} {
		if strings.IndexByte(s, c) >= 0 {
			return true
		}
	}
	return strings.Contains(s, "\u0085") || strings.Contains(s, "\u2028") || strings.Contains(s, "\u2029")
}

// Count is len(s.splitlines()) in Python: a final line break does not
// start another line.
func Count(s string) int {
	if !HasRare(s) {
		n := strings.Count(s, "\n") // vectorized: the common case
		if s != "" && s[len(s)-1] != '\n' {
			n++
		}
		return n
	}
	n, end := 0, 0 // end: where the last line break ends
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		case c == '\n', c == '\v', c == '\f', c >= 0x1c && c <= 0x1e:
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0x85: // U+0085
			i++
		case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9): // U+2028, U+2029
			i += 2
		default:
			continue
		}
		n++
		end = i + 1
	}
	if end < len(s) {
		n++ // a last line without a line break
	}
	return n
}
