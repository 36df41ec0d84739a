//go:build !unix

package upstream

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup does nothing where there are no process groups.
func ownGroup(*exec.Cmd) {}

// signalGroup kills p alone where there are no process groups.
func signalGroup(p *os.Process, _ syscall.Signal) { _ = p.Kill() }
