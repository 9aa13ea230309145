package py

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

//go:generate go run testdata/gen_casemap.go

// Python's str case methods use Unicode's full case mappings (ß.upper()
// is SS, İ.lower() is i̇) and lower-case a final capital sigma as ς; Go's
// unicode package has the one-to-one mappings only. The differences are
// in casemap_table.go, generated from CPython 3.11. ASCII text never
// reaches these functions.

// caseMap is the interpreter's PyOps.CaseMap: str.upper, lower, title
// and capitalize of non-ASCII text.
func caseMap(name, s string) string {
	switch name {
	case "upper":
		return pyUpper(s)
	case "lower":
		return pyLower(s)
	}
	return pyTitle(s, name == "capitalize")
}

// caseLowerDotI is the only code point whose full lower case differs from
// the simple one: İ (U+0130) -> i̇.
const caseLowerDotI = "i\u0307"

// upperSpecial marks the code points below 0x10000 in caseUpper (all of
// them are), so that most runes skip the map lookup.
var upperSpecial = func() (bits [0x10000 / 64]uint64) {
	for r := range caseUpper {
		bits[r/64] |= 1 << (r % 64)
	}
	return
}()

// pyUpper is str.upper.
func pyUpper(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteByte(byte(r))
		case r < 0x10000 && upperSpecial[r/64]&(1<<(r%64)) != 0:
			b.WriteString(caseUpper[r])
		default:
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// pyLower is str.lower.
func pyLower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case 0x130:
			b.WriteString(caseLowerDotI)
		case 'Σ':
			if finalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			if r < utf8.RuneSelf {
				if 'A' <= r && r <= 'Z' {
					r += 'a' - 'A'
				}
				b.WriteByte(byte(r))
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
		}
	}
	return b.String()
}

// pyCasefold is str.casefold.
func pyCasefold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if m, ok := caseFold[r]; ok {
			b.WriteString(m)
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// pySwapcase is str.swapcase.
func pySwapcase(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case unicode.IsUpper(r):
			switch r {
			case 0x130:
				b.WriteString(caseLowerDotI)
			case 'Σ':
				if finalSigma(s, i) {
					b.WriteRune('ς')
				} else {
					b.WriteRune('σ')
				}
			default:
				b.WriteRune(unicode.ToLower(r))
			}
		case unicode.IsLower(r):
			if m, ok := caseUpper[r]; ok {
				b.WriteString(m)
			} else {
				b.WriteRune(unicode.ToUpper(r))
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pyTitle is str.title (capitalize: only the first character is
// title-cased, and the rest lower-cased).
func pyTitle(s string, capitalize bool) string {
	var b strings.Builder
	b.Grow(len(s))
	prevCased := false
	for i, r := range s {
		upper := !prevCased
		if capitalize {
			upper = i == 0
		}
		if upper {
			if m, ok := caseTitle[r]; ok {
				b.WriteString(m)
			} else {
				b.WriteRune(unicode.ToTitle(r))
			}
		} else {
			switch r {
			case 0x130:
				b.WriteString(caseLowerDotI)
			case 'Σ':
				if finalSigma(s, i) {
					b.WriteRune('ς')
				} else {
					b.WriteRune('σ')
				}
			default:
				b.WriteRune(unicode.ToLower(r))
			}
		}
		prevCased = isCased(r)
	}
	return b.String()
}

// isCased approximates Unicode's Cased property.
func isCased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
}

// isCaseIgnorable approximates Unicode's Case_Ignorable property.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0xB7, 0x2018, 0x2019, 0x2024:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// finalSigma reports whether the capital sigma at byte offset i of s ends
// a word (Unicode's Final_Sigma condition): a cased letter before it and
// none after it, case-ignorable characters skipped.
func finalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if !isCaseIgnorable(r) {
			before = isCased(r)
			break
		}
	}
	if !before {
		return false
	}
	for _, r := range s[i+len("Σ"):] {
		if !isCaseIgnorable(r) {
			return !isCased(r)
		}
	}
	return true
}
