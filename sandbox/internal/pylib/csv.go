package pylib

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlmhq/rlm/internal/starlark/starlark"

	"github.com/rlmhq/rlm/sandbox/internal/py"
)

// csv over strings: reader, writer, DictReader and DictWriter with
// CPython's parsing and quoting rules (Modules/_csv.c).

const (
	quoteMinimal    = 0
	quoteAll        = 1
	quoteNonnumeric = 2
	quoteNone       = 3
)

type csvDialect struct {
	delimiter, quotechar, escapechar rune // 0: none
	doublequote, skipinitialspace    bool
	strict                           bool
	lineterminator                   string
	quoting                          int
}

func defaultDialect() csvDialect {
	return csvDialect{delimiter: ',', quotechar: '"', doublequote: true, lineterminator: "\r\n"}
}

// csvDialectArgs reads the dialect and the format parameters from kwargs
// (already stripped of the caller's own parameters).
func csvDialectArgs(fn string, dialect starlark.Value, kwargs []starlark.Tuple) (csvDialect, error) {
	d := defaultDialect()
	if s, ok := dialect.(starlark.String); ok {
		switch s {
		case "excel":
		case "excel-tab":
			d.delimiter = '\t'
		case "unix":
			d.lineterminator, d.quoting = "\n", quoteAll
		default:
			return d, py.Errorf("csv.Error", "unknown dialect")
		}
	}
	char := func(k string, v starlark.Value, allowNone bool) (rune, error) {
		if v == starlark.None && allowNone {
			return 0, nil
		}
		s, ok := v.(starlark.String)
		if !ok || py.Rlen(string(s)) != 1 {
			return 0, py.Errorf("TypeError", "\"%s\" must be a 1-character string", k)
		}
		return []rune(string(s))[0], nil
	}
	for _, kv := range kwargs {
		k, _ := starlark.AsString(kv[0])
		v := kv[1]
		var err error
		switch k {
		case "delimiter":
			d.delimiter, err = char(k, v, false)
		case "quotechar":
			d.quotechar, err = char(k, v, true)
		case "escapechar":
			d.escapechar, err = char(k, v, true)
		case "doublequote":
			d.doublequote = bool(v.Truth())
		case "skipinitialspace":
			d.skipinitialspace = bool(v.Truth())
		case "strict":
			d.strict = bool(v.Truth())
		case "lineterminator":
			s, ok := v.(starlark.String)
			if !ok {
				return d, py.Errorf("TypeError", "\"lineterminator\" must be a string")
			}
			d.lineterminator = string(s)
		case "quoting":
			n, e := starlark.AsInt32(v)
			if e != nil || n < 0 || n > 3 {
				return d, py.Errorf("TypeError", "bad \"quoting\" value")
			}
			d.quoting = n
		default:
			return d, py.Errorf("TypeError", "'%s' is an invalid keyword argument for %s()", k, fn)
		}
		if err != nil {
			return d, err
		}
	}
	return d, nil
}

// splitKwargs separates the named parameters from the dialect keywords.
func splitKwargs(kwargs []starlark.Tuple, own ...string) (mine, rest []starlark.Tuple) {
	for _, kv := range kwargs {
		k, _ := starlark.AsString(kv[0])
		if slices.Index(own, k) >= 0 {
			mine = append(mine, kv)
		} else {
			rest = append(rest, kv)
		}
	}
	return mine, rest
}

