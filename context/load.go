package rlmctx

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/rlmhq/rlm/internal/pyjson"
)

// VarSpec is a parsed --var NAME[:TYPE]=SOURCE.
type VarSpec struct {
	Name   string
	Type   VarType // "" = infer
	Source string
}

// StorePrefix marks a store source: store:KEY.
const StorePrefix = "store:"

// ParseVarSpec parses "NAME=SOURCE" or "NAME:TYPE=SOURCE", where SOURCE is
// a file, a directory, "-" (stdin) or "store:KEY".
func ParseVarSpec(spec string) (VarSpec, error) {
	lhs, src, ok := strings.Cut(spec, "=")
	if !ok || strings.TrimSpace(lhs) == "" {
		return VarSpec{}, fmt.Errorf("%w %q: expected NAME=SOURCE, e.g. doc=notes.txt, data:json=- or ctx=store:KEY", ErrBadSpec, spec)
	}
	if src == "" {
		return VarSpec{}, fmt.Errorf(
			"%w %q: empty SOURCE after '=' (give a file, a directory, - for stdin, or store:KEY)",
			ErrBadSpec,
			spec,
		)
	}
	name, typ, _ := strings.Cut(lhs, ":")
	vs := VarSpec{Name: strings.TrimSpace(name), Source: src}
	if err := ValidateName(vs.Name); err != nil {
		return VarSpec{}, fmt.Errorf("variable spec %q: %w", spec, err)
	}
	t, err := ParseVarType(typ)
	if err != nil {
		return VarSpec{}, fmt.Errorf("variable spec %q: %w", spec, err)
	}
	vs.Type = t
	return vs, nil
}

// LoadOptions configures [LoadSource].
type LoadOptions struct {
	// Type is the requested variable type ("" = infer). Text loads any file
	// as raw text (even .json); a structured type (json, conversation,
	// tool_outputs, working_memory) parses stdin and unknown extensions as
	// JSON.
	Type VarType
	// Format overrides the extension: "text", "json", "jsonl" or "csv".
	Format string
	// Stdin is read for the source "-".
	Stdin io.Reader
	// Store serves "store:KEY" sources.
	Store *Store
	// StoredFiles, if set, serves "store:KEY" sources in place of Store:
	// it returns the file holding KEY's value (see [StoredFile]).
	StoredFiles func(ctx context.Context, key string) (StoredFile, error)

	// Values, when set, makes a host's values (an interpreter's) of a JSON
	// or JSON Lines document that LoadVar outlines, in the same pass: the
	// variable holds them until the host takes them ([Variable.TakeValues])
	// instead of decoding its document again. It is called once per
	// document, for a builder of that document's values.
	Values func() pyjson.Builder[any]
	// MappedMin is the size from which such a document (with Values) is
	// read through a memory map (0: MappedJSONMin; see loadMappedJSON).
	MappedMin int64

	// CountHead counts the tokens of a large JSON document's summary
	// head as it is loaded, before its values are made (countHead; only
	// for a document read through a memory map), for a caller that
	// shows its summary: the count's garbage is then collected beside a
	// small heap, not held on top of the document's values.
	CountHead bool
	// Pause, when set, is called once the load is about to make the
	// source's values (after CountHead's count): rlm pauses its
	// collector there. It may be called more than once.
	Pause func()

	// outline: a JSON document is only outlined (LoadVar): no Go value.
	outline bool
}

// pause calls Pause if set.
func (o *LoadOptions) pause() {
	if o.Pause != nil {
		o.Pause()
	}
}

// Loaded is a value read by [LoadSource].
type Loaded struct {
	Value    any
	Type     VarType // requested type, or inferred
	Source   string
	Warnings []string
	// doc is the JSON text Value was decoded from (a JSON file or stdin),
	// handed to the variable (see [Variable.Document]).
	doc []byte
	// outline, when set, stands for the document in place of Value (nil).
	outline *docOutline
	// docMap, when set, is a memory map of the file that doc is part of
	// (after any byte order mark; see loadMappedJSON).
	docMap []byte
	// head is the token count of the document's summary excerpt, made
	// before its values (see countHead).
	head headCount
}

