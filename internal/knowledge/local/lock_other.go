//go:build !unix || solaris || aix

package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"
)

// staleLock is how old a lock file may grow before it is taken to belong
// to a process that died holding it.
const staleLock = 2 * time.Minute

// acquire creates path+".held" exclusively (no flock on this platform),
// taking over a lock file older than staleLock.
func acquire(ctx context.Context, path string, try bool) (func(), error) {
	held := path + ".held"
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(held, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(held) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if info, err := os.Stat(held); err == nil && time.Since(info.ModTime()) > staleLock {
			os.Remove(held)
			continue
		}
		if try {
			return nil, errBusy
		}
		if err := wait(ctx, attempt); err != nil {
			return nil, err
		}
	}
}
