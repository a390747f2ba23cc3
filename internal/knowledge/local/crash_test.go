package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/faultinject"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// killedAt runs role in a child process that SIGKILLs itself at point
// (see package faultinject) and checks that it died there.
func killedAt(t *testing.T, point, role string, env map[string]string) {
	t.Helper()
	env[faultinject.EnvVar] = point
	cmd := childCmd(role, env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit interface{ ExitCode() int }
	if !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("the %s child was to die at %s; it ended with %v:\n%s", role, point, err, out.String())
	}
}

// tempsIn lists the temporary files under dir.
func tempsIn(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && atomicfile.IsTemp(d.Name()) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// entriesHolding lists the store entries whose body holds text.
func entriesHolding(t *testing.T, s *State, text string) []string {
	t.Helper()
	all, err := s.Store.Load()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range all {
		if strings.Contains(e.Body, text) {
			paths = append(paths, e.Path)
		}
	}
	return paths
}

// A promotion killed at any point of its write path is completed or undone
// by the next one: the entry ends in the store exactly once, no temporary
// file is ever inside .ai/, and the next start removes the ones the kill
// left.
func TestPromotionKilledAtEveryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	points := []string{
		atomicfile.PointBeforePublish + "#1", // the record
		atomicfile.PointAfterPublish + "#1",
		PointRecorded,
		atomicfile.PointBeforePublish + "#2", // the entry
		atomicfile.PointAfterPublish + "#2",
		PointWritten,
		atomicfile.PointBeforePublish + "#3", // the superseded entry
		PointSuperseded,
	}
	ctx := context.Background()
	for _, point := range points {
		t.Run(point, func(t *testing.T) {
			dir := newRepo(t, map[string]string{withStore: "", ".ai/decisions/old.md": "---\ntitle: Old way\nstatus: accepted\ndate: 2026-01-01\n---\n\nThe old way.\n"})
			s := open(t, dir)
			c, err := s.Capture(ctx, Capture{Kind: "decision", Title: "New way", Body: "The new way, marker-" + point, Supersedes: []string{"old"}})
			if err != nil {
				t.Fatal(err)
			}
			killedAt(t, point, "promoter", map[string]string{"KX_DIR": dir, "KX_ID": c.Entry.ID})
			if temps := tempsIn(t, filepath.Join(dir, ".ai")); len(temps) > 0 {
				t.Errorf("a kill left temporary files inside .ai/: %v", temps)
			}
			// The next start sweeps what the kill left.
			s = open(t, dir)
			if temps := tempsIn(t, filepath.Join(dir, ".git", "kontext")); len(temps) > 0 {
				t.Errorf("the next start left temporary files: %v", temps)
			}
			_, err = s.Promote(ctx, c.Entry.ID)
			var ap *AlreadyPromotedError
			if err != nil && !errors.As(err, &ap) {
				t.Fatalf("promoting again after the kill: %v", err)
			}
			if got := entriesHolding(t, s, "marker-"+point); len(got) != 1 {
				t.Fatalf("the entry is in the store %d times: %v", len(got), got)
			}
			if list, _ := s.List(ctx); len(list) != 0 {
				t.Errorf("the candidate is still in the inbox: %s", list[0].ID)
			}
			old, err := s.Store.Find("old")
			if err != nil || old.Status != store.StatusSuperseded {
				t.Errorf("the superseded entry: %v %+v", err, old)
			}
		})
	}
}

// Two captures of one title; the first one's promotion is killed just
// before its entry is published; the second is promoted and takes the
// name. The first was then hidden (its record named a file that existed)
// and left only in a temporary file. Its record is now checked against
// what the file holds: the first stays a candidate and is promoted under
// the next name.
func TestKilledPromotionIsNotMistakenForAnotherEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	dir := newRepo(t, map[string]string{withStore: ""})
	s := open(t, dir)
	first, err := s.Capture(ctx, Capture{Kind: "learning", Title: "Same title", Body: "The first capture."})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Capture(ctx, Capture{Kind: "learning", Title: "Same title", Body: "The second capture."})
	if err != nil {
		t.Fatal(err)
	}
	killedAt(t, atomicfile.PointBeforePublish+"#2", "promoter", map[string]string{"KX_DIR": dir, "KX_ID": first.Entry.ID})
	s = open(t, dir)
	if _, err := s.Promote(ctx, second.Entry.ID); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != first.Entry.ID {
		t.Fatalf("the first capture is no longer a candidate: %v", list)
	}
	if _, err := s.Promote(ctx, first.Entry.ID); err != nil {
		t.Fatal(err)
	}
	a, b := entriesHolding(t, s, "The first capture."), entriesHolding(t, s, "The second capture.")
	if len(a) != 1 || len(b) != 1 || a[0] == b[0] {
		t.Fatalf("first in %v, second in %v", a, b)
	}
}

