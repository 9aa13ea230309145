package blobstest

import "syscall"

// procAttr makes the gateway die with the test process.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
