package pyfront

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, src   string
		line        int
		msg         string
		unsupported bool
	}{
		{"class", "x = 1\nclass A:\n    pass", 2, "class definitions are not supported", true},
		{"infinite generator", "def g():\n    n = 0\n    while True:\n        yield n\n        n += 1", 3, "infinite generators", true},
		{"yield outside def", "yield 1", 1, "'yield' outside function", false},
		{"yield expr", "def g():\n    x = yield", 2, "yield", true},
		{"async", "async def f():\n    pass", 1, "async/await", true},
		{"nonlocal without an enclosing def", "def g():\n    nonlocal x\n    x = 2", 2, "nonlocal", true},
		{"nonlocal", "def f():\n    x = 1\n    def g():\n        nonlocal x\n        x = 2", 4, "nonlocal", true},
		{"decorated class", "@dataclass\nclass P:\n    x: int", 2, "class definitions", true},
		{"match", "match x:\n    case 1:\n        pass", 1, "match statements", true},
		{"complex", "x = 1 + 2j", 1, "complex numbers", true},
		{"star import", "from math import *", 1, "import *", true},
		{"walrus in lambda", "f = lambda: (y := 1)", 1, "assignment expression", true},
		{"slice assign in tuple", "xs = [1]\nxs[0:1], y = [2], 3", 2, "slice assignment", true},
		{"slice aug assign", "xs = [1]\nxs[0:1] += [2]", 2, "augmented assignment", false},
		{"py2 print", "x = 1\nprint \"hi\"", 2, "Missing parentheses in call to 'print'", false},
		{"relative import", "from . import x", 1, "relative imports", true},
		{"matmul", "a @ b", 1, "@ operator", true},
		{"bad indent", "if x:\nprint(1)", 2, "expected an indented block", false},
		{"unterminated", "x = 'abc", 1, "unterminated string literal", false},
		{"fstring single brace", "x = f'a}'", 1, "single '}'", false},
		{"fstring empty", "x = f'{}'", 1, "valid expression required", false},
		{"bad token", "x = = 1", 1, "invalid syntax", false},
		{"assign to call", "f() = 1", 1, "cannot assign to function call", false},
		{"keyword as name", "x = 1\nimport = 2", 2, "invalid syntax", false},
		{"line in fstring expr", "x = 1\ny = f'{x +}'", 2, "invalid syntax", false},
		{"try without except", "try:\n    x = 1\nprint(x)", 3, "expected 'except' or 'finally'", false},
		{"bang", "if !x: pass", 1, "'!'", false},
		{"leading zero", "x = 012", 1, "leading zeros", false},
		{"del attr", "del x.y", 1, "del of an attribute", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("t.py", tt.src, Options{})
			require.Error(t, err)
			var e *Error
			require.True(t, errors.As(err, &e), "%T %v", err, err)
			assert.Equal(t, tt.line, e.Line, "error: %v", err)
			assert.Contains(t, e.Msg, tt.msg)
			assert.Equal(t, tt.unsupported, errors.Is(err, ErrUnsupported), "error: %v", err)
			assert.Equal(t, !tt.unsupported, errors.Is(err, ErrSyntax))
		})
	}
}

func TestProgramStructure(t *testing.T) {
	src := `import json
data = "[1]"
try:
    x = json.loads(data)
except (ValueError, json.JSONDecodeError) as e:
    print("bad", e)
except KeyError:
    pass
except:
    raise
else:
    print(x)
finally:
    print("done")
for i in range(3):
    try:
        y = 1 // i
    except ZeroDivisionError:
        y = 0
print(y)
`
	prog, err := Compile("t.py", src, Options{})
	require.NoError(t, err)
	require.Len(t, prog.Chunks, 3)
	require.NotNil(t, prog.Chunks[0].File)
	tr := prog.Chunks[1].Try
	require.NotNil(t, tr)
	assert.Equal(t, 3, tr.Line)
	require.Len(t, tr.Handlers, 3)
	assert.Equal(t, []string{"ValueError", "json.JSONDecodeError"}, tr.Handlers[0].Types)
	assert.Equal(t, "e", tr.Handlers[0].Name)
	assert.Equal(t, 5, tr.Handlers[0].Line)
	assert.Equal(t, []string{"KeyError"}, tr.Handlers[1].Types)
	assert.Empty(t, tr.Handlers[2].Types)
	assert.NotEmpty(t, tr.Else)
	assert.NotEmpty(t, tr.Finally)
	for _, c := range prog.Chunks[2:] {
		assert.NotNil(t, c.File)
	}
	assert.Equal(t, []TryRange{{Line: 16, EndLine: 17}}, prog.InnerTry)
	assert.True(t, prog.InnerTry[0].Contains(17))
	assert.False(t, prog.InnerTry[0].Contains(18))
	for _, f := range []*File{prog.Chunks[0].File, prog.Chunks[2].File} {
		assert.Equal(t, FileOptions, f.Options)
	}
}

func TestNestedTopLevelTry(t *testing.T) {
	src := "try:\n    a = 1\n    try:\n        b = 2\n    except KeyError:\n        pass\nexcept ValueError:\n    pass\n"
	prog, err := Compile("t.py", src, Options{})
	require.NoError(t, err)
	require.Len(t, prog.Chunks, 1)
	outer := prog.Chunks[0].Try
	require.Len(t, outer.Body, 2)
	assert.NotNil(t, outer.Body[0].File)
	assert.NotNil(t, outer.Body[1].Try)
	assert.Empty(t, prog.InnerTry)
}

func TestStarImports(t *testing.T) {
	prog, err := Compile("t.py", "from math import *\nprint(answer)", Options{StarImports: map[string][]string{"math": {"answer", "name"}}})
	require.NoError(t, err)
	require.Len(t, prog.Chunks, 1)
	assert.Len(t, prog.Chunks[0].File.Stmts, 3)
}

func TestPositions(t *testing.T) {
	_, err := run(t, "x = 1\ny = f'{x} {undefined_name}'\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "test.py:2:12")
}

func TestIsIncomplete(t *testing.T) {
	for src, want := range map[string]bool{
		"def f():\n":            true,
		"xs = [1,\n":            true,
		"s = \"\"\"abc\n":       true,
		"if x:\n    y = (1 +\n": true,
		"x = 1 +\n":             false,
		"x = 'abc\n":            false,
		"x = )\n":               false,
	} {
		_, err := Compile("t.py", src, Options{})
		require.Error(t, err, src)
		assert.Equal(t, want, IsIncomplete(err), "%q: %v", src, err)
	}
	_, err := Compile("t.py", "x = 1\n", Options{})
	assert.False(t, IsIncomplete(err))
}
