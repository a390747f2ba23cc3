//go:build unix

package inventory

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, so that it outlives the hook
// and a terminal's signals to the hook's process group do not reach it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
