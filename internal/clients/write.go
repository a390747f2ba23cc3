package clients

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/fsroot"
)

// WriteFile merges the kontext entry into the configuration file at path
// and reports whether the file changed. The file is read, merged and
// replaced in one rename, so a reader never sees half a file and a failed
// merge leaves it exactly as it was. A missing file is created; a symbolic
// link is followed, so a file kept in a dotfiles repository stays there.
// Another client's file is refused (CheckTarget).
func (c Client) WriteFile(path string, s Spec) (changed bool, err error) {
	if !c.Writable() {
		return false, c.notWritable()
	}
	if err := c.CheckTarget(path); err != nil {
		return false, err
	}
	target, err := resolveLink(path)
	if err != nil {
		return false, err
	}
	perm := fs.FileMode(0o644)
	existing, err := fsroot.Read(nil, target, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		existing = nil
	case err != nil:
		return false, err
	default:
		if info, err := os.Stat(target); err == nil {
			perm = info.Mode().Perm()
		}
	}
	merged, err := c.Merge(existing, s)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if existing != nil && bytes.Equal(merged, existing) {
		return false, nil
	}
	if err := atomicfile.Write(target, merged, perm); err != nil {
		return false, err
	}
	return true, nil
}

func resolveLink(path string) (string, error) {
	info, err := os.Lstat(path)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s is a symbolic link kontext cannot follow: %w", path, err)
	}
	return target, nil
}
