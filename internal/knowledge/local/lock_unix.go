//go:build unix && !solaris && !aix

package local

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// acquire takes an flock on path. The kernel drops it when the process
// dies, so a killed kontext never leaves the lock held.
func acquire(ctx context.Context, path string, try bool) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		if try && errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, errBusy
		}
		if err := wait(ctx, attempt); err != nil {
			f.Close()
			return nil, err
		}
	}
}
