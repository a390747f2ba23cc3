package repo

import (
	"io/fs"
	"sort"
	"time"
)

// fingerprint is what says whether a file changed since it was read
// without reading it: git's "stat data" idea (size, times, inode, mode).
type fingerprint struct {
	Size  int64
	Mtime int64 // nanoseconds
	Ctime int64 // nanoseconds; 0 where the platform has none
	Ino   uint64
	Mode  uint32
	// Racy is set when the file was modified so shortly before it was
	// read that a later write could leave the same times behind (file
	// times come from a coarse clock): such a file is re-read rather than
	// trusted.
	Racy bool
}

// racyWindow is how close to the read a modification must be to make the
// fingerprint untrustworthy: well above Linux's timestamp granularity
// (a scheduler tick); filesystems with whole-second times get two seconds.
const racyWindow = 50 * time.Millisecond

func fingerprintOf(info fs.FileInfo, now time.Time) fingerprint {
	fp := statFingerprint(info)
	fp.Size = info.Size()
	fp.Mode = uint32(info.Mode())
	mt := info.ModTime()
	fp.Mtime = mt.UnixNano()
	window := racyWindow
	if mt.Nanosecond() == 0 {
		window = 2 * time.Second
	}
	fp.Racy = now.Sub(mt) < window
	return fp
}

// same reports whether a file still looks as it did (a racy fingerprint
// never does).
func (fp fingerprint) same(now fingerprint) bool {
	return !fp.Racy && fp.Size == now.Size && fp.Mtime == now.Mtime && fp.Ctime == now.Ctime &&
		fp.Ino == now.Ino && fp.Mode == now.Mode
}

// fileIndex finds a path in a graph's files (sorted by path).
func fileIndex(paths func(i int) string, n int, p string) (int, bool) {
	i := sort.Search(n, func(i int) bool { return paths(i) >= p })
	return i, i < n && paths(i) == p
}
