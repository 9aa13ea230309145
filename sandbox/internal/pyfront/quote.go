package pyfront

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyUnescape interprets the backslash escapes of a Python (non-raw)
// string or bytes body. Unknown escapes keep their backslash, as in
// CPython (which only warns).
func pyUnescape(body string, isBytes bool) (string, error) {
	if !strings.Contains(body, `\`) {
		return body, nil
	}
	var buf strings.Builder
	buf.Grow(len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			buf.WriteByte(c)
			i++
			continue
		}
		e := body[i+1]
		switch e {
		case '\n':
			i += 2
		case '\r':
			i += 2
			if i < len(body) && body[i] == '\n' {
				i++
			}
		case '\\', '\'', '"', 'a', 'b', 'f', 'n', 'r', 't', 'v':
			buf.WriteByte(simpleEscapes[e])
			i += 2
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i + 1
			n := 0
			for j < len(body) && j < i+4 && body[j] >= '0' && body[j] <= '7' {
				n = n*8 + int(body[j]-'0')
				j++
			}
			if isBytes {
				buf.WriteByte(byte(n))
			} else {
				buf.WriteRune(rune(n))
			}
			i = j
		case 'x':
			if i+4 > len(body) {
				return "", fmt.Errorf(`truncated \xXX escape`)
			}
			n, err := strconv.ParseUint(body[i+2:i+4], 16, 8)
			if err != nil {
				return "", fmt.Errorf(`truncated \xXX escape`)
			}
			if isBytes {
				buf.WriteByte(byte(n))
			} else {
				buf.WriteRune(rune(n))
			}
			i += 4
		case 'u', 'U':
			if isBytes {
				buf.WriteString(body[i : i+2])
				i += 2
				continue
			}
			size := 4
			if e == 'U' {
				size = 8
			}
			if i+2+size > len(body) {
				return "", fmt.Errorf(`truncated \%c escape`, e)
			}
			n, err := strconv.ParseUint(body[i+2:i+2+size], 16, 32)
			if err != nil || n > utf8.MaxRune {
				return "", fmt.Errorf(`invalid \%c escape`, e)
			}
			buf.WriteRune(rune(n))
			i += 2 + size
		case 'N':
			if isBytes {
				buf.WriteString(body[i : i+2])
				i += 2
				continue
			}
			return "", fmt.Errorf(`\N{...} escapes are not supported: write the character itself`)
		default:
			buf.WriteByte('\\')
			i++
		}
	}
	return buf.String(), nil
}

// splitStringPrefix splits a raw Python string literal into its prefix
// (lower-cased) and the quoted part.
func splitStringPrefix(raw string) (prefix, quoted string) {
	i := strings.IndexAny(raw, `'"`)
	return strings.ToLower(raw[:i]), raw[i:]
}

// stripQuotes removes the quotes (single or triple) around a literal body.
func stripQuotes(quoted string) (body string, triple bool) {
	q := quoted[0]
	if len(quoted) >= 6 && quoted[1] == q && quoted[2] == q {
		return quoted[3 : len(quoted)-3], true
	}
	return quoted[1 : len(quoted)-1], false
}

// unquote decodes a Python string or bytes literal (not an f-string).
func unquote(raw string) (s string, isBytes bool, err error) {
	prefix, quoted := splitStringPrefix(raw)
	isRaw := strings.Contains(prefix, "r")
	isBytes = strings.Contains(prefix, "b")
	body, _ := stripQuotes(quoted)
	if isBytes {
		for i := 0; i < len(body); i++ {
			if body[i] >= 0x80 {
				return "", true, fmt.Errorf("bytes can only contain ASCII literal characters")
			}
		}
	}
	if isRaw {
		return body, isBytes, nil
	}
	s, err = pyUnescape(body, isBytes)
	return s, isBytes, err
}

// simpleEscapes maps the character after a backslash to the byte it stands
// for, for Python's one-character escapes.
var simpleEscapes = [256]byte{'\\': '\\', '\'': '\'', '"': '"', 'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}
