package main

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// releaseImage drops the process's mappings of its own executable's code
// and read-only data, and those of the shared libraries it loaded (libc
// and the dynamic linker of a cgo build), never writable data, with
// MADV_DONTNEED. Every package's initialisation runs at start, for every
// command, and the kernel maps a file's pages 64 KB around each one
// touched, so rlm exec starts with most of its 8 MB of code resident
// although running code needs a third of it. The pages stay in the page
// cache; those still needed are mapped again on their next use. Only
// read-only private mappings that hold nothing but their file's content
// are dropped: a mapping with anonymous pages (written before it was made
// read-only, as the dynamic linker does to a RELRO segment of a PIE or
// externally linked build) is left alone, since dropping it would bring
// back the file's bytes in place of what was written.
func releaseImage() {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer f.Close()
	for _, s := range imageSpans(f) {
		// The range is not Go memory: pass it as numbers, not a slice.
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(s.lo), uintptr(s.hi-s.lo), syscall.MADV_DONTNEED)
	}
}

// span is an address range [lo, hi).
type span struct{ lo, hi uint64 }

// imageSpans reads /proc/PID/smaps and returns the read-only private
// mappings of files (the executable and shared libraries) that hold no
// anonymous pages.
func imageSpans(r io.Reader) []span {
	type mapping struct {
		span
		perms, ino string
		anon       bool
	}
	var maps []mapping
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) >= 5 && strings.Contains(fl[0], "-") && !strings.HasSuffix(fl[0], ":") {
			lo, hi, _ := strings.Cut(fl[0], "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				maps = append(maps, mapping{span: span{a, b}, perms: fl[1], ino: fl[4]})
				continue
			}
		}
		if len(maps) > 0 && len(fl) >= 2 && fl[0] == "Anonymous:" && fl[1] != "0" {
			maps[len(maps)-1].anon = true
		}
	}
	if sc.Err() != nil {
		return nil
	}
	var out []span
	for _, m := range maps {
		if m.ino == "0" || m.anon || len(m.perms) != 4 || m.perms[0] != 'r' || m.perms[1] != '-' || m.perms[3] != 'p' {
			continue
		}
		out = append(out, m.span)
	}
	return out
}