// csvParse parses lines into rows as csv.reader does.
func csvParse(thread *starlark.Thread, lines []starlark.Value, d csvDialect) ([]starlark.Value, error) {
	const (
		startRecord = iota
		startField
		escapedChar
		inField
		inQuotedField
		escapeInQuotedField
		quoteInQuotedField
		eatCRNL
	)
	const eol = -2
	var rows []starlark.Value
	var fields []starlark.Value
	var field strings.Builder
	fieldLen := 0
	numeric := false
	state := startRecord
	lineNum := 0
	save := func() error {
		s := field.String()
		field.Reset()
		fieldLen = 0
		if numeric {
			numeric = false
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return py.Errorf("ValueError", "could not convert string to float: '%s'", s)
			}
			fields = append(fields, starlark.Float(f))
			return nil
		}
		fields = append(fields, starlark.String(s))
		if len(fields)%py.GrowCheckEvery == 0 {
			// A row of many fields is sized as it grows: room for its
			// slice to double (a delimiter is one byte, its field 16 or
			// more).
			return py.GrowCheckFor(thread, int64(len(fields))*py.ListElemBytes, "csv.reader row")
		}
		return nil
	}
	add := func(c rune) { field.WriteRune(c); fieldLen++ }
	process := func(c rune) error {
		switch state {
		case startRecord:
			if c == eol {
				return nil
			}
			if c == '\n' || c == '\r' {
				state = eatCRNL
				return nil
			}
			state = startField
			fallthrough
		case startField:
			switch {
			case c == '\n' || c == '\r' || c == eol:
				if err := save(); err != nil {
					return err
				}
				if c == eol {
					state = startRecord
				} else {
					state = eatCRNL
				}
			case c == d.quotechar && d.quotechar != 0 && d.quoting != quoteNone:
				state = inQuotedField
			case c == d.escapechar && d.escapechar != 0:
				state = escapedChar
			case c == ' ' && d.skipinitialspace:
			case c == d.delimiter:
				return save()
			default:
				if d.quoting == quoteNonnumeric {
					numeric = true
				}
				add(c)
				state = inField
			}
		case escapedChar:
			if c == eol {
				c = '\n'
			}
			add(c)
			state = inField
		case inField:
			switch {
			case c == '\n' || c == '\r' || c == eol:
				if err := save(); err != nil {
					return err
				}
				if c == eol {
					state = startRecord
				} else {
					state = eatCRNL
				}
			case c == d.escapechar && d.escapechar != 0:
				state = escapedChar
			case c == d.delimiter:
				state = startField
				return save()
			default:
				add(c)
			}
		case inQuotedField:
			switch {
			case c == eol:
			case c == d.escapechar && d.escapechar != 0:
				state = escapeInQuotedField
			case c == d.quotechar && d.quoting != quoteNone:
				if d.doublequote {
					state = quoteInQuotedField
				} else {
					state = inField
				}
			default:
				add(c)
			}
		case escapeInQuotedField:
			if c == eol {
				c = '\n'
			}
			add(c)
			state = inQuotedField
		case quoteInQuotedField:
			switch {
			case d.quoting != quoteNone && c == d.quotechar:
				add(c)
				state = inQuotedField
			case c == d.delimiter:
				state = startField
				return save()
			case c == '\n' || c == '\r' || c == eol:
				if err := save(); err != nil {
					return err
				}
				if c == eol {
					state = startRecord
				} else {
					state = eatCRNL
				}
			case !d.strict:
				add(c)
				state = inField
			default:
				return py.Errorf("csv.Error", "'%c' expected after '%c'", d.delimiter, d.quotechar)
			}
		case eatCRNL:
			switch {
			case c == '\n' || c == '\r':
			case c == eol:
				state = startRecord
			default:
				return py.Errorf("csv.Error", "new-line character seen in unquoted field - do you need to open the file with newline=''?")
			}
		}
		return nil
	}
	i := 0
	for i < len(lines) {
		fields = nil
		for {
			if i >= len(lines) {
				if fieldLen != 0 || state == inQuotedField {
					if d.strict {
						return nil, py.Errorf("csv.Error", "unexpected end of data")
					}
					if err := save(); err != nil {
						return nil, err
					}
					rows = append(rows, starlark.NewList(fields))
				}
				return rows, nil
			}
			s, ok := lines[i].(starlark.String)
			if !ok {
				return nil, py.Errorf(
					"csv.Error",
					"iterator should return strings, not %s (the file should be opened in text mode)",
					py.PyType(lines[i]),
				)
			}
			i++
			lineNum++
			for _, c := range string(s) {
				if c == 0 {
					return nil, py.Errorf("csv.Error", "line contains NUL")
				}
				if err := process(c); err != nil {
					if pe, ok := err.(*py.PyError); ok && pe.Kind != "MemoryError" {
						return nil, py.Errorf("csv.Error", "line %d: %s", lineNum, pe.Msg)
					}
					return nil, err // a MemoryError, a stopped step
				}
			}
			if err := process(eol); err != nil {
				return nil, err
			}
			if state == startRecord {
				break
			}
		}
		if fields == nil {
			fields = []starlark.Value{}
		}
		rows = append(rows, starlark.NewList(fields))
		if len(rows)%py.GrowCheckEvery == 0 {
			if err := py.GrowCheckFor(thread, int64(len(rows))*py.ListElemBytes, "csv.reader rows"); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// csvReader is what csv.reader and csv.DictReader return: an iterator
// over the parsed rows (parsed up front; the input is in memory anyway).
type csvReader struct {
	it         *py.PyIterator
	fieldnames starlark.Value // DictReader only
	dict       bool
}

func (r *csvReader) String() string        { return "<_csv.reader object>" }
func (r *csvReader) Type() string          { return "_csv.reader" }
func (r *csvReader) Freeze()               {}
func (r *csvReader) Truth() starlark.Bool  { return true }
func (r *csvReader) Hash() (uint32, error) { return 0, nil }
func (r *csvReader) Iterate() starlark.Iterator {
	return r.it.Iterate()
}
func (r *csvReader) Iterator() *py.PyIterator { return r.it }
func (r *csvReader) AttrNames() []string {
	if r.dict {
		return []string{"fieldnames", "line_num"}
	}
	return []string{"line_num"}
}
func (r *csvReader) Attr(name string) (starlark.Value, error) {
	switch name {
	case "fieldnames":
		if r.dict {
			return r.fieldnames, nil
		}
	case "line_num":
		return starlark.MakeInt(r.it.I), nil
	}
	return nil, nil
}

func csvLines(thread *starlark.Thread, x starlark.Value) ([]starlark.Value, error) {
	if s, ok := x.(starlark.String); ok {
		// CPython iterates a str by character; that is never what is meant.
		return nil, py.Errorf(
			"TypeError",
			"csv.reader() takes an iterable of lines: pass text.splitlines() or io.StringIO(text), not a str (%d characters)",
			py.Rlen(string(s)),
		)
	}
	return py.Collect(thread, x)
}

// csvFileDialect unpacks the (csvfile, dialect=None, **fmtparams)
// arguments that csv.reader and csv.writer share and returns the dialect.
func csvFileDialect(fn string, args starlark.Tuple, kwargs []starlark.Tuple) (csvDialect, error) {
	if len(args) < 1 || len(args) > 2 {
		return csvDialect{}, py.ArgErr(fn, "expected 1 or 2 positional arguments (csvfile, dialect)")
	}
	var dialect starlark.Value = starlark.None
	mine, rest := splitKwargs(kwargs, "dialect")
	if len(args) == 2 {
		dialect = args[1]
	}
	if len(mine) > 0 {
		dialect = mine[0][1]
	}
	return csvDialectArgs(fn, dialect, rest)
}

func csvReaderFn(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d, err := csvFileDialect("reader", args, kwargs)
	if err != nil {
		return nil, err
	}
	lines, err := csvLines(thread, args[0])
	if err != nil {
		return nil, err
	}
	rows, err := csvParse(thread, lines, d)
	if err != nil {
		return nil, err
	}
	return &csvReader{it: &py.PyIterator{Elems: rows}}, nil
}

func csvDictReaderFn(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	mine, rest := splitKwargs(kwargs, "f", "fieldnames", "restkey", "restval", "dialect")
	var f starlark.Value
	var fieldnames, restkey, restval, dialect starlark.Value = starlark.None, starlark.None, starlark.None, starlark.None
	if err := starlark.UnpackArgs("DictReader", args, mine, "f", &f, "fieldnames?", &fieldnames, "restkey?", &restkey, "restval?", &restval, "dialect?", &dialect); err != nil {
		return nil, err
	}
	d, err := csvDialectArgs("DictReader", dialect, rest)
	if err != nil {
		return nil, err
	}
	lines, err := csvLines(thread, f)
	if err != nil {
		return nil, err
	}
	rows, err := csvParse(thread, lines, d)
	if err != nil {
		return nil, err
	}
	var names []starlark.Value
	if fieldnames == starlark.None {
		for len(rows) > 0 && rows[0].(*starlark.List).Len() == 0 {
			rows = rows[1:]
		}
		if len(rows) > 0 {
			l := rows[0].(*starlark.List)
			for i := 0; i < l.Len(); i++ {
				names = append(names, l.Index(i))
			}
			rows = rows[1:]
			fieldnames = starlark.NewList(names)
		}
	} else {
		if names, err = py.Collect(thread, fieldnames); err != nil {
			return nil, err
		}
	}
	// Each row becomes a dict of at least len(names) entries: a thousand
	// one-field lines with a million fieldnames are a billion entries.
	var entries int64
	for _, r := range rows {
		if l := r.(*starlark.List); l.Len() > 0 {
			entries += int64(max(len(names), l.Len()))
		}
	}
	if err := py.CheckAllocFor(thread, py.SatMul(entries, dictEntryBytes), "csv.DictReader rows"); err != nil {
		return nil, err
	}
	var out []starlark.Value
	for _, r := range rows {
		l := r.(*starlark.List)
		if l.Len() == 0 {
			continue
		}
		dict := starlark.NewDict(len(names))
		for i, n := range names {
			if i < l.Len() {
				_ = dict.SetKey(n, l.Index(i))
			} else {
				_ = dict.SetKey(n, restval)
			}
		}
		if l.Len() > len(names) {
			var extra []starlark.Value
			for i := len(names); i < l.Len(); i++ {
				extra = append(extra, l.Index(i))
			}
			_ = dict.SetKey(restkey, starlark.NewList(extra))
		}
		out = append(out, dict)
	}
	return &csvReader{it: &py.PyIterator{Elems: out}, fieldnames: fieldnames, dict: true}, nil
}

// csvWriter is csv.writer / csv.DictWriter over an object with write().
type csvWriter struct {
	f          starlark.Value
	d          csvDialect
	fieldnames []starlark.Value // DictWriter
	restval    starlark.Value
	ignore     bool // extrasaction='ignore'
	dict       bool
}

func (w *csvWriter) String() string        { return "<_csv.writer object>" }
func (w *csvWriter) Type() string          { return "_csv.writer" }
func (w *csvWriter) Freeze()               {}
func (w *csvWriter) Truth() starlark.Bool  { return true }
func (w *csvWriter) Hash() (uint32, error) { return 0, nil }
func (w *csvWriter) AttrNames() []string {
	if w.dict {
		return []string{"fieldnames", "writeheader", "writerow", "writerows"}
	}
	return []string{"writerow", "writerows"}
}

// dictEntryBytes is what a dict entry costs: its hash, key and value and
// its slot in the index.
const dictEntryBytes = 64

func (w *csvWriter) formatRow(thread *starlark.Thread, fields []starlark.Value) (string, error) {
	d := w.d
	// The fields as text, and the row's size before it is built: a row
	// can be far larger than its list (one long string shared by every
	// field, DictWriter's restval for every missing key).
	strs := make([]string, len(fields))
	nums := make([]bool, len(fields))
	size := int64(len(d.lineterminator))
	escape := max(utf8.RuneLen(d.quotechar), utf8.RuneLen(d.escapechar), 1)
	for i, f := range fields {
		switch x := f.(type) {
		case starlark.NoneType:
		case starlark.String:
			strs[i] = string(x)
		case starlark.Int, starlark.Float:
			strs[i], nums[i] = py.Str(x), true
		default:
			strs[i] = py.Str(x)
		}
		// The field, its delimiter, its quotes and an escape before
		// every quote character in it.
		size += int64(len(strs[i])) + int64(2*escape+utf8.RuneLen(d.delimiter))
		if d.quotechar != 0 {
			size += int64(strings.Count(strs[i], string(d.quotechar))) * int64(escape)
		}
		if size >= py.SmallAlloc && i%py.GrowCheckEvery == 0 {
			if err := py.CheckAllocFor(thread, size, "csv.writer row"); err != nil {
				return "", err
			}
		}
	}
	if err := py.CheckAllocFor(thread, size, "csv.writer row"); err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(int(size))
	for i := range fields {
		if i > 0 {
			b.WriteRune(d.delimiter)
		}
		s, isNum := strs[i], nums[i]
		quote := false
		switch d.quoting {
		case quoteAll:
			quote = true
		case quoteNonnumeric:
			quote = !isNum
		}
		if d.quoting != quoteNone && !quote {
			quote = strings.ContainsRune(s, d.delimiter) || (d.quotechar != 0 && strings.ContainsRune(s, d.quotechar)) ||
				strings.ContainsAny(s, "\r\n"+d.lineterminator) || (d.escapechar != 0 && strings.ContainsRune(s, d.escapechar))
			if s == "" && len(fields) == 1 {
				quote = true
			}
		}
		if d.quoting == quoteNone && (strings.ContainsRune(s, d.delimiter) || strings.ContainsAny(s, "\r\n")) && d.escapechar == 0 {
			return "", py.Errorf("csv.Error", "need to escape, but no escapechar set")
		}
		if quote {
			b.WriteRune(d.quotechar)
			if d.doublequote {
				s = strings.ReplaceAll(s, string(d.quotechar), string(d.quotechar)+string(d.quotechar))
			} else if d.escapechar != 0 {
				s = strings.ReplaceAll(s, string(d.quotechar), string(d.escapechar)+string(d.quotechar))
			}
			b.WriteString(s)
			b.WriteRune(d.quotechar)
		} else {
			b.WriteString(s)
		}
	}
	b.WriteString(d.lineterminator)
	return b.String(), nil
}

func (w *csvWriter) write(thread *starlark.Thread, row starlark.Value) (starlark.Value, error) {
	var fields []starlark.Value
	if w.dict {
		m, ok := row.(starlark.IterableMapping)
		if !ok {
			return nil, py.Errorf("AttributeError", "'%s' object has no attribute 'keys'", py.PyType(row))
		}
		if !w.ignore {
			var wrong []string
			for _, k := range m.Items() {
				found := false
				for _, n := range w.fieldnames {
					if eq, _ := starlark.Equal(n, k[0]); eq {
						found = true
						break
					}
				}
				if !found {
					wrong = append(wrong, py.Repr(k[0]))
				}
			}
			if len(wrong) > 0 {
				return nil, py.Errorf("ValueError", "dict contains fields not in fieldnames: %s", strings.Join(wrong, ", "))
			}
		}
		for _, n := range w.fieldnames {
			v, found, err := m.Get(n)
			if err != nil {
				return nil, err
			}
			if !found {
				v = w.restval
			}
			fields = append(fields, v)
		}
	} else {
		if _, ok := row.(starlark.String); ok {
			// a str is an iterable of characters, as in CPython: a field
			// (its string and its slot) for each
			str := string(row.(starlark.String))
			if err := py.CheckAllocFor(thread, py.SatMul(int64(utf8.RuneCountInString(str)), 2*py.ListElemBytes), "csv.writer row"); err != nil {
				return nil, err
			}
			for _, c := range str {
				fields = append(fields, starlark.String(string(c)))
			}
		} else {
			var err error
			if fields, err = py.Collect(thread, row); err != nil {
				return nil, py.Errorf("csv.Error", "iterable expected, not %s", py.PyType(row))
			}
		}
	}
	line, err := w.formatRow(thread, fields)
	if err != nil {
		return nil, err
	}
	h, ok := w.f.(starlark.HasAttrs)
	var write starlark.Value
	if ok {
		write, _ = h.Attr("write")
	}
	if write == nil {
		return nil, py.Errorf("TypeError", "argument 1 must have a \"write\" method")
	}
	return starlark.Call(thread, write, starlark.Tuple{starlark.String(line)}, nil)
}

func (w *csvWriter) Attr(name string) (starlark.Value, error) {
	switch name {
	case "fieldnames":
		if w.dict {
			return starlark.NewList(w.fieldnames), nil
		}
	case "writerow":
		return py.NewBuiltin(
			name,
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				row, err := py.OneArg(name, args, kwargs)
				if err != nil {
					return nil, err
				}
				return w.write(thread, row)
			},
		), nil
	case "writerows":
		return py.NewBuiltin(
			name,
			func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				x, err := py.OneArg(name, args, kwargs)
				if err != nil {
					return nil, err
				}
				rows, err := py.Collect(thread, x)
				if err != nil {
					return nil, err
				}
				for _, r := range rows {
					if _, err := w.write(thread, r); err != nil {
						return nil, err
					}
				}
				return starlark.None, nil
			},
		), nil
	case "writeheader":
		if w.dict {
			return py.NewBuiltin(
				name,
				func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
					hdr := starlark.NewDict(len(w.fieldnames))
					for _, n := range w.fieldnames {
						_ = hdr.SetKey(n, n)
					}
					return w.write(thread, hdr)
				},
			), nil
		}
	}
	return nil, nil
}