// A promotion killed after its entry was written in one worktree, before
// the shared inbox copy was removed: another worktree, where the entry's
// file does not exist, took it for never written and promoted a second
// copy. The record now names the worktree; while that worktree exists,
// the promotion is done. When it is removed (and its entry with it), the
// candidate comes back: nothing is lost.
func TestKilledPromotionIsNotRepeatedInAnotherWorktree(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	dir := newRepo(t, map[string]string{withStore: ""})
	other := filepath.Join(filepath.Dir(dir), "second")
	gitCmd(t, dir, "worktree", "add", "-q", "-b", "second", other)
	s := open(t, dir)
	c, err := s.Capture(ctx, Capture{Kind: "learning", Title: "Orders are idempotent", Body: "Retry freely."})
	if err != nil {
		t.Fatal(err)
	}
	killedAt(t, PointSuperseded, "promoter", map[string]string{"KX_DIR": other, "KX_ID": c.Entry.ID})
	if _, err := os.Stat(filepath.Join(other, ".ai", "learnings", "orders-are-idempotent.md")); err != nil {
		t.Fatalf("the killed promotion did not write its entry: %v", err)
	}
	for _, wt := range []string{dir, other} {
		s := open(t, wt)
		if list, _ := s.List(ctx); len(list) != 0 {
			t.Errorf("%s lists the promoted candidate %s", filepath.Base(wt), list[0].ID)
		}
	}
	if _, err := s.Promote(ctx, c.Entry.ID); !errors.As(err, new(*AlreadyPromotedError)) {
		t.Fatalf("promoting in the first worktree: %v, want AlreadyPromotedError", err)
	}
	if got := entriesHolding(t, s, "Retry freely."); len(got) != 0 {
		t.Fatalf("a second copy in the first worktree: %v", got)
	}

	// The same kill, then the promoting worktree goes away uncommitted.
	c, err = s.Capture(ctx, Capture{Kind: "learning", Title: "Refunds are async", Body: "Poll the refund."})
	if err != nil {
		t.Fatal(err)
	}
	killedAt(t, PointSuperseded, "promoter", map[string]string{"KX_DIR": other, "KX_ID": c.Entry.ID})
	gitCmd(t, dir, "worktree", "remove", "--force", other)
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Both promotions were the removed worktree's: both candidates are back.
	if len(list) != 2 {
		t.Fatalf("the candidates whose worktree is gone did not come back: %d listed", len(list))
	}
	if _, err := s.Promote(ctx, list[0].ID, list[1].ID); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"Retry freely.", "Poll the refund."} {
		if got := entriesHolding(t, s, body); len(got) != 1 {
			t.Fatalf("%q is in the store %d times: %v", body, len(got), got)
		}
	}
}

// A record written by an earlier kontext has no digest: the entry is the
// candidate's when its title and body are.
func TestPromotionRecordWithoutADigest(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, map[string]string{withStore: ""})
	s := open(t, dir)
	c, err := s.Capture(ctx, Capture{Kind: "learning", Title: "Legacy", Body: "Written by an older kontext."})
	if err != nil {
		t.Fatal(err)
	}
	rec := c.Entry.Clone()
	rec.Set(promotedTo, ".ai/learnings/legacy.md")
	rec.Set(promotedAt, "2026-01-01T00:00:00Z")
	if err := atomicfile.Write(filepath.Join(s.PromotedDir(), c.Entry.ID+".md"), store.Marshal(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	// Another entry holds the name: not this promotion.
	os.MkdirAll(filepath.Join(dir, ".ai/learnings"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, ".ai/learnings/legacy.md"), []byte("---\ntitle: Legacy\n---\n\nSomething else.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(ctx); len(list) != 1 {
		t.Fatalf("a record naming another entry hid the candidate: %v", list)
	}
	// The candidate's own entry: done.
	if err := os.WriteFile(filepath.Join(dir, ".ai/learnings/legacy.md"), []byte("---\ntitle: Legacy\n---\n\nWritten by an older kontext.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(ctx); len(list) != 0 {
		t.Fatalf("a record naming the candidate's entry left it listed: %v", list)
	}
}

// The 260th capture of one title flushed 261 files, holding the lock: an
// id was tried by writing it. Ids are now found without writing: each
// capture flushes its file and its directory, whatever came before.
func TestManyCapturesOfOneTitleCostTheSame(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, map[string]string{withStore: ""})
	s := open(t, dir)
	const n = 300
	var last int64
	for i := 1; i <= n; i++ {
		before := atomicfile.Syncs()
		c, err := s.Capture(ctx, Capture{Kind: "learning", Title: "Flaky test", Body: fmt.Sprintf("Capture %d.", i)})
		if err != nil {
			t.Fatal(err)
		}
		last = atomicfile.Syncs() - before
		if want := store.Suffixed(c.Entry.ID[:len("2006-01-02-flaky-test")], i); c.Entry.ID != want {
			t.Fatalf("capture %d got id %s, want %s", i, c.Entry.ID, want)
		}
	}
	if last > 2 {
		t.Errorf("the %dth capture of one title made %d fsyncs, want 2 (its file and its directory)", n, last)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != n {
		t.Fatalf("%d candidates, %v", len(list), err)
	}
}
