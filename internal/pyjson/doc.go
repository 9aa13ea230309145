// Package pyjson holds the value model shared by context variables and the
// Python sandbox, and its one JSON codec: an insertion-ordered [Dict] and an
// encoder and decoder that behave as Python's json module does (dict order
// kept, big integers exact, NaN and Infinity accepted, floats that decode
// back as floats). It is a leaf: it imports only the standard library.
package pyjson
