package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	rlmctx "github.com/rlmhq/rlm/context"
	"github.com/rlmhq/rlm/internal/pyjson"
)

// fakeExec is an offline Executor with a tiny command language, for logic
// tests that must not depend on the sandbox:
//
//	SUBMIT(<json object>)    submits
//	ERR <msg>                fails with msg
//	PRINT <n>                prints n 'x' characters (excerpted past 2,000)
//	DEF <name>               defines a global
//	anything else            prints "ran: <code>"
type fakeExec struct {
	mu       sync.Mutex
	outputs  map[int]string
	globals  []string
	settles  int
	failNext bool
}

func fakeFactory(store **fakeExec) ExecutorFactory {
	return func(ctx context.Context, spec ExecSpec) (Executor, error) {
		f := &fakeExec{outputs: map[int]string{}}
		for _, v := range spec.Vars {
			f.globals = append(f.globals, v.Name)
		}
		if store != nil {
			*store = f
		}
		return f, nil
	}
}

func (f *fakeExec) Exec(ctx context.Context, code string) (*ExecResult, error) {
	if err := ctx.Err(); err != nil {
		return &ExecResult{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	code = strings.TrimSpace(code)
	switch {
	case strings.HasPrefix(code, "SUBMIT(") && strings.HasSuffix(code, ")"):
		v, err := pyjson.Decode([]byte(code[len("SUBMIT(") : len(code)-1]))
		if err != nil {
			return &ExecResult{Err: err, ErrText: "SyntaxError: " + err.Error()}, nil
		}
		d, _ := v.(*rlmctx.Dict)
		return &ExecResult{Submitted: true, Outputs: d}, nil
	case strings.HasPrefix(code, "ERR "):
		msg := "ValueError: " + code[4:]
		return &ExecResult{Err: errors.New(msg), ErrText: "Traceback (most recent call last):\n  line 1\n" + msg}, nil
	case strings.HasPrefix(code, "PRINT "):
		n, _ := strconv.Atoi(code[6:])
		out := strings.Repeat("lorem ipsum dolor sit amet ", n/27+1)[:n]
		if n > 2000 {
			return &ExecResult{Output: out, Excerpt: out[:1000] + "\n... [cut] ...\n" + out[n-1000:], Truncated: true}, nil
		}
		return &ExecResult{Output: out, Excerpt: out}, nil
	case code == "DEFERFAIL":
		f.failNext = true
		return &ExecResult{}, nil
	case strings.HasPrefix(code, "DEF "):
		f.globals = append(f.globals, code[4:])
		return &ExecResult{}, nil
	}
	out := "ran: " + code + "\n"
	return &ExecResult{Output: out, Excerpt: out}, nil
}

func (f *fakeExec) Settle(ctx context.Context) (DeferredReport, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settles++
	if f.failNext {
		f.failNext = false
		return DeferredReport{
			Started: 2,
			Failed:  []DeferredOp{{Key: "k1", Kind: "llm_query", Error: "llm: budget: budget exceeded"}},
		}, ctx.Err()
	}
	return DeferredReport{}, ctx.Err()
}

func (f *fakeExec) SetOutput(step int, output string) {
	f.mu.Lock()
	f.outputs[step] = output
	f.mu.Unlock()
}

func (f *fakeExec) Globals() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.globals...)
}

func (f *fakeExec) Lookup(name string) (string, bool) { return "", false }
func (f *fakeExec) Close() error                      { return nil }

func code(lines ...string) string {
	return "Let me look.\n```python\n" + strings.Join(lines, "\n") + "\n```"
}

func submitReply(answer string) string {
	return code(fmt.Sprintf(`SUBMIT({"answer": %q})`, answer))
}

const testHelpers = "- peek(var, start=0, end=10): slice\n- search(var, pattern): find\n- llm_query(prompt): ask a sub-model\n- SUBMIT(outputs): finish"
