package rlmctx

import (
	"math/big"
	"slices"
	"strconv"

	"github.com/rlmhq/rlm/internal/pyjson"
)

// A JSON document loaded as a variable is first only outlined: its size,
// its kind, its items' sizes and what type inference and checks look at,
// without building its Go value (a host decodes the text into its own
// values; see Variable.Release). outline is one value's part of that.
type outline struct {
	size  int64
	kind  uint8 // outline kinds below
	flags uint8 // a dict's keys that types look at
}

// outline kinds: kindName's names.
const (
	oNone uint8 = iota
	oBool
	oInt
	oFloat
	oStr
	oList
	oDict
)

// outline flags of a dict.
const (
	fRoleStr    uint8 = 1 << iota // "role" with a str value
	fContent                      // "content"
	fTool                         // "tool" or "tool_name"
	fToolResult                   // "output", "result" or "content"
	fMemory                       // "entries" or "memories"
	fResult                       // "result" or "output"
	fAllStr                       // every value is a str
	fDupKeys                      // a key repeats (outlines do not merge them)
)

// outliner is the pyjson.Builder of outlines. top holds the items of the
// last list or the entries ("k": v, as sizes) of the last dict made: the
// document's own when it is a list or dict, as that is made last.
type outliner struct {
	top []outline
}

func (o *outliner) Null() outline { return outline{size: 4, kind: oNone} }
func (o *outliner) Bool(b bool) outline {
	if b {
		return outline{size: 4, kind: oBool}
	}
	return outline{size: 5, kind: oBool}
}
func (o *outliner) Int(i int64) outline {
	var buf [24]byte
	return outline{size: int64(len(strconv.AppendInt(buf[:0], i, 10))), kind: oInt}
}
func (o *outliner) BigInt(b *big.Int) outline {
	return outline{size: int64(len(b.String())), kind: oInt}
}
func (o *outliner) Float(f float64) outline { return outline{size: pyjson.FloatSize(f), kind: oFloat} }
func (o *outliner) String(s string) outline { return outline{size: pyjson.StringSize(s), kind: oStr} }

// SizedString is String with the size the decoder read from the text
// (pyjson.SizedStrings).
func (o *outliner) SizedString(_ string, size int64) outline { return outline{size: size, kind: oStr} }

func (o *outliner) Array(vals []outline) (outline, error) {
	o.top = append(o.top[:0], vals...)
	var dup uint8
	for _, v := range vals {
		dup |= v.flags & fDupKeys
	}
	return outline{size: sumSizes(vals), kind: oList, flags: dup}, nil
}

func (o *outliner) Object(keys []string, vals []outline) (outline, error) {
	o.top = o.top[:0]
	flags := fAllStr
	for i, k := range keys {
		v := vals[i]
		e := v
		e.size = pyjson.StringSize(k) + 2 + v.size // "k": v
		o.top = append(o.top, e)
		if v.kind != oStr {
			flags &^= fAllStr
		}
		flags |= v.flags & fDupKeys
		switch k {
		case "role":
			if v.kind == oStr {
				flags |= fRoleStr
			}
		case "content":
			flags |= fContent | fToolResult
		case "tool", "tool_name":
			flags |= fTool
		case "output", "result":
			flags |= fToolResult | fResult
		case "entries", "memories":
			flags |= fMemory
		}
	}
	if len(keys) > 1 && pyjson.HasDupKeys(keys) {
		flags |= fDupKeys
	}
	return outline{size: sumSizes(o.top), kind: oDict, flags: flags}, nil
}

// sumSizes is the size of a list or dict of items of these sizes: the
// items, their ", " separators and the brackets.
func sumSizes(items []outline) int64 {
	n := 2 + 2*int64(max(len(items)-1, 0))
	for _, it := range items {
		n += it.size
	}
	return n
}

// docOutline is a JSON document's outline: the value's and its items'.
type docOutline struct {
	outline
	items []outline // a list's items, a dict's entries
	lines bool      // the document is JSON Lines: a list of its lines' values
	// values are the host's values of the document (LoadOptions.Values),
	// made in the pass that outlined it, or nil.
	values any
}

// outlined is a value's outline and the host's value of it, made together
// by a pairBuilder.
type outlined struct {
	o outline
	v any
}

// pairBuilder is the pyjson.Builder of one pass that outlines a document
// and makes the host's values of it: the outliner makes every outline (as
// when only outlining), the host builder every value.
type pairBuilder struct {
	o    outliner
	host pyjson.Builder[any]
	os   []outline // an object's or array's item outlines, reused
	vs   []any     // and their values
}

func (p *pairBuilder) Null() outlined           { return outlined{p.o.Null(), p.host.Null()} }
func (p *pairBuilder) Bool(b bool) outlined     { return outlined{p.o.Bool(b), p.host.Bool(b)} }
func (p *pairBuilder) Int(i int64) outlined     { return outlined{p.o.Int(i), p.host.Int(i)} }
func (p *pairBuilder) Float(f float64) outlined { return outlined{p.o.Float(f), p.host.Float(f)} }
func (p *pairBuilder) String(s string) outlined { return outlined{p.o.String(s), p.host.String(s)} }

func (p *pairBuilder) SizedString(s string, size int64) outlined {
	return outlined{p.o.SizedString(s, size), p.host.String(s)}
}

// BigInt outlines b before the host may keep it (Builder.BigInt).
func (p *pairBuilder) BigInt(b *big.Int) outlined {
	o := p.o.BigInt(b)
	return outlined{o, p.host.BigInt(b)}
}

