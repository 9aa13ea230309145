package builtins_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	pyFile = `#!/usr/bin/env python3
# Copyright 2020 Example Corp.
# Licensed under the Apache License, Version 2.0.

"""Parse invoices and total them by customer.

More detail that is not the first paragraph.
"""
import os

class Invoice:
    def total(self):
        pass

def parse(path):
    def helper():
        pass
    return 1

async def fetch(url):
    pass
`
	goFile = `// Copyright 2011 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:generate stringer -type=Kind

// Package ledger keeps accounts balanced.
package ledger

import (
	"fmt"
)

type Account struct{}

func (a *Account) Post(n int) {}

func New() *Account { return nil }
`
	jsFile = `/*!
 * @license MIT
 * Copyright (c) Example
 */
'use strict';
// Render charts in the browser.
export function draw(el) {}
export default class Chart {}
export const update = (x) => x;
const helper = function () {};
  function nested() {}
`
	mdFile = "# Guide\n\nHow to install and run the tool.\n\n## Install\n\n```sh\n# not a heading\n```\n\n### Options ###\n"
)

func TestOutlineItems(t *testing.T) {
	e := newEnv(t, nil, map[string]any{
		"files": dict(
			"src/invoice.py",
			pyFile,
			"ledger.go",
			goFile,
			"chart.js",
			jsFile,
			"README.md",
			mdFile,
			"notes.txt",
			"\n\nJust some notes\nabout things.\n",
		),
	})
	out := e.run(`print(outline(files))`)
	tests := []struct{ name, want string }{
		{"header", "outline of 5 items (dict, "},
		{"python docstring past a licence", "src/invoice.py (21 lines, 355 chars): "},
		{"python about", "): Parse invoices and total them by customer.\n"},
		{"python top-level defs only", "  defs: class Invoice, def parse, def fetch\n"},
		{"go package comment past a licence", "ledger.go (18 lines, 365 chars): Package ledger keeps accounts balanced.\n"},
		{"go defs and methods", "  defs: type Account, func Account.Post, func New\n"},
		{"js comment past a licence block", "chart.js (11 lines, 240 chars): Render charts in the browser.\n"},
		{"js defs", "  defs: function draw, class Chart, function update, function helper\n"},
		{"markdown", "README.md (11 lines, 98 chars): How to install and run the tool.\n  headings: # Guide, ## Install, ### Options\n"},
		{"text", "notes.txt (4 lines, 32 chars): Just some notes about things."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Contains(t, out, tt.want)
		})
	}
	assert.NotContains(t, out, "Copyright")
	assert.NotContains(t, out, "def helper", "nested definitions are not top-level")
	assert.NotContains(t, out, "nested")
	assert.NotContains(t, out, "not a heading")
}

func TestOutlineShapes(t *testing.T) {
	bundle := "=== a.py ===\n\"\"\"Module a.\"\"\"\ndef f():\n    pass\n=== docs/b.md ===\n# Title\nText of b.\n"
	e := newEnv(t, nil, map[string]any{
		"docs":   []any{dict("path", "x.py", "content", "def g():\n    pass\n"), dict("title", "Memo", "body", "Meeting moved to Friday.")},
		"texts":  []any{"First doc line.\nsecond", "Another one."},
		"bundle": bundle,
		"single": "Only one document here.\n## Part\n",
	})
	tests := []struct{ code, want string }{
		{
			`print(outline(docs))`,
			"outline of 2 items (list, 42 chars in all):\n[0] x.py (2 lines, 18 chars)\n  defs: def g\n[1] Memo (1 line, 24 chars): Meeting moved to Friday.",
		},
		{
			`print(outline(texts))`,
			"outline of 2 items (list, 34 chars in all):\n[0] (2 lines, 22 chars): First doc line. second\n[1] (1 line, 12 chars): Another one.",
		},
		{
			`print(outline(bundle))`,
			"outline of 2 items (str bundling 2 files, 53 chars in all):\na.py (3 lines, 34 chars): Module a.\n  defs: def f\ndocs/b.md (2 lines, 19 chars): Text of b.\n  headings: # Title",
		},
		{
			`print(outline(single))`,
			"outline of 1 item (str, 32 chars in all):\n(text) (2 lines, 32 chars): Only one document here.\n  headings: ## Part",
		},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			assert.Equal(t, tt.want+"\n", e.run(tt.code))
		})
	}
}

