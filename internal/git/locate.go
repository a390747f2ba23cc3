package git

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kontext-dev/kontext/internal/fsroot"
)

// Location is where the repository of a work tree lives, as its .git
// (a directory, or a file naming one) and the commondir file say; paths
// are absolute with symlinks resolved.
type Location struct {
	WorkTree, GitDir, CommonDir string
}

// maxGitFile bounds the read of a .git or commondir file: one line.
const maxGitFile = 64 << 10

// LocateBelow finds the .git of dir or of its parents, stopping before
// stop (an ancestor of dir, itself not examined), without running git: a
// repository's configuration is not read before kontext knows which
// repository it is. found is false when no .git lies between them.
func LocateBelow(dir, stop string) (loc Location, found bool, err error) {
	dir, stop = filepath.Clean(dir), filepath.Clean(stop)
	for d := dir; d != stop && strings.HasPrefix(d, stop+string(filepath.Separator)); d = filepath.Dir(d) {
		dotGit := filepath.Join(d, ".git")
		info, err := os.Stat(dotGit)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Location{}, false, err
		}
		gitDir := dotGit
		if !info.IsDir() {
			if gitDir, err = readGitFile(d, dotGit); err != nil {
				return Location{}, false, err
			}
		}
		if gitDir, err = filepath.EvalSymlinks(gitDir); err != nil {
			return Location{}, false, err
		}
		common := gitDir
		if data, err := fsroot.Read(nil, filepath.Join(gitDir, "commondir"), maxGitFile); err == nil {
			if c := strings.TrimSpace(string(data)); c != "" {
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitDir, c)
				}
				if common, err = filepath.EvalSymlinks(c); err != nil {
					return Location{}, false, err
				}
			}
		}
		return Location{WorkTree: d, GitDir: gitDir, CommonDir: common}, true, nil
	}
	return Location{}, false, nil
}

// readGitFile reads a "gitdir: <path>" file (a linked worktree, a
// submodule); a relative path is relative to the file's directory.
func readGitFile(dir, file string) (string, error) {
	data, err := fsroot.Read(nil, file, maxGitFile)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	p, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if p = strings.TrimSpace(p); !ok || p == "" {
		return "", errors.New(file + " is not a gitdir file")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}
