//go:build !race

package rlmctx

const raceEnabled = false
