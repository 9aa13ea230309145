package server

import (
	"bytes"
	"fmt"
	"net/http"
)

// checkJSONBudget scans a JSON document before anything decodes it and
// refuses one with more than maxValues values (objects, arrays, strings,
// numbers and literals; object keys are not counted) or nested deeper than
// maxDepth: decoding costs ~100–300 bytes of memory a value, so the count,
// not the body's size, bounds what decoding a request may allocate. The
// scan allocates nothing but a stack of maxDepth bytes and leaves syntax
// errors to the decoder.
func checkJSONBudget(data []byte, field string, maxValues, maxDepth int) error {
	stack := make([]byte, 0, min(maxDepth, 256)) // '{' or '[' per open container
	values := 0
	expectKey := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case ' ', '\t', '\r', '\n', ':':
			continue
		case '"':
			if !expectKey {
				values++
			}
			expectKey = false
			i = stringEnd(data, i)
		case '{', '[':
			values++
			if len(stack) >= maxDepth {
				return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: field, code: "json_too_deep",
					msg: fmt.Sprintf(
						"%s: JSON nested deeper than %d levels (the server's JSON depth limit)",
						firstNonEmpty(field, "body"),
						maxDepth,
					), err: ErrJSONTooDeep}
			}
			stack = append(stack, c)
			expectKey = c == '{'
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		default: // a number or a literal: skip to its end
			values++
			expectKey = false
			for i+1 < len(data) && !isJSONDelim(data[i+1]) {
				i++
			}
		}
		if values > maxValues {
			return &apiError{status: http.StatusRequestEntityTooLarge, typ: "invalid_request_error", param: field, code: "json_too_large",
				msg: fmt.Sprintf(
					"%s: more than %d JSON values (the server's JSON values limit); store large values with PUT /v1/vars/{key} and pass \"store:KEY\", or have the limit raised",
					firstNonEmpty(field, "body"),
					maxValues,
				), err: ErrJSONTooLarge}
		}
	}
	return nil
}

// stringEnd returns the index of the quote closing the string that opens
// at data[i] (len(data) if it is not closed).
func stringEnd(data []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return len(data)
		}
		j += k
		bs := 0
		for p := j - 1; p > i && data[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return j
		}
		j++
	}
}

func isJSONDelim(c byte) bool {
	switch c {
	case ',', ']', '}', ':', ' ', '\t', '\r', '\n', '"', '[', '{':
		return true
	}
	return false
}
