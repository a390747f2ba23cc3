package bootstrap

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
)

// Cache keeps the history of one worktree under the local state (<git
// common dir>/kontext/worktrees/<worktree>/init/), so that render and
// ctx_init reuse it while HEAD does not move. The scan needs no cache of
// its own: the repo engine keeps its analysis under .git/kontext/repo/.
type Cache struct {
	Dir string
}

func (c Cache) historyPath() string { return filepath.Join(c.Dir, "history.json") }

// LoadHistory returns the cached history when it was read at head.
func (c Cache) LoadHistory(head string) (*History, bool) {
	var h History
	if !readJSON(c.historyPath(), &h) || h.Version != HistoryVersion || h.Head != head {
		return nil, false
	}
	return &h, true
}

// Founded is the date of the first commit an earlier history read, whatever
// its HEAD: a root commit does not change as history grows.
func (c Cache) Founded() string {
	var h struct {
		Founded string `json:"founded"`
	}
	readJSON(c.historyPath(), &h)
	return h.Founded
}

// SaveHistory keeps a history.
func (c Cache) SaveHistory(h *History) error { return writeJSON(c.historyPath(), h) }

func readJSON(p string, into any) bool {
	data, err := fsroot.Read(nil, p, 0)
	return err == nil && json.Unmarshal(data, into) == nil
}

func writeJSON(p string, v any) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(p, append(data, '\n'), 0o644)
}

// Done records the tasks skipped in this clone (<git common dir>/kontext/
// init-done.json, as the original names it). Tasks that were done are known
// from the store itself: a deepened doc, an entry written by the task.
type Done struct {
	path  string
	Tasks map[string]Skip `json:"tasks"`
}

// Skip is a skipped task.
type Skip struct {
	Reason string `json:"reason,omitempty"`
	At     string `json:"at"`
}

// LoadDone reads the skipped tasks of the clone whose state is in dir.
func LoadDone(stateDir string) *Done {
	d := &Done{path: filepath.Join(stateDir, "init-done.json"), Tasks: map[string]Skip{}}
	readJSON(d.path, d)
	if d.Tasks == nil {
		d.Tasks = map[string]Skip{}
	}
	return d
}

// Skip records a task as skipped.
func (d *Done) Skip(task, reason string, now time.Time) error {
	d.Tasks[task] = Skip{Reason: reason, At: now.UTC().Format(time.RFC3339)}
	return writeJSON(d.path, d)
}

// Unskip forgets a skip (the task was submitted after all).
func (d *Done) Unskip(task string) error {
	if _, ok := d.Tasks[task]; !ok {
		return nil
	}
	delete(d.Tasks, task)
	return writeJSON(d.path, d)
}

// StoreElsewhere returns the branch the team's knowledge lives on when
// this work tree has none of it: no store, or only the empty kind folders
// a checkout leaves behind. "" means the store is here, or nowhere.
func (p *Pipeline) StoreElsewhere(ctx context.Context) (string, error) {
	if p.Store.Exists() && !p.Store.Empty() {
		return "", nil
	}
	return BranchWithStore(ctx, p.Git, p.Store.Dir())
}

// BranchWithStore returns another branch (local or remote-tracking) whose
// tree has the store directory, or "" when none has: a repository whose
// knowledge lives on another branch is never bootstrapped a second time.
func BranchWithStore(ctx context.Context, repo *git.Repo, storeDir string) (string, error) {
	out, err := repo.Run(ctx, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes")
	if err != nil {
		return "", err
	}
	current := repo.Branch(ctx)
	refs := strings.Fields(string(out))
	// The usual homes of shared work first.
	rank := func(r string) int {
		for i, name := range []string{"main", "master", "origin/main", "origin/master", "develop", "origin/develop"} {
			if r == name {
				return i
			}
		}
		return 100
	}
	sort.SliceStable(refs, func(i, j int) bool { return rank(refs[i]) < rank(refs[j]) })
	for _, r := range refs {
		if r == current || strings.HasSuffix(r, "/HEAD") {
			continue
		}
		kind, _, ok, err := repo.Object(ctx, r+":"+storeDir)
		if err != nil {
			return "", err
		}
		if ok && kind == "tree" {
			return r, nil
		}
	}
	return "", nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}