// Source formats.
const (
	FormatText  = "text"
	FormatJSON  = "json"
	FormatJSONL = "jsonl"
	FormatCSV   = "csv"
)

// LoadSource reads one source: a text file (any extension not below) is a
// str; .json a parsed value; .jsonl/.ndjson a list (one value per line);
// .csv/.tsv a list of dicts (first row = header); a directory a files dict
// of relative path -> content (binary files skipped with a warning, symlinks
// leaving the directory not followed); "-" stdin; "store:KEY" a store
// value. On error nothing is returned. Text is held without copying (peak
// memory ~1x the file).
func LoadSource(ctx context.Context, source string, opts LoadOptions) (*Loaded, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var l *Loaded
	var err error
	switch {
	case strings.HasPrefix(source, StorePrefix):
		opts.pause()
		if opts.StoredFiles != nil {
			l, err = loadStoredFile(ctx, source, strings.TrimPrefix(source, StorePrefix), opts)
		} else {
			l, err = loadStore(source, opts)
		}
	case source == "-":
		opts.pause()
		l, err = loadStdin(opts)
	default:
		l, err = loadPath(ctx, source, opts)
	}
	if err != nil {
		return nil, err
	}
	if l.outline != nil && opts.Type != "" && !l.outline.fitsType(opts.Type) {
		// The Go value's check says why it does not fit.
		if l.Value, err = decodeDocument(l.doc, l.outline.lines, l.docMap != nil, l.Source, 0); err != nil {
			return nil, err
		}
		if l.outline.lines {
			l.doc = nil // no JSON document stands for the value
		}
		l.outline = nil
	}
	switch {
	case opts.Type != "":
		if l.outline == nil {
			if err := checkType(opts.Type, l.Value); err != nil {
				return nil, fmt.Errorf("%s: %w", source, err)
			}
		}
		l.Type = opts.Type
	case l.Type != "":
	case l.outline != nil:
		l.Type = l.outline.inferType()
	default:
		l.Type = InferType(l.Value)
	}
	return l, nil
}

