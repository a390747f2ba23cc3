//go:build !unix

package inventory

import "os/exec"

// detach leaves cmd as it is: it outlives the hook all the same.
func detach(*exec.Cmd) {}
