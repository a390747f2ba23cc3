// Package local keeps kontext's per-clone state under
// <git common dir>/kontext/: never committed, shared by every worktree of
// the clone. It holds the lock that serialises writers, and the inbox of
// captured knowledge waiting to be promoted into the team's store (or
// staying there, when private).
package local

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// State is the local state seen from one worktree.
type State struct {
	Repo *git.Repo
	// Dir is <git common dir>/kontext.
	Dir string
	// Worktree is this worktree's key, recorded on what it captures.
	Worktree string
	// Branch is the branch checked out here ("" when detached).
	Branch string
	Config *config.Config
	// Store is this worktree's knowledge store.
	Store *store.Store
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Open returns the local state of the worktree repo is in.
func Open(ctx context.Context, repo *git.Repo, cfg *config.Config) (*State, error) {
	if cfg == nil {
		cfg = config.Defaults()
	}
	root, err := fsroot.Open(repo.Dir)
	if err != nil {
		return nil, err
	}
	s := &State{
		Repo:     repo,
		Dir:      filepath.Join(repo.CommonDir, "kontext"),
		Worktree: WorktreeKey(repo.Dir),
		Branch:   repo.Branch(ctx),
		Config:   cfg,
		Store:    store.New(root, cfg),
	}
	s.Store.TempDir = s.TempDir()
	s.SweepTemps()
	return s, nil
}

// TempDir holds the temporary files of every write of the inbox and the
// store, outside the store, so that `git add .ai` never picks one up.
func (s *State) TempDir() string { return filepath.Join(s.Dir, "tmp") }

// WorktreeKey names a worktree by its directory: "<dir-slug>-<hash8>", as
// the original does, so candidates captured by either tool are recognised.
func WorktreeKey(root string) string {
	return fmt.Sprintf("%s-%s", store.Slugify(filepath.Base(root), 32), config.ShortHash(root)[:8])
}

func (s *State) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// InboxDir is where candidates wait.
func (s *State) InboxDir() string { return filepath.Join(s.Dir, "inbox") }

// PromotedDir keeps promoted candidates until their entry is committed.
func (s *State) PromotedDir() string { return filepath.Join(s.Dir, "inbox", ".promoted") }
