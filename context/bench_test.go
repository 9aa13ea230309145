package rlmctx

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Benchmarks for 100 MB inputs. Each also runs the operation once in a
// fresh child process and reports its peak resident memory growth as a
// ratio to the input size (peak-rss/size), next to a baseline measured the
// same way in the same run. The load benchmarks go on past LoadSource to
// the variable as rlm exec makes it and to the summaries rlm run shows;
// cmd/rlm's BenchmarkExecLoad measures the whole process against CPython:
//
//	go test -run '^$' -bench . -benchtime 3x ./context/

const benchSize = 100 << 20

const (
	benchChildEnv = "RLMCTX_BENCH_CHILD"
	benchPathEnv  = "RLMCTX_BENCH_PATH"
)

var benchFiles sync.Map // kind -> path, generated once per run

// benchInput writes a ~100 MB input of the given kind ("text" or "json")
// into a temporary directory that lives for the whole benchmark run.
func benchInput(b *testing.B, kind string) string {
	if p, ok := benchFiles.Load(kind); ok {
		return p.(string)
	}
	dir, err := os.MkdirTemp("", "rlmctx-bench-")
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "input."+map[string]string{"text": "txt", "json": "json"}[kind])
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n := 0
	switch kind {
	case "text":
		for i := 0; n < benchSize; i++ {
			m, _ := fmt.Fprintf(
				w,
				"2026-01-02T03:04:%02dZ INFO request %d served path=/api/items/%d status=200 bytes=%d\n",
				i%60,
				i,
				i%977,
				i*7%100000,
			)
			n += m
		}
	case "json":
		w.WriteString("[")
		for i := 0; n < benchSize; i++ {
			if i > 0 {
				w.WriteString(",\n")
			}
			m, _ := fmt.Fprintf(
				w,
				`{"id": %d, "user": "user%d", "score": %d.5, "tags": ["a", "b%d"], "text": "lorem ipsum dolor sit amet %d"}`,
				i,
				i%1000,
				i%100,
				i%7,
				i,
			)
			n += m + 2
		}
		w.WriteString("]\n")
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	benchFiles.Store(kind, p)
	return p
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(benchChildEnv); mode != "" {
		os.Exit(benchChild(mode, os.Getenv(benchPathEnv)))
	}
	code := m.Run()
	benchFiles.Range(func(_, p any) bool {
		os.RemoveAll(filepath.Dir(p.(string)))
		return true
	})
	os.Exit(code)
}

