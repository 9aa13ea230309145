//go:build race

package server

// raceEnabled is true under -race, which makes moving large values slow.
const raceEnabled = true
