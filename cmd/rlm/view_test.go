package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rlmhq/rlm/runs"
)

const viewTraj = `{"v":1,"type":"run_start","run":"0","elapsed_ms":0,"data":{"query":"q"}}
{"v":1,"type":"reply","run":"0","step":1,"elapsed_ms":3,"data":{"content":"hi"}}
{"v":1,"type":"run_end","run":"0","elapsed_ms":4,"data":{"stop_reason":"submit","answer":"forty-two","iterations":1,"duration_ms":4}}
`

func TestView(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	a := write("a.jsonl", viewTraj)
	b := write("b.jsonl", strings.Replace(viewTraj, "forty-two", "forty-three", 1))
	cut := write("cut.jsonl", viewTraj+`{"v":1,"type":"reply","run":"0","st`)
	notTraj := write("notes.txt", "hello\n")

	// A kept run, named by its ID.
	root := runs.NewRoot(filepath.Join(dir, "runs"))
	kept, err := root.Create(runs.Meta{})
	require.NoError(t, err)
	require.NoError(t, kept.Finish(runs.Outcome{Status: runs.StatusDone}))
	require.NoError(t, os.WriteFile(filepath.Join(root.Path(kept.ID()), runs.TrajectoryFile), []byte(viewTraj), 0o644))

	tests := []struct {
		name       string
		args       []string
		code       int
		wantFile   string // written page
		wantOut    string // in stdout
		wantErr    string // in stderr
		wantInPage string
	}{
		{
			"next to the trajectory",
			[]string{"view", a},
			0,
			filepath.Join(dir, "a.html"),
			"",
			"wrote " + filepath.Join(dir, "a.html"),
			"forty-two",
		},
		{"to a file", []string{"view", a, "-o", filepath.Join(dir, "x.html")}, 0, filepath.Join(dir, "x.html"), "", "wrote", "rlm-src-0"},
		{"to stdout", []string{"view", "-o", "-", a}, 0, "", `id="rlm-src-0"`, "", ""},
		{"compare", []string{"view", a, b}, 0, filepath.Join(dir, "a-vs-b.html"), "", "wrote", "forty-three"},
		{
			"a kept run by ID",
			[]string{"view", "--runs-dir", root.Dir, kept.ID()},
			0,
			filepath.Join(root.Path(kept.ID()), "view.html"),
			"",
			"wrote",
			"forty-two",
		},
		{"a cut last line", []string{"view", cut, "-o", "-"}, 0, "", "rlm-src-0", "the last line was cut", ""},
		{"not a trajectory", []string{"view", notTraj}, 1, "", "", "line 1 of notes.txt is not a trajectory event", ""},
		{"no such file", []string{"view", filepath.Join(dir, "nope.jsonl")}, 2, "", "", "no such file", ""},
		{"no argument", []string{"view"}, 2, "", "", "takes one trajectory, or two", ""},
		{"three", []string{"view", a, a, a}, 2, "", "", "takes one trajectory, or two", ""},
		{"open needs a file", []string{"view", a, "-o", "-", "--open"}, 2, "", "", "--open needs a file", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", nil, tt.args...)
			assert.Equal(t, tt.code, code, "stderr: %s", errs)
			assert.Contains(t, out, tt.wantOut)
			assert.Contains(t, errs, tt.wantErr)
			if tt.wantFile != "" {
				page, err := os.ReadFile(tt.wantFile)
				require.NoError(t, err)
				assert.Contains(t, string(page), tt.wantInPage)
			}
		})
	}
}