// split fills p.os and p.vs from vals.
func (p *pairBuilder) split(vals []outlined) {
	// Grown to the size at once: append would grow a list's by a quarter
	// at a time, each step garbage.
	p.os, p.vs = slices.Grow(p.os[:0], len(vals)), slices.Grow(p.vs[:0], len(vals))
	for _, v := range vals {
		p.os = append(p.os, v.o)
		p.vs = append(p.vs, v.v)
	}
}

func (p *pairBuilder) Object(keys []string, vals []outlined) (outlined, error) {
	p.split(vals)
	o, err := p.o.Object(keys, p.os)
	if err != nil {
		return outlined{}, err
	}
	v, err := p.host.Object(keys, p.vs)
	clear(p.vs) // the values are the host's now
	return outlined{o, v}, err
}

func (p *pairBuilder) Array(vals []outlined) (outlined, error) {
	p.split(vals)
	o, err := p.o.Array(p.os)
	if err != nil {
		return outlined{}, err
	}
	v, err := p.host.Array(p.vs)
	clear(p.vs)
	return outlined{o, v}, err
}

// outlineJSON outlines a JSON document (valid UTF-8, as pyjson.DecodeOwned
// requires), making the host's values of it in the same pass when values
// is set; ok is false when only the Go value can stand for it: a dict
// that repeats a key (merging it changes the sizes), or a document that is
// not a list or dict.
func outlineJSON(data []byte, source string, values func() pyjson.Builder[any], drop func(off int64)) (docOutline, bool, error) {
	opts := pyjson.DecodeOptions{Shared: drop == nil, Source: source, Consumed: drop}
	var o outline
	var top []outline
	var vals any
	if values != nil {
		b := &pairBuilder{host: values()}
		p, err := pyjson.DecodeWith[outlined](data, b, opts)
		if err != nil {
			return docOutline{}, false, err
		}
		o, vals, top = p.o, p.v, b.o.top
	} else {
		b := &outliner{}
		var err error
		if o, err = pyjson.DecodeWith[outline](data, b, opts); err != nil {
			return docOutline{}, false, err
		}
		top = b.top
	}
	if (o.kind != oList && o.kind != oDict) || o.flags&fDupKeys != 0 {
		return docOutline{}, false, nil
	}
	return docOutline{outline: o, items: top, values: vals}, true, nil
}

// outlineJSONLines outlines JSON Lines (valid UTF-8) as the list of its
// lines' values, making the host's list of them in the same pass when
// values is set; ok is false when a line's dict repeats a key.
func outlineJSONLines(data []byte, source string, values func() pyjson.Builder[any], drop func(off int64)) (docOutline, bool, error) {
	opts := pyjson.DecodeOptions{Shared: drop == nil, Source: source, Consumed: drop}
	var items []outline
	var vals any
	if values != nil {
		b := &pairBuilder{host: values()}
		lines, err := pyjson.DecodeLinesWith[outlined](data, b, opts)
		if err != nil {
			return docOutline{}, false, err
		}
		b.split(lines)
		items = b.os
		if vals, err = b.host.Array(b.vs); err != nil {
			return docOutline{}, false, err
		}
	} else {
		var err error
		if items, err = pyjson.DecodeLinesWith[outline](data, &outliner{}, opts); err != nil {
			return docOutline{}, false, err
		}
	}
	var dup uint8
	for _, it := range items {
		dup |= it.flags & fDupKeys
	}
	if dup != 0 {
		return docOutline{}, false, nil
	}
	return docOutline{outline: outline{size: sumSizes(items), kind: oList}, items: items, lines: true, values: vals}, true, nil
}

// inferType is InferType of the document's Go value.
func (d *docOutline) inferType() VarType {
	all := func(want uint8) bool {
		for _, it := range d.items[:min(len(d.items), inferSample)] {
			if it.kind != oDict || it.flags&want != want {
				return false
			}
		}
		return true
	}
	switch d.kind {
	case oList:
		switch {
		case len(d.items) == 0:
			return JSON
		case all(fRoleStr | fContent):
			return Conversation
		case all(fTool | fToolResult):
			return ToolOutputs
		}
	case oDict:
		switch {
		case d.flags&fMemory != 0:
			return WorkingMemory
		case d.flags&fResult != 0:
			return Custom("result")
		}
	}
	return JSON
}

// fitsType is whether checkType accepts the document's Go value for t
// (when not, checkType on the Go value says why).
func (d *docOutline) fitsType(t VarType) bool {
	switch t {
	case Text:
		return d.kind == oStr
	case Conversation, ToolOutputs:
		return d.kind == oList
	case WorkingMemory:
		return d.kind == oDict
	case Files:
		return d.kind == oDict && d.flags&fAllStr != 0
	case JSON:
		return true
	}
	return t.IsCustom() && t.CustomName() != ""
}

// newDocVariable makes the variable of an outlined JSON document: its Go
// value is made from the text when needed (it starts released).
func newDocVariable(name string, t VarType, source string, doc []byte, d *docOutline) (*Variable, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	v := &Variable{Name: name, Type: t, Source: source, doc: doc, released: true, values: d.values,
		SizeBytes: d.size, ItemCount: len(d.items), docDict: d.kind == oDict, docLines: d.lines}
	v.headItems = summaryItems(t, v.SizeBytes, d.items)
	if v.SizeBytes >= keepItemSizes {
		v.itemSizes = make([]int64, len(d.items))
		for i, it := range d.items {
			v.itemSizes[i] = it.size
		}
	}
	return v, nil
}