// A survey of many files stays within max_chars: detailed entries when
// they fit, one line per item when not, then as many lines as fit and the
// call that outlines the rest.
func TestOutlineIsBounded(t *testing.T) {
	files := make([]any, 0, 400)
	for i := range 200 {
		files = append(
			files,
			fmt.Sprintf("pkg/file_%03d.py", i),
			fmt.Sprintf("\"\"\"Module %d does things.\"\"\"\ndef f%d():\n    pass\nclass C%d:\n    pass\n", i, i, i),
		)
	}
	e := newEnv(t, nil, map[string]any{"files": dict(files...)})
	tests := []struct {
		maxChars           int
		detailed, complete bool
	}{
		{100000, true, true},
		{15000, false, true},
		{4000, false, false},
		{500, false, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.maxChars), func(t *testing.T) {
			out := strings.TrimSuffix(e.run(fmt.Sprintf(`print(outline(files, max_chars=%d))`, tt.maxChars)), "\n")
			assert.LessOrEqual(t, len(out), tt.maxChars)
			assert.Equal(t, tt.detailed, strings.Contains(out, "\n  defs: def f0, class C0\n"))
			assert.Equal(t, tt.complete, strings.Contains(out, "pkg/file_199.py"))
			if !tt.complete {
				var n, k int
				_, err := fmt.Sscanf(
					out[strings.LastIndex(out, "[... "):],
					"[... %d more items not shown: outline(peek(var, %d, None))",
					&n,
					&k,
				)
				require.NoError(t, err, out)
				assert.Equal(t, 200, n+k)
				assert.Contains(t, out, fmt.Sprintf("pkg/file_%03d.py", k-1))
				assert.NotContains(t, out, fmt.Sprintf("pkg/file_%03d.py", k))
				rest := e.run(fmt.Sprintf(`print(outline(peek(files, %d, None), max_chars=100000))`, k))
				assert.True(t, strings.HasPrefix(rest, fmt.Sprintf("outline of %d items", 200-k)), rest[:80])
			}
		})
	}
}

func TestOutlineErrors(t *testing.T) {
	e := newEnv(t, nil, nil)
	tests := []struct{ code, kind, want string }{
		{`outline(42)`, "TypeError", "outline: var must be a dict of files, a list of documents or a str, got int"},
		{`outline({}, max_chars=10)`, "ValueError", "outline: max_chars must be at least 200, got 10"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, err := e.exec(tt.code)
			assert.Contains(t, scriptErr(t, err, tt.kind), tt.want)
		})
	}
}

// When the detailed outline does not fit, one line per item shares the
// room evenly: short descriptions stay whole, long definition lists are
// cut first.
func TestOutlineCompactKeepsDescriptions(t *testing.T) {
	files := make([]any, 0, 40)
	for i := range 20 {
		var defs strings.Builder
		for j := range 30 {
			fmt.Fprintf(&defs, "def function_number_%d_%d():\n    pass\n", i, j)
		}
		files = append(
			files,
			fmt.Sprintf("mod_%02d.py", i),
			fmt.Sprintf("\"\"\"Module %02d parses the quarterly ledger exports of region %02d.\"\"\"\n%s", i, i, defs.String()),
		)
	}
	e := newEnv(t, nil, map[string]any{"files": dict(files...)})
	out := e.run(`print(outline(files))`)
	assert.LessOrEqual(t, len(out), 4001)
	assert.NotContains(t, out, "\n  defs:", "not the detailed level")
	for i := range 20 {
		assert.Contains(
			t,
			out,
			fmt.Sprintf(
				"mod_%02d.py (61 lines): Module %02d parses the quarterly ledger exports of region %02d. | def function_number_%d_0, ",
				i,
				i,
				i,
				i,
			),
		)
	}
}