// procStatus reads a kB field of /proc/self/status, in bytes (0 if absent).
func procStatus(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, ln := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(ln, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}

var sink any

// benchChild runs one operation and prints the peak RSS growth.
func benchChild(mode, path string) int {
	runtime.GC()
	before := procStatus("VmRSS")
	start := time.Now()
	var err error
	switch mode {
	case "text-readfile":
		var data []byte
		data, err = os.ReadFile(path)
		sink = string(data)
	case "text-load":
		sink, err = LoadSource(context.Background(), path, LoadOptions{})
	case "text-var", "json-var":
		sink, err = loadContext(path, false)
	case "text-summary", "json-summary":
		sink, err = loadContext(path, true)
	case "json-stdlib":
		var data []byte
		if data, err = os.ReadFile(path); err == nil {
			var v any
			err = json.Unmarshal(data, &v)
			sink = v
		}
	case "json-load":
		sink, err = LoadSource(context.Background(), path, LoadOptions{})
	case "store-set":
		var l *Loaded
		if l, err = LoadSource(context.Background(), path, LoadOptions{}); err == nil {
			var s *Store
			if s, err = OpenStore(StoreConfig{Dir: filepath.Join(filepath.Dir(path), "store")}); err == nil {
				_, err = s.Set("big", l.Value, WithPersist())
				sink = l
			}
		}
	case "store-get":
		var s *Store
		if s, err = OpenStore(StoreConfig{Dir: filepath.Join(filepath.Dir(path), "store")}); err == nil {
			var v any
			if v, err = s.Get("big"); err == nil {
				// Touch every page, as a search over the value would.
				sink = strings.Count(v.(string), "\n")
			}
		}
	default:
		err = fmt.Errorf("unknown mode %s", mode)
	}
	elapsed := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("peak=%d elapsed=%d\n", procStatus("VmHWM")-before, elapsed.Nanoseconds())
	return 0
}

// loadContext loads path as rlm exec and rlm run do (LoadVar, size
// checks, AutoChunk); with summaries, it also renders the variable
// summaries that rlm run puts into the root prompt, which count tokens.
func loadContext(path string, summaries bool) (*ExternalizedContext, error) {
	v, _, err := LoadVar(context.Background(), VarSpec{Name: "doc", Source: path}, LoadOptions{})
	if err != nil {
		return nil, err
	}
	c := NewContext("q")
	if err := c.AddVariable(v); err != nil {
		return nil, err
	}
	c.CheckSizeLimits(SizeConfig{})
	c.AutoChunk(SizeConfig{})
	if summaries {
		sink = c.VariableSummaries()
	}
	return c, nil
}

// childPeak runs benchChild(mode) in a fresh process and returns its peak
// RSS growth and the operation's duration.
func childPeak(b *testing.B, mode, path string) (int64, time.Duration) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchChildEnv+"="+mode, benchPathEnv+"="+path)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("child %s: %v: %s", mode, err, errb.String())
	}
	var peak, ns int64
	if _, err := fmt.Sscanf(strings.TrimSpace(out.String()), "peak=%d elapsed=%d", &peak, &ns); err != nil {
		b.Fatalf("child %s output %q: %v", mode, out.String(), err)
	}
	return peak, time.Duration(ns)
}

// reportPeak reports the child's peak RSS growth as a ratio to size.
func reportPeak(b *testing.B, mode, path string) {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	peak, _ := childPeak(b, mode, path)
	if peak > 0 {
		b.ReportMetric(float64(peak)/float64(fi.Size()), "peak-rss/size")
	}
}

func BenchmarkLoadText100MB(b *testing.B) {
	path := benchInput(b, "text")
	fi, _ := os.Stat(path)
	b.Run("baseline=string(os.ReadFile)", func(b *testing.B) {
		b.SetBytes(fi.Size())
		defer reportPeak(b, "text-readfile", path) // after b.Loop, which resets metrics
		for b.Loop() {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			sink = string(data)
		}
	})
	b.Run("LoadSource", func(b *testing.B) {
		b.SetBytes(fi.Size())
		defer reportPeak(b, "text-load", path) // after b.Loop, which resets metrics
		for b.Loop() {
			l, err := LoadSource(context.Background(), path, LoadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			sink = l
		}
	})
	benchLoadContext(b, "text", path, fi.Size())
}

// benchLoadContext adds the sub-benchmarks of what a user pays beyond
// LoadSource: the variable (LoadVar, size checks, AutoChunk) as rlm exec
// makes it, and the same plus the summaries rlm run shows the model.
func benchLoadContext(b *testing.B, kind, path string, size int64) {
	for _, summaries := range []bool{false, true} {
		name, mode := "LoadVar+AutoChunk", kind+"-var"
		if summaries {
			name, mode = "LoadVar+AutoChunk+Summary", kind+"-summary"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			defer reportPeak(b, mode, path) // after b.Loop, which resets metrics
			for b.Loop() {
				c, err := loadContext(path, summaries)
				if err != nil {
					b.Fatal(err)
				}
				sink = c
			}
		})
	}
}

