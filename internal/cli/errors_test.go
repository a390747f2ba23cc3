package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kontext-dev/kontext/internal/git"
)

// An error reaches the user as one line in kontext's words: git's own
// message instead of its command line, no "Error: " the MCP layer put
// before a tool's text.
func TestErrorLine(t *testing.T) {
	failed := &git.Error{Args: []string{"rev-parse", "--show-toplevel", "--absolute-git-dir"}, Stderr: "fatal: bad config line 1 in file .git/config\nhint: more\n", Err: errors.New("exit status 128")}
	silent := &git.Error{Args: []string{"cat-file", "--batch"}, Err: errors.New("exit status 128")}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("opening /repo: %w", failed), "opening /repo: git: bad config line 1 in file .git/config"},
		{silent, "git: it failed (exit status 128)"},
		{errors.New("Error: Error: the disk is on fire"), "the disk is on fire"},
		{errors.New("first\nsecond"), "first; second"},
		{errors.New("an Error: inside stays"), "an Error: inside stays"},
	} {
		if got := errorLine(tc.err); got != tc.want {
			t.Errorf("errorLine(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
