//go:build race

package main

// raceEnabled is true under -race, whose runtime cannot start under an
// address-space limit (ulimit -v).
const raceEnabled = true
