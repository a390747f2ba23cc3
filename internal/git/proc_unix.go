//go:build unix

package git

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel runs git in a process group of its own and kills the
// whole group when the command's context ends: git's children (filters,
// hooks, a credential helper) stop with it instead of outliving a
// cancelled request.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}
