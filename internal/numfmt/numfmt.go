// Package numfmt formats counts for people and models: thousands
// separators ([Group]) and counted nouns ([Plural]). It is a leaf: it
// imports only the standard library, so context, builtins and orchestrator
// share one formatter.
package numfmt

import "strconv"

// Group formats n with thousands separators: 12345 -> "12,345",
// -1234567 -> "-1,234,567".
func Group(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	out = append(out, sign...)
	for i := 0; i < len(s); i++ {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Plural is n with its unit, grouped and in the plural unless n is 1:
// Plural(1, "line") is "1 line", Plural(1200, "line") "1,200 lines".
func Plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return Group(int64(n)) + " " + unit + "s"
}
