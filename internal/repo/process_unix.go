//go:build unix

package repo

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process exists (signal 0 sends nothing).
func processAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
