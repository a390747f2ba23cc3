package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"sort"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/adapters"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// The sync event (the original's adapter model): after a commit, a merge
// or a rewrite changed the knowledge at HEAD, the adapters that subscribe
// to sync get each entry as committed. The hook only finds out whether
// there is anything to deliver; the delivery runs in a process of its own
// (Options.StartSync), so that no adapter delays a commit.

// SyncLog is where the background deliveries of the sync event say what
// happened.
func SyncLog(repo *git.Repo) string {
	return filepath.Join(repo.CommonDir, "kontext", "sync.log")
}

// syncBase is the commit the knowledge at HEAD is compared with: the
// commit's first parent ("") after a commit, the HEAD before the merge or
// the rebase (ORIG_HEAD), the commit an amend replaced (HEAD@{1}: git
// gives the rewritten commits on stdin, which the team's own hook after
// kontext's block must still be able to read). A squash merge moves no
// HEAD, so it has nothing to sync.
func syncBase(ctx context.Context, repo *git.Repo, hook string, args []string) (string, bool) {
	rev := ""
	switch hook {
	case "post-commit":
		return "", true
	case "post-merge":
		if len(args) > 0 && args[0] == "1" {
			return "", false
		}
		rev = "ORIG_HEAD"
	case "post-rewrite":
		rev = "ORIG_HEAD"
		if len(args) > 0 && args[0] == "amend" {
			rev = "HEAD@{1}"
		}
	default:
		return "", false
	}
	sha, err := repo.ResolveCommit(ctx, rev)
	if err != nil {
		return "", false
	}
	return sha, true
}

// Committed is an entry as a commit holds it.
type Committed struct {
	Entry *store.Entry
	// Version tells this content of the entry's file from any other
	// (the SHA-256 of the file).
	Version string
}

// CommittedEntries lists the knowledge entries that rev adds or changes
// relative to base (rev's first parent when base is ""), parsed as rev
// holds them, ordered by path.
func CommittedEntries(ctx context.Context, repo *git.Repo, st *store.Store, base, rev string) ([]Committed, error) {
	paths, err := changedEntries(ctx, repo, st, base, rev)
	if err != nil {
		return nil, err
	}
	var out []Committed
	for _, p := range paths {
		data, ok, err := repo.FileAt(ctx, rev, p)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		kind, _ := st.KindOf(p)
		sum := sha256.Sum256(data)
		out = append(out, Committed{Entry: store.Parse(p, data, kind), Version: hex.EncodeToString(sum[:])})
	}
	return out, nil
}

// changedEntries lists, sorted, the paths of the entries that rev adds or
// changes relative to base: what the hook asks before it starts a
// delivery, without reading them.
func changedEntries(ctx context.Context, repo *git.Repo, st *store.Store, base, rev string) ([]string, error) {
	changes, err := repo.DiffTree(ctx, base, rev)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range changes {
		if c.Status != 'D' && st.IsEntryPath(c.Path) {
			out = append(out, c.Path)
		}
	}
	sort.Strings(out)
	return out, nil
}

// subscribesToSync reports whether an enabled adapter of cfg subscribes
// to the sync event. An invalid adapter table counts for nothing here;
// kontext status and kontext adapters list name it.
func subscribesToSync(cfg *config.Config) bool {
	if len(cfg.Adapters) == 0 {
		return false
	}
	defs, _ := adapters.FromConfig(cfg)
	for _, d := range defs {
		if !d.Enabled {
			continue
		}
		for _, s := range d.On {
			if s.Event == adapters.EventSync {
				return true
			}
		}
	}
	return false
}

// startSync starts the delivery of the sync event when the hook changed
// the knowledge at HEAD and an adapter subscribes to it.
func (r *runner) startSync(ctx context.Context, hook string, args []string) {
	if r.opts.StartSync == nil {
		return
	}
	if !r.load(ctx) || !subscribesToSync(r.cfg) {
		return
	}
	head, err := r.repo.Head(ctx)
	if err != nil {
		return
	}
	base, ok := syncBase(ctx, r.repo, hook, args)
	if !ok || base == head {
		return
	}
	paths, err := changedEntries(ctx, r.repo, r.st, base, head)
	if err != nil || len(paths) == 0 {
		return
	}
	if err := r.opts.StartSync(base, head, SyncLog(r.repo)); err != nil {
		r.warn("the sync event was not delivered to the adapters: %v", err)
	}
}
