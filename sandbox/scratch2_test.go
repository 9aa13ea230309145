package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func TestScratchErrs(t *testing.T) {
	dir := os.Getenv("ERRDIR")
	if dir == "" {
		t.Skip()
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.py"))
	sort.Strings(files)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		_, err := New(Config{}).Exec(context.Background(), string(b))
		if se, ok := err.(*ScriptError); ok {
			fmt.Printf("%s\t%s: %s\n", filepath.Base(f), se.Kind, se.Msg)
		} else {
			fmt.Printf("%s\tOK %v\n", filepath.Base(f), err)
		}
	}
}
