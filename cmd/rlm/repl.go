package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/rlmhq/rlm/builtins"
	"github.com/rlmhq/rlm/sandbox"
)

func init() {
	register(&command{name: "repl", summary: "interactive exploration of context variables with the same helpers", run: runREPL})
}

const replSynopsis = "[--var NAME=SOURCE]... [--session FILE] [--store DIR] [model flags] [limits] [size limits]"

const (
	ps1 = ">>> "
	ps2 = "... "
)

// lineReader reads input lines; prompt is shown when interactive.
type lineReader interface {
	readLine(prompt string) (string, error)
	io.Writer // where output goes
}

// plainReader reads lines from a non-terminal without prompts.
type plainReader struct {
	sc      *bufio.Scanner
	w       io.Writer
	pending []string // lines given back by unread, read first
}

func (p *plainReader) readLine(string) (string, error) {
	if len(p.pending) > 0 {
		line := p.pending[0]
		p.pending = p.pending[1:]
		return line, nil
	}
	if !p.sc.Scan() {
		if err := p.sc.Err(); err != nil {
			return "", err
		}
		return "", io.EOF
	}
	return p.sc.Text(), nil
}

func (p *plainReader) Write(b []byte) (int, error) { return p.w.Write(b) }

// unread gives lines back, to be read again before the rest of the input.
func (p *plainReader) unread(lines []string) {
	p.pending = append(append([]string(nil), lines...), p.pending...)
}

// termReader edits lines on a terminal (history with up/down, cursor
// movement, Ctrl-A/E/K/U/W) with golang.org/x/term. The terminal is in raw
// mode only while a line is read, so Ctrl-C interrupts a running step.
type termReader struct {
	t  *term.Terminal
	fd int
	w  io.Writer
}

func (r *termReader) readLine(prompt string) (string, error) {
	old, err := term.MakeRaw(r.fd)
	if err != nil {
		return "", err
	}
	defer term.Restore(r.fd, old)
	r.t.SetPrompt(prompt)
	line, err := r.t.ReadLine()
	if err == term.ErrPasteIndicator {
		err = nil // a pasted line is a line
	}
	return line, err
}

// Write writes program output directly: the terminal is in cooked mode
// between lines, so it translates newlines itself.
func (r *termReader) Write(b []byte) (int, error) { return r.w.Write(b) }

func runREPL(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "repl", replSynopsis)
	var f sessionFlags
	f.register(fs, env, sandbox.DefaultObservationTokens)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (use rlm exec to run a script)", errUsage, fs.Arg(0))
	}
	for _, v := range f.vars {
		if strings.HasSuffix(v, "=-") {
			return fmt.Errorf("%w: --var %s: the REPL reads its input from stdin, so a variable cannot", errUsage, v)
		}
	}
	s, err := newExecSession(ctx, env, "repl", &f)
	if err != nil {
		return err
	}
	defer s.shutdown()

	var in lineReader = &plainReader{sc: newScanner(env.stdin), w: env.stdout}
	errOut := env.stderr
	if fin, ok := env.stdin.(*os.File); ok && term.IsTerminal(int(fin.Fd())) {
		tr := &termReader{fd: int(fin.Fd()), w: env.stdout, t: term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{fin, env.stdout}, ps1)}
		in = tr
		fmt.Fprintf(env.stdout, "rlm repl: variables %s; helpers: %s. Blocks end with an empty line; Ctrl-D exits.\n",
			strings.Join(s.Session.UserGlobals(), ", "), helperNames())
	}
	return replLoop(ctx, s, in, errOut)
}

func newScanner(r io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	return sc
}

func helperNames() string {
	var names []string
	for _, d := range builtins.Docs() {
		names = append(names, d.Name)
	}
	return strings.Join(names, ", ")
}

