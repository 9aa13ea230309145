package sandbox

import (
	"context"
	"fmt"
	"os"
	"testing"
)

func TestScratch(t *testing.T) {
	src := os.Getenv("SRC")
	if src == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(src)
	s := New(Config{})
	res, err := s.Exec(context.Background(), string(b))
	fmt.Print(res.Output)
	if err != nil {
		fmt.Println("ERR:", err)
		if se, ok := err.(*ScriptError); ok {
			fmt.Println(se.Traceback)
		}
	}
}
