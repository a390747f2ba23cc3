// Package atomicfile writes files so that a reader, or the next process
// after a crash, sees either the previous content or the new content and
// never a part of it: the data goes to a temporary file, is flushed to
// disk, and is then renamed (or linked) into place.
//
// The temporary file is made in the target's directory unless the caller
// names another one on the same filesystem (WriteIn, CreateIn): the
// knowledge store's writes keep theirs under .git/kontext/tmp, so a crash
// never leaves one inside .ai/ for `git add .ai` to pick up.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kontext-dev/kontext/internal/faultinject"
)

// TempPrefix starts the name of every temporary file this package creates
// (after a dot, so directory listings that skip dot files skip them too).
const TempPrefix = ".kx-tmp-"

// Crash points (see package faultinject): after the temporary file is
// complete and flushed, before it is published under its name; and after
// it is published, before the temporary name is removed.
const (
	PointBeforePublish = "atomicfile:before-publish"
	PointAfterPublish  = "atomicfile:after-publish"
)

var syncs atomic.Int64

// Syncs counts the fsyncs of files and directories this package made, for
// tests and benchmarks that count the cost of a write.
func Syncs() int64 { return syncs.Load() }

// Write replaces path with data atomically, creating the parent directory.
func Write(path string, data []byte, perm fs.FileMode) error {
	return WriteIn("", path, data, perm)
}

// WriteIn is Write with the temporary file in tmpDir ("" for path's
// directory). When tmpDir is on another filesystem the write falls back to
// path's directory.
func WriteIn(tmpDir, path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := writeTemp(tempDir(tmpDir, path), path, data, perm)
	if err != nil {
		return err
	}
	faultinject.Point(PointBeforePublish)
	err = os.Rename(tmp, path)
	if isCrossDevice(err) && tmpDir != "" {
		os.Remove(tmp)
		return WriteIn("", path, data, perm)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	faultinject.Point(PointAfterPublish)
	syncDir(filepath.Dir(path))
	return nil
}

// Create writes path atomically only if it does not exist yet. It returns
// an error satisfying errors.Is(err, fs.ErrExist) when the name is taken,
// so that two writers choosing the same new name cannot overwrite each
// other: exactly one of them succeeds.
func Create(path string, data []byte, perm fs.FileMode) error {
	return CreateIn("", path, data, perm)
}

// CreateIn is Create with the temporary file in tmpDir ("" for path's
// directory), falling back to path's directory across filesystems.
func CreateIn(tmpDir, path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := writeTemp(tempDir(tmpDir, path), path, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	faultinject.Point(PointBeforePublish)
	// A hard link publishes the complete file under its name, and fails
	// when the name exists: atomic and exclusive at once.
	err = os.Link(tmp, path)
	if err == nil {
		faultinject.Point(PointAfterPublish)
		syncDir(filepath.Dir(path))
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", path, fs.ErrExist)
	}
	if isCrossDevice(err) && tmpDir != "" {
		os.Remove(tmp)
		return CreateIn("", path, data, perm)
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
	faultinject.Point(PointAfterPublish)
	syncDir(filepath.Dir(path))
	return nil
}

func tempDir(tmpDir, path string) string {
	if tmpDir != "" {
		return tmpDir
	}
	return filepath.Dir(path)
}

func isCrossDevice(err error) bool {
	var le *os.LinkError
	return errors.As(err, &le) && errors.Is(le.Err, syscall.EXDEV)
}

func writeTemp(dir, path string, data []byte, perm fs.FileMode) (string, error) {
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
	syncs.Add(1)
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
	syncs.Add(1)
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