// replLoop reads inputs (a line, or a block continued until an empty line)
// and runs each as one step, echoing the value of a bare expression. A
// failed input is reported and the loop goes on with the next one; fed a
// script (not a terminal), the REPL then exits 1, as python3 does.
func replLoop(ctx context.Context, s *execSession, in lineReader, errOut io.Writer) error {
	failed := 0
	done := func() error {
		if _, interactive := in.(*termReader); interactive || failed == 0 {
			return nil
		}
		return &exitError{code: 1, err: fmt.Errorf("%d input(s) failed", failed)}
	}
	for {
		src, err := readInput(in)
		if err == io.EOF {
			if src == "" {
				return done()
			}
			// The input ended inside an unclosed bracket or string: only
			// the statement that opened it fails; the lines after it are
			// read again as inputs of their own.
			if p, ok := in.(*plainReader); ok && needsMore(src) {
				if first, rest := splitUnclosed(src); len(rest) > 0 {
					p.unread(rest)
					src, err = first, nil
				}
			}
		} else if err != nil {
			return err
		}
		switch strings.TrimSpace(src) {
		case "":
			if err == io.EOF {
				return done()
			}
			continue
		case "exit", "exit()", "quit", "quit()":
			return done()
		}
		if !runInput(ctx, s, src, in, errOut) {
			failed++
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == io.EOF {
			return done()
		}
	}
}

// splitUnclosed splits an input that ends unclosed into the lines up to
// the one that opened the unclosed bracket or string, and the lines after.
func splitUnclosed(src string) (string, []string) {
	lines := strings.Split(src, "\n")
	k := 0 // lines[:k] is the longest prefix that is complete
	for i := len(lines) - 1; i > 0; i-- {
		if !needsMore(strings.Join(lines[:i], "\n")) {
			k = i
			break
		}
	}
	return strings.Join(lines[:k+1], "\n"), lines[k+1:]
}

// readInput reads one complete input. A line ending with ':' (a block
// header), an unclosed bracket or string, or a trailing backslash
// continues on the next lines; a block ends with an empty line.
func readInput(in lineReader) (string, error) {
	line, err := in.readLine(ps1)
	if err != nil {
		return line, err
	}
	var lines []string
	lines = append(lines, line)
	block := endsWithColon(line)
	for block || needsMore(strings.Join(lines, "\n")) {
		next, err := in.readLine(ps2)
		if err != nil {
			return strings.Join(lines, "\n"), err
		}
		if block && strings.TrimSpace(next) == "" && !needsMore(strings.Join(lines, "\n")) {
			break
		}
		lines = append(lines, next)
		if !block && endsWithColon(next) {
			block = true
		}
	}
	return strings.Join(lines, "\n"), nil
}

// endsWithColon reports whether a line (without its comment) ends with ':'.
func endsWithColon(line string) bool {
	code := stripComment(line)
	return strings.HasSuffix(strings.TrimSpace(code), ":")
}

func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#':
			return line[:i]
		}
	}
	return line
}

// needsMore reports whether src has unclosed brackets or triple-quoted
// strings, or ends with a line continuation.
func needsMore(src string) bool {
	depth := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case '\'', '"':
			if strings.HasPrefix(src[i:], strings.Repeat(string(c), 3)) {
				end := strings.Index(src[i+3:], strings.Repeat(string(c), 3))
				if end < 0 {
					return true
				}
				i += 3 + end + 2
				continue
			}
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
	}
	return depth > 0 || strings.HasSuffix(strings.TrimRight(src, " \t"), "\\")
}

// runInput runs src; a single expression is evaluated and its repr echoed
// (and bound to _) as Python's REPL does. It reports whether src ran
// without an error (a SUBMIT is no error).
func runInput(ctx context.Context, s *execSession, src string, out io.Writer, errOut io.Writer) bool {
	if !strings.Contains(strings.TrimSpace(src), "\n") {
		res, err := s.exec(ctx, "_ = ("+src+"\n)")
		var se *sandbox.ScriptError
		if !(errors.As(err, &se) && se.Kind == "SyntaxError") {
			io.WriteString(out, res.Output)
			if err != nil {
				// Show the line as typed, not as wrapped.
				return reportError(err, out, &unwrapWriter{w: errOut, wrapped: "_ = (" + src, src: src})
			}
			if v, ok := s.Session.Global("_"); ok && v.String() != "None" && v.Type() != "NoneType" {
				fmt.Fprintln(out, sandbox.Repr(v))
			}
			return true
		}
	}
	res, err := s.exec(ctx, src)
	io.WriteString(out, res.Output)
	if err != nil {
		return reportError(err, out, errOut)
	}
	return true
}

// reportError reports err of an input, and whether it was a SUBMIT rather
// than a failure.
func reportError(err error, out, errOut io.Writer) bool {
	if js, ok, jerr := submitJSON(err); ok {
		if jerr != nil {
			fmt.Fprintln(errOut, jerr)
			return false
		}
		fmt.Fprintln(out, "submitted:", js)
		return true
	}
	writeScriptError(errOut, err)
	return false
}

// unwrapWriter writes a traceback of the wrapped expression as the user
// typed it.
type unwrapWriter struct {
	w            io.Writer
	wrapped, src string
}

func (u *unwrapWriter) Write(b []byte) (int, error) {
	_, err := io.WriteString(u.w, strings.ReplaceAll(string(b), u.wrapped, u.src))
	return len(b), err
}