// LoadVar loads spec's source and makes the variable.
func LoadVar(ctx context.Context, spec VarSpec, opts LoadOptions) (*Variable, []string, error) {
	if spec.Type != "" {
		opts.Type = spec.Type
	}
	opts.outline = true
	l, err := LoadSource(ctx, spec.Source, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	if l.outline != nil {
		v, err := newDocVariable(spec.Name, l.Type, l.Source, l.doc, l.outline)
		if v != nil {
			v.docMap, v.head = l.docMap, l.head
		}
		return v, l.Warnings, err
	}
	v, err := NewVariable(spec.Name, l.Value, WithType(l.Type), WithSource(l.Source), withDocument(l.doc))
	if err != nil {
		return nil, nil, err
	}
	return v, l.Warnings, nil
}

func loadStore(source string, opts LoadOptions) (*Loaded, error) {
	key := strings.TrimPrefix(source, StorePrefix)
	if opts.Store == nil {
		return nil, fmt.Errorf("%s: %w (LoadOptions.Store is nil)", source, ErrNoStore)
	}
	if path, ref, err := opts.Store.documentFile(key); err == nil && path != "" {
		// A JSON value is read as a JSON file is: its text is the
		// variable's document (outlined, and hashed by its text for
		// resume), and its interpreter values are made in the same pass
		// (opts.Values); the store does not keep a Go value of it. A file
		// replaced or removed meanwhile is read through GetRef.
		l, err := loadFile(path, ref.SizeBytes, FormatJSON, &opts)
		if err == nil {
			l.Source, l.Type = source, ref.Type
			return l, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
	}
	v, ref, err := opts.Store.GetRef(key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return &Loaded{Value: v, Type: ref.Type, Source: source}, nil
}

func structured(t VarType) bool {
	switch t {
	case JSON, Conversation, ToolOutputs, WorkingMemory, Files:
		return true
	}
	return false
}

func loadStdin(opts LoadOptions) (*Loaded, error) {
	if opts.Stdin == nil {
		return nil, errors.New("-: no standard input available")
	}
	data, err := io.ReadAll(opts.Stdin)
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	format := opts.Format
	if format == "" {
		format = FormatText
		if structured(opts.Type) {
			format = FormatJSON
		}
	}
	v, doc, o, warns, err := decodeFormat(data, format, "stdin", &opts)
	if err != nil {
		return nil, err
	}
	return &Loaded{Value: v, Source: "stdin", Warnings: warns, doc: doc, outline: o}, nil
}

// FormatOf is the format LoadSource reads a file in, from its extension
// and the requested type: FormatText, FormatJSON, FormatJSONL or FormatCSV.
func FormatOf(path string, t VarType) string { return formatOf(path, t) }

// formatOf picks the format from the extension.
func formatOf(path string, t VarType) string {
	if t == Text {
		return FormatText
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return FormatJSON
	case ".jsonl", ".ndjson":
		return FormatJSONL
	case ".csv", ".tsv":
		return FormatCSV
	}
	if structured(t) {
		return FormatJSON
	}
	return FormatText
}

func loadPath(ctx context.Context, path string, opts LoadOptions) (*Loaded, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	if fi.IsDir() {
		opts.pause()
		d, warns, err := loadDir(ctx, path)
		if err != nil {
			return nil, err
		}
		return &Loaded{Value: d, Type: Files, Source: path, Warnings: warns}, nil
	}
	if !fi.Mode().IsRegular() {
		// A device, FIFO or socket may never end (/dev/zero) or never
		// start (a FIFO without writer): refuse it before opening.
		return nil, fmt.Errorf(
			"%s: %w (%s); give a file, a directory, or - to read a stream from stdin",
			path,
			ErrNotRegular,
			fileKind(fi.Mode()),
		)
	}
	format := opts.Format
	if format == "" {
		format = formatOf(path, opts.Type)
	}
	return loadFile(path, fi.Size(), format, &opts)
}

// loadFile reads the regular file at path, of size bytes, in format.
func loadFile(path string, size int64, format string, opts *LoadOptions) (*Loaded, error) {
	if l, err := loadMappedJSON(path, size, format, opts); l != nil || err != nil {
		return l, err
	}
	opts.pause()
	data, err := readFileExact(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	v, doc, o, warns, err := decodeFormat(data, format, path, opts)
	if err != nil {
		return nil, err
	}
	return &Loaded{Value: v, Source: path, Warnings: warns, doc: doc, outline: o}, nil
}

// MappedJSONMin is the size from which a JSON or JSON Lines file whose
// interpreter values are made as it is outlined (LoadOptions.Values, as
// rlm exec and rlm repl do) is decoded from a memory map whose pages are
// released behind the decoder: the process then holds the values and a
// few MiB of the file, not the file beside its values.
const MappedJSONMin = 8 << 20

// loadMappedJSON loads a large JSON (Lines) document as MappedJSONMin
// says, or returns nil, nil when it does not apply (a smaller file,
// another format, no values to make, a platform without memory maps, a
// UTF-16 file, or a document the outline does not stand for, which is
// then read as usual). The strings are copied out of the map, and
// reading the map is guarded: a file truncated while it is decoded is an
// error, not a crash.
func loadMappedJSON(path string, size int64, format string, opts *LoadOptions) (*Loaded, error) {
	least := opts.MappedMin
	if least <= 0 {
		least = MappedJSONMin
	}
	if size < least || !opts.outline || opts.Values == nil || (format != FormatJSON && format != FormatJSONL) {
		return nil, nil
	}
	m, err := mapDocument(path)
	if err != nil {
		return nil, nil
	}
	if bytes.HasPrefix(m, bomUTF16LE) || bytes.HasPrefix(m, bomUTF16BE) {
		return nil, nil
	}
	skip := 0
	if bytes.HasPrefix(m, bomUTF8) {
		skip = len(bomUTF8)
	}
	data := m[skip:]
	drop := func(off int64) { dropPages(m[:int64(skip)+off]) }
	var o docOutline
	var ok bool
	if err := readingMap(path, func() error { return validUTF8Dropping(data, path, drop) }); err != nil {
		dropPages(m)
		return nil, err
	}
	var head headCount
	if opts.CountHead {
		head = countHead(data, format == FormatJSONL, path)
	}
	opts.pause()
	err = readingMap(path, func() error {
		var err error
		if format == FormatJSON {
			o, ok, err = outlineJSON(data, path, opts.Values, drop)
		} else {
			o, ok, err = outlineJSONLines(data, path, opts.Values, drop)
		}
		return err
	})
	dropPages(m)
	if err != nil || !ok {
		return nil, err
	}
	return &Loaded{Source: path, doc: data, outline: &o, docMap: m, head: head}, nil
}

// validUTF8Dropping checks that data is UTF-8 in pieces, releasing the
// pages of each piece checked.
func validUTF8Dropping(data []byte, source string, drop func(off int64)) error {
	const piece = pyjson.ConsumedEvery
	for off := 0; off < len(data); {
		end := min(off+piece, len(data))
		for end < len(data) && !utf8.RuneStart(data[end]) {
			end-- // a piece ends before a character
		}
		if end <= off {
			end = min(off+piece, len(data))
		}
		if !utf8.Valid(data[off:end]) {
			return pyjson.UTF8Error(source, data, 0)
		}
		off = end
		drop(int64(off))
	}
	return nil
}

// readingMap runs read, which reads the memory map of the file at path,
// turning a fault (the file was truncated underneath) into an error.
func readingMap(path string, read func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			// A memory fault, as debug.SetPanicOnFault makes it, has
			// the faulting address.
			if _, ok := r.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("%s: %w: the file changed while it was read (it must not change while rlm uses it)", path, ErrNotRegular)
				return
			}
			panic(r)
		}
	}()
	return read()
}

// fileKind names a non-regular file's kind.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

func pathError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file or directory (check the path; use - for stdin or store:KEY for the store)", path)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied (make it readable)", path)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// readFileExact reads a whole file into a buffer of exactly its size, so a
// string made from it with unsafe.String costs 1x the file.
func readFileExact(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return io.ReadAll(f)
	}
	buf := make([]byte, fi.Size())
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	buf = buf[:n]
	// The file may have grown since Stat.
	var one [1]byte
	if m, _ := f.Read(one[:]); m > 0 {
		rest, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		buf = append(append(buf, one[0]), rest...)
	}
	return buf, nil
}

