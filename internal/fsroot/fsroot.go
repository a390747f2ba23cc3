// Package fsroot is the one place that decides whether a path is inside the
// repository root. Every tool resolves paths through it, so "..", absolute
// paths elsewhere and symlinks that lead out of the root are refused the same
// way everywhere.
package fsroot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Root is a directory that tools may read and write under.
type Root struct {
	dir string // absolute, symlinks resolved
	os  *os.Root
}

// Choice says where the root came from.
type Choice struct {
	Dir    string
	Source string // "--root", "KONTEXT_ROOT", "AGENT_CONTEXT_ROOT" or "working directory"
}

// Choose picks the root: the flag, else KONTEXT_ROOT, else
// AGENT_CONTEXT_ROOT, else the working directory.
func Choose(flag string, getenv func(string) string) (Choice, error) {
	switch {
	case flag != "":
		return Choice{flag, "--root"}, nil
	case getenv("KONTEXT_ROOT") != "":
		return Choice{getenv("KONTEXT_ROOT"), "KONTEXT_ROOT"}, nil
	case getenv("AGENT_CONTEXT_ROOT") != "":
		return Choice{getenv("AGENT_CONTEXT_ROOT"), "AGENT_CONTEXT_ROOT"}, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return Choice{}, err
	}
	return Choice{wd, "working directory"}, nil
}

// Open returns the root at dir, which must be an existing directory.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", dir, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("root %s is not a directory", dir)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	return &Root{dir: real, os: r}, nil
}

// Dir returns the root's absolute path.
func (r *Root) Dir() string { return r.dir }

// Contains reports whether the absolute path p lies inside the root (or is
// the root), lexically: p should have its symlinks resolved.
func (r *Root) Contains(p string) bool { return within(r.dir, filepath.Clean(p)) }

// OS is the os.Root the guard reads through, for code that reads many files
// and does its own walking (the repository scan).
func (r *Root) OS() *os.Root { return r.os }

// Close releases the root's directory handle. A root that lives as long as
// the process need not be closed; one opened per operation must be.
func (r *Root) Close() error { return r.os.Close() }

// OutsideError is the refusal of a path outside the root.
type OutsideError struct {
	Path   string
	Reason string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%s is outside the repository root (%s); use a path inside it", e.Path, e.Reason)
}

// Path resolves p (relative to the root, or absolute) to an absolute path
// inside the root. It refuses paths that leave the root lexically ("..") or
// through a symlink; p need not exist (its existing part is checked).
//
// The work is linear in the length of p: one walk over its components,
// one lstat each until the first that does not exist (a path of 32,000
// components costs what its existing prefix costs, not 32,000 walks).
func (r *Root) Path(p string) (string, error) {
	if p == "" {
		return r.dir, nil
	}
	if strings.ContainsRune(p, 0) {
		return "", &OutsideError{p, "it contains a NUL byte"}
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(r.dir, p)
	}
	abs = filepath.Clean(abs)
	if !within(r.dir, abs) {
		return "", &OutsideError{p, "it leads out of " + r.dir}
	}
	// The root itself is free of symlinks: only what follows it is walked.
	rest := strings.TrimPrefix(strings.TrimPrefix(abs, r.dir), string(filepath.Separator))
	real, err := resolve(r.dir, rest)
	if err != nil {
		return "", err
	}
	if !within(r.dir, real) {
		return "", &OutsideError{p, "a symlink leads out of " + r.dir}
	}
	return real, nil
}

// maxLinks is how many symlinks one resolution follows, as the kernel's
// own bound (ELOOP) does.
const maxLinks = 255

// lstat is os.Lstat; tests count the calls through it.
var lstat = os.Lstat

// resolve follows the symlinks of rest (a clean, relative path) below base
// (an absolute path free of symlinks), component by component, and returns
// the real path: what filepath.EvalSymlinks returns, except that a
// missing component ends the walk and the rest is kept as written.
func resolve(base, rest string) (string, error) {
	const sep = string(filepath.Separator)
	buf := make([]byte, 0, len(base)+len(rest)+1)
	buf = append(buf, base...)
	volume := len(filepath.VolumeName(base)) + 1 // the shortest buf: the volume's root
	links := 0
	for rest != "" {
		var comp string
		comp, rest, _ = strings.Cut(rest, sep)
		switch comp {
		case "", ".":
			continue
		case "..":
			// buf is real, so its lexical parent is its parent.
			if i := strings.LastIndex(string(buf[volume-1:]), sep); i > 0 {
				buf = buf[:volume-1+i]
			} else {
				buf = buf[:volume]
			}
			continue
		}
		n := len(buf)
		if n > volume || buf[n-1] != filepath.Separator {
			buf = append(buf, filepath.Separator)
		}
		buf = append(buf, comp...)
		cur := string(buf)
		info, err := lstat(cur)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// Nothing below a missing component exists either.
				return filepath.Join(cur, rest), nil
			}
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: cur, Err: errors.New("too many levels of symbolic links")}
		}
		target, err := os.Readlink(cur)
		if err != nil {
			return "", err
		}
		buf = buf[:n]
		if filepath.IsAbs(target) {
			vol := filepath.VolumeName(target)
			buf = append(buf[:0], vol...)
			buf = append(buf, filepath.Separator)
			volume = len(vol) + 1
			target = strings.TrimLeft(target[len(vol):], sep)
		}
		if rest != "" {
			target += sep + rest
		}
		rest = target
	}
	return string(buf), nil
}

// Rel returns p relative to the root, with slashes.
func (r *Root) Rel(p string) (string, error) {
	abs, err := r.Path(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(r.dir, abs)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// ReadFile reads a regular file under the root, at most MaxFileBytes of
// it (see Read); the read itself cannot follow a symlink out of the root
// (os.Root).
func (r *Root) ReadFile(p string) ([]byte, error) {
	return r.ReadFileLimit(p, MaxFileBytes)
}

// ReadFileLimit is ReadFile with a smaller bound, for readers that need
// only the start of what a file may hold.
func (r *Root) ReadFileLimit(p string, limit int64) ([]byte, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	return Read(r.os, filepath.FromSlash(rel), limit)
}

// WriteFile writes a file under the root atomically: a temporary file in the
// same directory, then a rename, so a reader sees the old or the new content.
func (r *Root) WriteFile(p string, data []byte) error {
	abs, err := r.Path(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	// The directory now exists: check again that it resolves inside.
	if _, err := r.Path(p); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), abs)
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}
