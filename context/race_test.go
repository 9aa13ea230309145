//go:build race

package rlmctx

// raceEnabled is true under -race, where per-byte loops are ~10x slower.
const raceEnabled = true
