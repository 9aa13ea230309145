package rlmctx

import (
	"errors"

	"github.com/rlmhq/rlm/internal/pyjson"
)

// Sentinel errors. Errors returned by this package wrap one of these.
var (
	// ErrInvalidName: a variable name is not a valid Python identifier.
	ErrInvalidName = errors.New("rlmctx: invalid variable name")
	// ErrDuplicateVar: a variable with this name already exists.
	ErrDuplicateVar = errors.New("rlmctx: duplicate variable")
	// ErrBadSpec: a --var NAME=SOURCE spec could not be parsed.
	ErrBadSpec = errors.New("rlmctx: bad variable spec")
	// ErrBadType: an unknown type name, or a value that does not fit its type.
	ErrBadType = errors.New("rlmctx: bad variable type")
	// ErrInvalidUTF8: text input is not valid UTF-8.
	ErrInvalidUTF8 = pyjson.ErrInvalidUTF8
	// ErrSyntax: malformed JSON, JSON Lines or CSV input (see *SyntaxError).
	ErrSyntax = pyjson.ErrSyntax
	// ErrUnsupportedValue: a Go value that cannot be a variable value.
	ErrUnsupportedValue = pyjson.ErrUnsupportedValue
	// ErrNotFound: no variable or store key with this name.
	ErrNotFound = errors.New("rlmctx: not found")
	// ErrVersionMismatch: SetIfVersion saw a different version than expected.
	ErrVersionMismatch = errors.New("rlmctx: version mismatch")
	// ErrNoStore: a store:KEY source was used without a store.
	ErrNoStore = errors.New("rlmctx: no variable store")
	// ErrStoreClosed: the store was used after Close.
	ErrStoreClosed = errors.New("rlmctx: store closed")
	// ErrNotRegular: a source that is a device, FIFO or socket (they may
	// never end, or never start).
	ErrNotRegular = errors.New("rlmctx: not a regular file")
	// ErrBadKey: an empty store key, or one that is not valid UTF-8.
	ErrBadKey = errors.New("rlmctx: bad store key")
	// ErrCorrupt: a store entry whose metadata or value file cannot be
	// read. Nothing is deleted: [Store.Fsck] reports it and, asked to
	// repair, moves it to the quarantine directory.
	ErrCorrupt = errors.New("rlmctx: corrupted store entry")
	// ErrNewerFormat: a store entry written by a newer version of rlm (an
	// unknown format or value encoding). It is never modified or deleted.
	ErrNewerFormat = errors.New("rlmctx: store entry written by a newer rlm")
	// ErrBadScope: a scope other than global, agent:ID or session:ID.
	ErrBadScope = errors.New("rlmctx: bad scope")
)
