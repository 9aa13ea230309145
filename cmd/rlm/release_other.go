//go:build !linux

package main

// releaseImage does nothing outside Linux.
func releaseImage() {}
