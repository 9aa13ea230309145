package rlmctx

import "github.com/rlmhq/rlm/internal/pyjson"

// Dict is a JSON object with its key order kept, as Python's dict keeps it:
// the value of a typed variable decoded from a JSON object.
type Dict = pyjson.Dict

// SyntaxError is malformed JSON, JSON Lines or CSV input. It wraps ErrSyntax.
type SyntaxError = pyjson.SyntaxError

// NewDict returns an empty Dict with room for n keys.
func NewDict(n int) *Dict { return pyjson.NewDict(n) }
