package main

import (
	"os"
	"runtime/debug"
	"strings"

	rlmctx "github.com/rlmhq/rlm/context"
)

// releaseThreshold is the total size of the --var files from which the
// memory left by the process's start is given back before they are read.
const releaseThreshold = 16 << 20

// releaseBeforeLoad gives back to the system, before variables of at
// least releaseThreshold bytes are read, what starting the process left
// resident and will not need again, so the process peaks at little more
// than the variables themselves: the heap pages freed since start-up
// (package initialisation allocates and drops a few MB; a large value
// cannot reuse those pages) and the pages of the executable's code and
// read-only data that start-up touched (releaseImage). For smaller
// variables it does nothing: the fixed cost is then not worth it.
func releaseBeforeLoad(vars []string) {
	if varFilesSize(vars) < releaseThreshold {
		return
	}
	debug.FreeOSMemory()
	releaseImage()
}

// releaseBeforeStep gives back, for variables of at least
// releaseThreshold bytes, the executable's and libraries' pages that
// loading them and building the session touched (the session's forced
// collection, its builtins and modules), once more before rlm exec runs
// its code: the process then peaks with the variables and what running
// the code touches, not with start-up's working set on top (issue 10).
func releaseBeforeStep(vars []string) {
	if varFilesSize(vars) >= releaseThreshold {
		releaseImage()
	}
}

// varFilesSize is the total size of the regular files the --var specs
// name (stdin, the store and directories count 0).
func varFilesSize(vars []string) int64 {
	var n int64
	for _, raw := range vars {
		spec, err := rlmctx.ParseVarSpec(raw)
		if err != nil || spec.Source == "-" || strings.HasPrefix(spec.Source, rlmctx.StorePrefix) {
			continue
		}
		if fi, err := os.Stat(spec.Source); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}
