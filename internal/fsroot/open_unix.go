//go:build unix

package fsroot

import (
	"os"
	"syscall"
)

// openFlags open for reading without waiting for a FIFO's writer and
// without making a terminal the process's controlling one.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
