package local

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kontext-dev/kontext/internal/atomicfile"
)

// SweepTemps deletes the temporary files a killed writer left behind: in
// the temporary directory, the inbox, and the store's directories (where
// kontext before this version, or a write across filesystems, put them).
// Every writer of those holds the clone's lock while its temporary file
// exists, so with the lock held every one found is dead; when another
// process holds the lock, the sweep is left to the next start. It returns
// how many files it removed.
func (s *State) SweepTemps() int {
	if _, err := os.Stat(s.Dir); err != nil {
		return 0 // nothing was ever written here
	}
	unlock, ok := s.tryLock()
	if !ok {
		return 0
	}
	defer unlock()
	n := removeTemps(s.TempDir(), false) + removeTemps(s.InboxDir(), false) + removeTemps(s.PromotedDir(), false)
	if s.Store != nil {
		for _, d := range s.storeDirs() {
			n += removeTemps(d, true)
		}
	}
	return n
}

// storeDirs are the directories entries are written in, absolute.
func (s *State) storeDirs() []string {
	dirs := []string{s.Store.Dir()}
	for _, k := range s.Config.Kinds() {
		dirs = append(dirs, k.Path)
	}
	var out []string
	for _, d := range dirs {
		if abs, err := s.Store.Path(d); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

func removeTemps(dir string, recursive bool) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != dir && (!recursive || strings.HasPrefix(d.Name(), ".git")) {
				return filepath.SkipDir
			}
			return nil
		}
		if atomicfile.IsTemp(d.Name()) && d.Type().IsRegular() && os.Remove(p) == nil {
			n++
		}
		return nil
	})
	return n
}

// tryLock takes the clone's lock only if it is free at once.
func (s *State) tryLock() (func(), bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	unlock, err := lockFile(ctx, filepath.Join(s.Dir, "lock"), true)
	return unlock, err == nil
}