func BenchmarkLoadJSON100MB(b *testing.B) {
	path := benchInput(b, "json")
	fi, _ := os.Stat(path)
	b.Run("baseline=encoding/json", func(b *testing.B) {
		b.SetBytes(fi.Size())
		defer reportPeak(b, "json-stdlib", path) // after b.Loop, which resets metrics
		for b.Loop() {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
			sink = v
		}
	})
	b.Run("LoadSource", func(b *testing.B) {
		b.SetBytes(fi.Size())
		defer reportPeak(b, "json-load", path) // after b.Loop, which resets metrics
		for b.Loop() {
			l, err := LoadSource(context.Background(), path, LoadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			sink = l
		}
	})
	benchLoadContext(b, "json", path, fi.Size())
}

func BenchmarkStoreSetGet100MB(b *testing.B) {
	path := benchInput(b, "text")
	fi, _ := os.Stat(path)
	l, err := LoadSource(context.Background(), path, LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	text := l.Value.(string)
	b.Run("baseline=os.WriteFile", func(b *testing.B) {
		b.SetBytes(fi.Size())
		dst := filepath.Join(b.TempDir(), "copy.txt")
		for b.Loop() {
			f, err := os.Create(dst)
			if err != nil {
				b.Fatal(err)
			}
			f.WriteString(text)
			f.Sync()
			f.Close()
		}
	})
	b.Run("Set", func(b *testing.B) {
		b.SetBytes(fi.Size())
		defer reportPeak(b, "store-set", path) // includes loading the file; after b.Loop, which resets metrics
		s, err := OpenStore(StoreConfig{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for b.Loop() {
			if _, err := s.Set("big", text, WithPersist()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get", func(b *testing.B) {
		b.SetBytes(fi.Size())
		defer reportPeak(b, "store-get", path) // reads what store-set wrote; after b.Loop
		dir := b.TempDir()
		s, err := OpenStore(StoreConfig{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Set("big", text, WithPersist()); err != nil {
			b.Fatal(err)
		}
		s.Close()
		for b.Loop() {
			s, err := OpenStore(StoreConfig{Dir: dir})
			if err != nil {
				b.Fatal(err)
			}
			v, err := s.Get("big")
			if err != nil {
				b.Fatal(err)
			}
			sink = v
			s.Close()
		}
	})
}

func BenchmarkStoreRef(b *testing.B) {
	for _, n := range []int{10, 10000} {
		for _, persist := range []bool{false, true} {
			b.Run(fmt.Sprintf("keys=%d/persist=%v", n, persist), func(b *testing.B) {
				s, err := OpenStore(StoreConfig{Dir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				var opts []SetOption
				if persist {
					opts = append(opts, WithPersist())
				}
				for i := 0; i < n; i++ {
					if _, err := s.Set(fmt.Sprintf("k%d", i), strings.Repeat("x", 1000), opts...); err != nil {
						b.Fatal(err)
					}
				}
				for b.Loop() {
					if _, err := s.Ref("k7"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAutoChunk cuts a 1 MB-and-more list and dict of records into
// NAME_chunks (sizes kept from measuring) and a 60 KB list (measured again).
func BenchmarkAutoChunk(b *testing.B) {
	var big, small []any
	d := NewDict(0)
	for i := range 20000 {
		rec := NewDict(2)
		rec.Set("id", int64(i))
		rec.Set("text", fmt.Sprintf("record number %d with some text", i))
		big = append(big, rec)
		d.Set(fmt.Sprintf("key%06d", i), rec)
		if i < 1000 {
			small = append(small, rec)
		}
	}
	for _, bc := range []struct {
		name string
		v    any
		cfg  SizeConfig
	}{
		{"list", big, SizeConfig{}},
		{"dict", d, SizeConfig{}},
		{"small list", small, SizeConfig{ChunkThreshold: 10 << 10, ChunkSize: 4 << 10}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := NewContext("q")
				if _, err := c.Add("x", bc.v); err != nil {
					b.Fatal(err)
				}
				if len(c.AutoChunk(bc.cfg)) != 1 {
					b.Fatal("not chunked")
				}
			}
		})
	}
}
