//go:build !unix

package git

import "os/exec"

// killGroupOnCancel: exec.CommandContext kills git itself when the
// context ends; other systems have no process groups to kill with it.
func killGroupOnCancel(cmd *exec.Cmd) {}
