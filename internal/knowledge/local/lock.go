package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// semaphores serialise goroutines of this process before they contend for
// the file lock, so waiting in-process costs no file descriptors or polls.
var (
	semMu      sync.Mutex
	semaphores = map[string]chan struct{}{}
)

func semaphore(path string) chan struct{} {
	semMu.Lock()
	defer semMu.Unlock()
	ch, ok := semaphores[path]
	if !ok {
		ch = make(chan struct{}, 1)
		semaphores[path] = ch
	}
	return ch
}

// Lock takes the lock that serialises every writer of this clone's local
// state and knowledge store: other goroutines, other kontext processes,
// other worktrees. It waits until the lock is free or ctx is done; the
// returned function releases it.
func (s *State) Lock(ctx context.Context) (unlock func(), err error) {
	return lockFile(ctx, filepath.Join(s.Dir, "lock"), false)
}

// errBusy is a lock another holder has, for a caller that does not wait.
var errBusy = errors.New("the lock is held")

// lockFile takes the lock at path, waiting for it unless try is set (then
// a held lock is errBusy at once).
func lockFile(ctx context.Context, path string, try bool) (func(), error) {
	sem := semaphore(path)
	if try {
		select {
		case sem <- struct{}{}:
		default:
			return nil, errBusy
		}
	} else {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		<-sem
		return nil, err
	}
	release, err := acquire(ctx, path, try)
	if err != nil {
		<-sem
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			release()
			<-sem
		})
	}, nil
}

// wait sleeps before the next attempt, growing the pause up to 50ms.
func wait(ctx context.Context, attempt int) error {
	d := time.Millisecond << min(attempt, 6)
	if d > 50*time.Millisecond {
		d = 50 * time.Millisecond
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
