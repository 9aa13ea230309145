package rlmctx

import (
	"context"
	"fmt"
)

// StoredFile is a store value kept in a file in the store's stored form
// (a text: its UTF-8 bytes; any other value: its JSON), such as a cluster's
// shared variable fetched into a local cache. [LoadOptions].StoredFiles
// serves "store:KEY" sources from such files, loaded as the store loads
// its own (a large text memory-mapped, JSON parsed).
type StoredFile struct {
	// Path is the file; it must not change while the value is in use.
	Path string
	// Type is the value's variable type.
	Type VarType
	// Text reports a text value (else the file holds JSON).
	Text bool
	// Size is the file's size in bytes.
	Size int64
}

// Encoding returns "text" or "json", the encoding of the stored form of
// a value (a str is stored as text).
func Encoding(value any) string {
	if _, ok := value.(string); ok {
		return encText
	}
	return encJSON
}

// CheckKey reports whether key can name a store value (ErrBadKey if not).
func CheckKey(key string) error { return checkKey(key) }

// CheckType reports whether v can be a variable of type t (ErrBadType if
// not).
func CheckType(t VarType, v any) error { return checkType(t, v) }

// loadStoredFile loads the value of "store:KEY" from opts.StoredFiles.
func loadStoredFile(ctx context.Context, source, key string, opts LoadOptions) (*Loaded, error) {
	f, err := opts.StoredFiles(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	v, _, err := readStored(f.Path, f.Text, f.Size, DefaultMmapThreshold)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return &Loaded{Value: v, Type: f.Type, Source: source}, nil
}