// bytesToString converts without copying; b must never change afterwards.
func bytesToString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// decodeFormat turns raw bytes (owned by the callee) into a value, with
// warnings about what was changed on the way; for JSON it also returns the
// document's UTF-8 text, which the value's strings point into, and with
// opts.outline set, when it can, the document's outline instead of its
// value (with the host's values when opts.Values is set).
func decodeFormat(data []byte, format, source string, opts *LoadOptions) (any, []byte, *docOutline, []string, error) {
	outline := opts.outline
	data, err := toUTF8(data, source)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	switch format {
	case FormatText:
		if !utf8.Valid(data) {
			return nil, nil, nil, nil, pyjson.UTF8Error(source, data, 0)
		}
		return bytesToString(data), nil, nil, nil, nil
	case FormatJSON:
		if outline {
			if !utf8.Valid(data) {
				return nil, nil, nil, nil, pyjson.UTF8Error(source, data, 0)
			}
			o, ok, err := outlineJSON(data, source, opts.Values, nil)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			if ok {
				return nil, data, &o, nil, nil
			}
		}
		v, err := pyjson.DecodeOwned(data, source)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		return v, data, nil, nil, nil
	case FormatJSONL:
		if outline {
			if !utf8.Valid(data) {
				return nil, nil, nil, nil, pyjson.UTF8Error(source, data, 0)
			}
			o, ok, err := outlineJSONLines(data, source, opts.Values, nil)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			if ok {
				return nil, data, &o, nil, nil
			}
		}
		v, err := pyjson.DecodeLinesOwned(data, source)
		return v, nil, nil, nil, err
	case FormatCSV:
		v, warns, err := decodeCSV(data, source)
		return v, nil, nil, warns, err
	}
	return nil, nil, nil, nil, fmt.Errorf("%w: unknown format %q (use text, json, jsonl or csv)", ErrBadSpec, format)
}

