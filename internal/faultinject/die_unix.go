//go:build unix

package faultinject

import (
	"os"
	"syscall"
)

// die kills the process as the kernel would an OOM or kill -9 victim.
func die() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
