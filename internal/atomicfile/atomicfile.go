// Package atomicfile writes files so that a reader, or the next process
// after a crash, sees either the previous content or the new content and
// never a part of it: the data goes to a temporary file in the same
// directory, is flushed to disk, and is then renamed (or linked) into place.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TempPrefix starts the name of every temporary file this package creates
// (after a dot, so directory listings that skip dot files skip them too).
const TempPrefix = ".kx-tmp-"

// Write replaces path with data atomically, creating the parent directory.
func Write(path string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// Create writes path atomically only if it does not exist yet. It returns
// an error satisfying errors.Is(err, fs.ErrExist) when the name is taken,
// so that two writers choosing the same new name cannot overwrite each
// other: exactly one of them succeeds.
func Create(path string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	// A hard link publishes the complete file under its name, and fails
	// when the name exists: atomic and exclusive at once.
	err = os.Link(tmp, path)
	if err == nil {
		syncDir(filepath.Dir(path))
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", path, fs.ErrExist)
	}
	// Filesystems without hard links: reserve the name, then rename the
	// complete file over the reservation.
	f, oerr := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if oerr != nil {
		if errors.Is(oerr, fs.ErrExist) {
			return fmt.Errorf("%s: %w", path, fs.ErrExist)
		}
		return oerr
	}
	f.Close()
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(path)
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

func writeTemp(path string, data []byte, perm fs.FileMode) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// syncDir makes a rename durable. Errors are ignored: some platforms cannot
// sync a directory, and the rename itself already happened.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}

// RemoveStaleTemps deletes temporary files in dir left behind by a process
// that died while writing, when they are older than age. It returns how many
// it removed.
func RemoveStaleTemps(dir string, age time.Duration) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), TempPrefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < age {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}

// IsTemp reports whether a file name is one of this package's temporary files.
func IsTemp(name string) bool { return strings.HasPrefix(filepath.Base(name), TempPrefix) }