func csvWriterFn(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	d, err := csvFileDialect("writer", args, kwargs)
	if err != nil {
		return nil, err
	}
	return &csvWriter{f: args[0], d: d}, nil
}

func csvDictWriterFn(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	mine, rest := splitKwargs(kwargs, "f", "fieldnames", "restval", "extrasaction", "dialect")
	var f, fieldnames starlark.Value
	var restval starlark.Value = starlark.String("")
	var dialect starlark.Value = starlark.None
	extras := "raise"
	if err := starlark.UnpackArgs("DictWriter", args, mine, "f", &f, "fieldnames", &fieldnames, "restval?", &restval, "extrasaction?", &extras, "dialect?", &dialect); err != nil {
		return nil, err
	}
	if extras != "raise" && extras != "ignore" {
		return nil, py.Errorf("ValueError", "extrasaction (%s) must be 'raise' or 'ignore'", extras)
	}
	d, err := csvDialectArgs("DictWriter", dialect, rest)
	if err != nil {
		return nil, err
	}
	names, err := py.Collect(thread, fieldnames)
	if err != nil {
		return nil, err
	}
	return &csvWriter{f: f, d: d, fieldnames: names, restval: restval, ignore: extras == "ignore", dict: true}, nil
}

var _ = py.RegisterModule("csv", csvModule)

// csvModule builds the csv module on its first import.
func csvModule() *py.Module {
	m := py.NewModule("csv", map[string]py.BuiltinFn{
		"reader":     csvReaderFn,
		"writer":     csvWriterFn,
		"DictReader": csvDictReaderFn,
		"DictWriter": csvDictWriterFn,
	}, starlark.StringDict{
		"QUOTE_MINIMAL":    starlark.MakeInt(quoteMinimal),
		"QUOTE_ALL":        starlark.MakeInt(quoteAll),
		"QUOTE_NONNUMERIC": starlark.MakeInt(quoteNonnumeric),
		"QUOTE_NONE":       starlark.MakeInt(quoteNone),
		"Error":            py.ExcTypes["csv.Error"],
	})
	return m
}