// Byte order marks.
var (
	bomUTF8    = []byte("\xef\xbb\xbf")
	bomUTF16LE = []byte("\xff\xfe")
	bomUTF16BE = []byte("\xfe\xff")
)

func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, bomUTF8) }

// toUTF8 drops a UTF-8 byte order mark and decodes UTF-16 text that starts
// with one (as Windows tools write it); other data is returned as is.
func toUTF8(data []byte, source string) ([]byte, error) {
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		return data[len(bomUTF8):], nil
	case bytes.HasPrefix(data, bomUTF16LE):
		order = binary.LittleEndian
	case bytes.HasPrefix(data, bomUTF16BE):
		order = binary.BigEndian
	default:
		return data, nil
	}
	body := data[2:]
	if len(body)%2 != 0 {
		return nil, fmt.Errorf(
			"%s: %w: it starts with a UTF-16 byte order mark but has an odd number of bytes (truncated?)",
			source,
			ErrInvalidUTF8,
		)
	}
	units := make([]uint16, len(body)/2)
	for i := range units {
		units[i] = order.Uint16(body[2*i:])
	}
	out := make([]byte, 0, len(body)*3/2)
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

// decodeCSV parses a CSV (or, for tabs, TSV) file with a header row into a
// list of dicts with str values. Every column is kept: an empty header
// becomes column_N (N counts from 1) and a repeated one NAME_2, NAME_3, ...
// (with a warning), as pandas keeps them.
func decodeCSV(data []byte, source string) (any, []string, error) {
	if !utf8.Valid(data) {
		return nil, nil, pyjson.UTF8Error(source, data, 0)
	}
	r := csv.NewReader(bytes.NewReader(data))
	if strings.EqualFold(filepath.Ext(source), ".tsv") {
		r.Comma = '\t'
	}
	header, err := r.Read()
	if err == io.EOF {
		return []any{}, nil, nil
	}
	if err != nil {
		return nil, nil, csvError(source, err)
	}
	header, warns := uniqueHeader(header, source)
	out := []any{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, warns, nil
		}
		if err != nil {
			return nil, nil, csvError(source, err)
		}
		d := NewDict(len(header))
		for i, h := range header {
			d.Set(h, rec[i])
		}
		out = append(out, d)
	}
}

// uniqueHeader names every column of a CSV header uniquely (see
// decodeCSV), saying what it renamed.
func uniqueHeader(header []string, source string) ([]string, []string) {
	out := make([]string, len(header))
	taken := make(map[string]bool, len(header))
	for _, h := range header {
		taken[h] = true
	}
	seen := map[string]bool{}
	var renamed []string
	for i, h := range header {
		name := h
		if h == "" || seen[h] {
			base, n := h, 2
			if h == "" {
				base, n = "column", i+1
			}
			for {
				name = fmt.Sprintf("%s_%d", base, n)
				if !taken[name] {
					break
				}
				n++
			}
			taken[name] = true
			what := fmt.Sprintf("repeated header %q", h)
			if h == "" {
				what = "empty header"
			}
			renamed = append(renamed, fmt.Sprintf("column %d (%s) -> %q", i+1, what, name))
		}
		seen[h] = true
		out[i] = name
	}
	if len(renamed) == 0 {
		return out, nil
	}
	return out, []string{fmt.Sprintf("%s: renamed columns so that none is lost: %s", source, strings.Join(renamed, ", "))}
}

