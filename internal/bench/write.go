package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
)

// TaskFile is the task.json written by [WriteTask]: everything but the
// variables' contents, which live in the files it names.
type TaskFile struct {
	Task  string `json:"task"`
	Size  int    `json:"size"`
	Seed  uint64 `json:"seed"`
	Index int    `json:"index"`
	Query string `json:"query"`
	Gold  Gold   `json:"gold"`
	// Vars name each variable's file (relative to the task directory), to
	// pass as --var NAME=FILE.
	Vars []VarFile `json:"vars"`
	// ContextTokens is the exact token count of all variables' text.
	ContextTokens int `json:"context_tokens"`
}

// VarFile names the file holding one variable.
type VarFile struct {
	Name string `json:"name"`
	File string `json:"file"`
	Type string `json:"type"` // "text" or "files" (a JSON object path -> content)
}

// WriteTask writes t to dir: one file per variable (NAME.txt for text,
// NAME.json for a files dict), query.txt, and task.json with the query,
// the gold answer and the variable files. It returns the task file.
func WriteTask(dir string, t *Task) (*TaskFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench: write task: %w", err)
	}
	tf := &TaskFile{Task: t.Kind, Size: t.Size, Seed: t.Seed, Index: t.Index, Query: t.Query, Gold: t.Gold}
	for _, v := range t.Vars {
		vf := VarFile{Name: v.Name}
		var err error
		switch x := v.Value.(type) {
		case *rlmctx.Dict:
			vf.File, vf.Type = v.Name+".json", "files"
			err = writeDictJSON(filepath.Join(dir, vf.File), x)
		default:
			vf.File, vf.Type = v.Name+".txt", "text"
			err = os.WriteFile(filepath.Join(dir, vf.File), []byte(v.Text()), 0o644)
		}
		if err != nil {
			return nil, fmt.Errorf("bench: write variable %s: %w", v.Name, err)
		}
		tf.ContextTokens += CountTokens(v.Text())
		tf.Vars = append(tf.Vars, vf)
	}
	if err := os.WriteFile(filepath.Join(dir, "query.txt"), []byte(t.Query+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("bench: write query: %w", err)
	}
	b, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "task.json"), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("bench: write task.json: %w", err)
	}
	return tf, nil
}

// writeDictJSON writes a string-valued dict as a JSON object, keys in order.
func writeDictJSON(path string, d *rlmctx.Dict) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString("{\n")
	for i, k := range d.Keys() {
		v, _ := d.Get(k)
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(v)
		if err != nil {
			f.Close()
			return err
		}
		w.Write(kb)
		w.WriteString(": ")
		w.Write(vb)
		if i < d.Len()-1 {
			w.WriteByte(',')
		}
		w.WriteByte('\n')
	}
	w.WriteString("}\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadTask reads a task written by [WriteTask] back, variables included.
func ReadTask(dir string) (*Task, error) {
	b, err := os.ReadFile(filepath.Join(dir, "task.json"))
	if err != nil {
		return nil, fmt.Errorf("bench: read task: %w", err)
	}
	var tf TaskFile
	if err := json.Unmarshal(b, &tf); err != nil {
		return nil, fmt.Errorf("bench: read task.json: %w", err)
	}
	t := &Task{Kind: tf.Task, Size: tf.Size, Seed: tf.Seed, Index: tf.Index, Query: tf.Query, Gold: tf.Gold}
	for _, vf := range tf.Vars {
		data, err := os.ReadFile(filepath.Join(dir, vf.File))
		if err != nil {
			return nil, fmt.Errorf("bench: read variable %s: %w", vf.Name, err)
		}
		switch vf.Type {
		case "files":
			d, err := readDictJSON(data)
			if err != nil {
				return nil, fmt.Errorf("bench: read variable %s: %w", vf.Name, err)
			}
			t.Vars = append(t.Vars, Var{Name: vf.Name, Value: d})
		default:
			t.Vars = append(t.Vars, Var{Name: vf.Name, Value: string(data)})
		}
	}
	return t, nil
}

// readDictJSON decodes a JSON object of strings keeping key order.
func readDictJSON(data []byte) (*rlmctx.Dict, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object of path -> content")
	}
	d := rlmctx.NewDict(0)
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		d.Set(kt.(string), v)
	}
	return d, nil
}
