package local

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kontext-dev/kontext/internal/atomicfile"
)

// Synced is which version of each entry file the sync event last
// delivered to each subscriber ("<path> <adapter>.<op>" → version), so
// that the hooks of one change (a commit and its amend, the picks of a
// rebase and the rebase) deliver each version once.
type Synced map[string]string

func (s *State) syncedPath() string { return filepath.Join(s.Dir, "synced.json") }

// LockSynced takes the lock of the synced record, which only the sync
// deliveries take: a delivery that waits on an adapter never holds up
// the writers of the store.
func (s *State) LockSynced(ctx context.Context) (unlock func(), err error) {
	return lockFile(ctx, filepath.Join(s.Dir, "synced.lock"), false)
}

// ReadSynced reads the record (empty when there is none or it is
// unreadable: the worst that follows is one delivery more). Call it under
// LockSynced.
func (s *State) ReadSynced() Synced {
	out := Synced{}
	b, err := os.ReadFile(s.syncedPath())
	if err != nil {
		return out
	}
	_ = json.Unmarshal(b, &out)
	return out
}

// WriteSynced replaces the record. Call it under LockSynced.
func (s *State) WriteSynced(v Synced) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return atomicfile.WriteIn(s.TempDir(), s.syncedPath(), b, 0o600)
}