func csvError(source string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			msg += " (every row needs as many fields as the header row)"
		}
		return &SyntaxError{Source: source, Line: pe.Line, Column: pe.Column, Msg: msg}
	}
	return fmt.Errorf("%s: %w", source, err)
}

// skippedDirs are version-control directories a directory load ignores.
var skippedDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// loadDir reads a directory tree into a files dict, sorted by path.
func loadDir(ctx context.Context, root string) (*Dict, []string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, nil, pathError(root, err)
	}
	realRoot, _ = filepath.Abs(realRoot)
	out := NewDict(0)
	var warns []string
	// Walk the resolved root, so a root that is itself a symlink to a
	// directory is read (WalkDir would not descend into it).
	err = filepath.WalkDir(realRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == realRoot {
				return pathError(root, err)
			}
			warns = append(warns, fmt.Sprintf("%s: skipped: %v", path, err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		rel, _ := filepath.Rel(realRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != realRoot && skippedDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		readPath := path
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(path)
			if err != nil {
				warns = append(warns, fmt.Sprintf("%s: skipped broken symlink", rel))
				return nil
			}
			target, _ = filepath.Abs(target)
			if r, err := filepath.Rel(realRoot, target); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				warns = append(warns, fmt.Sprintf("%s: skipped symlink pointing outside the directory", rel))
				return nil
			}
			fi, err := os.Stat(target)
			if err != nil || !fi.Mode().IsRegular() {
				warns = append(warns, fmt.Sprintf("%s: skipped symlink to a non-regular file (directory symlinks are not followed)", rel))
				return nil
			}
			readPath = target
		} else if !d.Type().IsRegular() {
			warns = append(warns, fmt.Sprintf("%s: skipped non-regular file", rel))
			return nil
		}
		data, err := readFileExact(readPath)
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s: skipped unreadable file: %v", rel, err))
			return nil
		}
		if text, err := toUTF8(data, rel); err == nil {
			data = text // without a byte order mark; UTF-16 decoded
		}
		if isBinary(data) {
			warns = append(warns, fmt.Sprintf("%s: skipped binary file (%s)", rel, humanBytes(int64(len(data)))))
			return nil
		}
		out.Set(rel, bytesToString(data))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, warns, nil
}

// isBinary: a NUL byte in the first 8000 bytes (as git decides) or invalid
// UTF-8.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 || !utf8.Valid(data)
}

// decodeDocument decodes a JSON (Lines) document into Go values. A
// memory-mapped one is decoded with its strings copied, its map read
// under guard (see readingMap).
func decodeDocument(doc []byte, lines, mapped bool, source string, head int) (any, error) {
	if !mapped && head <= 0 {
		if lines {
			return pyjson.DecodeLinesOwned(doc, source)
		}
		return pyjson.DecodeOwned(doc, source)
	}
	// A map's strings are copied out (its pages may be released); a head
	// is of a document checked when it was loaded (UTF-8 included).
	opts := pyjson.DecodeOptions{Source: source, Head: head, Shared: !mapped}
	var v any
	decode := func() error {
		var err error
		if lines {
			var vals []any
			vals, err = pyjson.DecodeLinesWith[any](doc, pyjson.GoBuilder(), opts)
			v = vals
		} else {
			v, err = pyjson.DecodeWith[any](doc, pyjson.GoBuilder(), opts)
		}
		return err
	}
	if !mapped {
		return v, decode()
	}
	err := readingMap(source, decode)
	return v, err
}
