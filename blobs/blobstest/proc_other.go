//go:build !linux

package blobstest

import "syscall"

// procAttr: without Pdeathsig, Main stops the gateway.
func procAttr() *syscall.SysProcAttr { return nil }
