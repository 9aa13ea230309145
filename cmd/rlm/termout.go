package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/rlmhq/rlm/llm"
)

// isTerminal reports whether w is a terminal: a character device, or a
// writer that says so (tests).
func isTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

// terminalWidth is the number of columns of the terminal w, 0 if unknown.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return cols
		}
	}
	return 0
}

// termSafe returns s ready to write to w. On a terminal, control
// characters other than newline and tab are shown escaped (see
// escapeControls), so that text from a model, a file or a store key cannot
// move the cursor, retitle or clear the terminal; anywhere else (a pipe, a
// file, --json output) s is unchanged. It is the one function the commands
// use for such text.
func termSafe(w io.Writer, s string) string {
	if !isTerminal(w) {
		return s
	}
	return escapeControls(s)
}

// escapeControls writes C0 and C1 control characters (except newline and
// tab), DEL, Unicode bidirectional overrides and invalid UTF-8 bytes as
// Python-style escapes: "\x1b", "\u009b", "\u202e".
func escapeControls(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !unsafeRune(r, size):
			b.WriteString(s[i : i+size])
		case r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports a rune (of encoded size bytes) that a terminal would
// interpret rather than show.
func unsafeRune(r rune, size int) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidirectional embeddings, overrides and isolates
	}
	return false
}

// redactWriter replaces secrets in whole lines before writing them to w,
// for JSONL artefacts (the trajectory) that may quote model output or
// context holding the API key. A line is written when its newline arrives;
// Flush writes a final partial line.
type redactWriter struct {
	w       io.Writer
	secrets []string
	buf     []byte
}

// newRedactWriter wraps w; with no secrets (or a nil w) it returns w.
func newRedactWriter(w io.Writer, secrets []string) io.Writer {
	if w == nil || len(secrets) == 0 {
		return w
	}
	return &redactWriter{w: w, secrets: secrets}
}

func (r *redactWriter) Write(p []byte) (int, error) {
	r.buf = append(r.buf, p...)
	i := bytes.LastIndexByte(r.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	line := llm.RedactSecrets(string(r.buf[:i+1]), r.secrets...)
	r.buf = append(r.buf[:0], r.buf[i+1:]...)
	if _, err := io.WriteString(r.w, line); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is left of a final line without a newline.
func (r *redactWriter) Flush() error {
	if len(r.buf) == 0 {
		return nil
	}
	_, err := io.WriteString(r.w, llm.RedactSecrets(string(r.buf), r.secrets...))
	r.buf = r.buf[:0]
	return err
}
