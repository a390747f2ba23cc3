package repo

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

func symbolsOf(g *model.Graph, p string) []string {
	for i := range g.Files {
		if g.Files[i].Path == p {
			var out []string
			for _, s := range g.Files[i].Symbols {
				out = append(out, s.Name)
			}
			return out
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestFreshness makes every kind of change to a repository between two
// calls and checks that the next call sees it — and equals an analysis
// from scratch — with the watcher, and with the sweep that replaces it
// where watching is impossible.
func TestFreshness(t *testing.T) {
	for _, mode := range []struct {
		name   string
		detect DetectMode
	}{{"watch", DetectAuto}, {"sweep", DetectSweep}} {
		t.Run(mode.name, func(t *testing.T) {
			f := newRepo(t, layeredApp)
			opts := testOptions(t)
			opts.Detect = mode.detect
			opts.SweepInterval = -1
			e := newEngine(t, opts)
			snap := snapshot(t, e, f.dir)
			sameAsScratch(t, snap, opts, "first analysis")
			if again := snapshot(t, e, f.dir); again != snap {
				t.Fatal("a call with nothing changed made a new snapshot")
			}

			step := func(what string, change func(), check func(*Snapshot) string) {
				t.Helper()
				change()
				next := snapshot(t, e, f.dir)
				if next == snap {
					t.Fatalf("%s: the next call returned the previous snapshot", what)
				}
				if msg := check(next); msg != "" {
					t.Fatalf("%s: %s", what, msg)
				}
				sameAsScratch(t, next, opts, what)
				if !next.Incremental {
					t.Fatalf("%s: analysed from scratch, not incrementally", what)
				}
				snap = next
			}

			step("edit a file", func() {
				f.write(map[string]string{"src/domain/order.ts": "export interface Order {\n  id: string;\n  total: number;\n}\n\nexport function orderTotal(o: Order) {\n  return o.total;\n}\n"})
			}, func(s *Snapshot) string {
				if !contains(symbolsOf(s.Graph, "src/domain/order.ts"), "orderTotal") {
					return "the new function is not among the file's symbols"
				}
				return ""
			})
			step("add a file", func() {
				f.write(map[string]string{"src/domain/invoice.ts": "import type { Order } from './order';\n\nexport interface Invoice { order: Order }\n"})
			}, func(s *Snapshot) string {
				if !hasFile(s.Graph, "src/domain/invoice.ts") {
					return "the new file is not listed"
				}
				return ""
			})
			step("delete a file", func() { f.remove("src/services/mail-service.ts") }, func(s *Snapshot) string {
				if hasFile(s.Graph, "src/services/mail-service.ts") {
					return "the deleted file is still listed"
				}
				return ""
			})
			step("rename a file", func() { f.rename("src/infrastructure/cache.ts", "src/infrastructure/memory-cache.ts") }, func(s *Snapshot) string {
				if hasFile(s.Graph, "src/infrastructure/cache.ts") || !hasFile(s.Graph, "src/infrastructure/memory-cache.ts") {
					return "the rename is not reflected"
				}
				return ""
			})
			step("rename a directory", func() {
				f.rename("docs/adr", "docs/decisions")
				f.write(map[string]string{"docs/decisions/0001-use-postgres.md": "# ADR-1: Use SQLite\n\nStatus: accepted\n\n## Decision\n\nWe will use SQLite.\n"})
			}, func(s *Snapshot) string {
				if hasFile(s.Graph, "docs/adr/0001-use-postgres.md") || !hasFile(s.Graph, "docs/decisions/0001-use-postgres.md") {
					return "the directory rename is not reflected"
				}
				for _, d := range s.Graph.Decisions {
					if d.Source == "docs/decisions/0001-use-postgres.md" && strings.Contains(d.Title, "SQLite") {
						return ""
					}
				}
				return "the renamed ADR's new content is not among the decisions"
			})
			step("a new nested directory", func() {
				f.write(map[string]string{
					"src/payments/stripe/client.ts":  "export class StripeClient {}\n",
					"src/payments/stripe/webhook.ts": "import { StripeClient } from './client';\n\nexport const hook = new StripeClient();\n",
					"src/payments/index.ts":          "export * from './stripe/client';\n",
				})
			}, func(s *Snapshot) string {
				if !hasFile(s.Graph, "src/payments/stripe/webhook.ts") {
					return "files of the new directory are not listed"
				}
				return ""
			})
			step("a file in the new directory after it is watched", func() {
				f.write(map[string]string{"src/payments/stripe/refund.ts": "export function refund() {}\n"})
			}, func(s *Snapshot) string {
				if !hasFile(s.Graph, "src/payments/stripe/refund.ts") {
					return "a file added to a new directory is not listed"
				}
				return ""
			})
			step("a .gitignore change hides a directory", func() {
				f.write(map[string]string{".gitignore": "dist/\n*.log\nsrc/payments/\n"})
			}, func(s *Snapshot) string {
				if hasFile(s.Graph, "src/payments/index.ts") {
					return "a newly ignored file is still listed"
				}
				return ""
			})
			step("a .gitignore change shows it again", func() {
				f.write(map[string]string{".gitignore": "dist/\n*.log\n"})
			}, func(s *Snapshot) string {
				if !hasFile(s.Graph, "src/payments/index.ts") {
					return "a no longer ignored file is not listed"
				}
				return ""
			})
			// An ignored file changing is no change at all. (Files written
			// within racyWindow of their reading are re-read by the next
			// call whatever happens; aged, they are trusted.)
			f.age()
			snap = snapshot(t, e, f.dir)
			f.write(map[string]string{"debug.log": "noise\n", "dist/bundle.js": "noise\n"})
			if again := snapshot(t, e, f.dir); again != snap {
				t.Fatalf("writing ignored files made a new snapshot:\n%s", cmp.Diff(snap.Graph, again.Graph))
			}

			head := snap.Graph.Head
			var commit string
			step("a commit", func() { commit = f.commit("Add payments") }, func(s *Snapshot) string {
				if s.Graph.Head != commit || s.Graph.Head == head {
					return "HEAD did not move to the new commit: " + s.Graph.Head
				}
				if s.History == nil || len(s.History.Commits) == 0 || s.History.Commits[0].Subject != "Add payments" {
					return "the history does not start with the new commit"
				}
				return ""
			})
			step("a checkout of another branch", func() {
				f.git("checkout", "-q", "-b", "legacy", head)
			}, func(s *Snapshot) string {
				if s.Graph.Head != head {
					return "HEAD is not the checked-out commit"
				}
				if hasFile(s.Graph, "src/payments/index.ts") {
					return "files of the other branch are still listed"
				}
				if len(s.History.Commits) != 1 {
					return "the history still holds the other branch's commit"
				}
				return ""
			})
			step("a checkout back", func() { f.git("checkout", "-q", "main") }, func(s *Snapshot) string {
				if s.Graph.Head != commit {
					return "HEAD did not come back"
				}
				return ""
			})
			step("git rm --cached of an ignored file", func() {
				f.write(map[string]string{".gitignore": "dist/\n*.log\nREADME.md\n"})
				f.git("rm", "-q", "--cached", "README.md")
			}, func(s *Snapshot) string {
				if hasFile(s.Graph, "README.md") {
					return "an untracked, ignored file is still listed"
				}
				return ""
			})
		})
	}
}

// TestFreshnessWithoutGit: the same outside a work tree, where the listing
// is a walk that honours .gitignore files.
func TestFreshnessWithoutGit(t *testing.T) {
	for _, detect := range []DetectMode{DetectAuto, DetectSweep} {
		f := newTree(t, layeredApp)
		opts := testOptions(t)
		opts.Detect, opts.SweepInterval = detect, -1
		e := newEngine(t, opts)
		snap := snapshot(t, e, f.dir)
		if snap.History != nil || snap.Git != nil {
			t.Fatal("a tree outside git has a history")
		}
		f.write(map[string]string{"src/domain/order.ts": "export interface Order { id: string }\nexport const ZERO = 0;\n", "lib/new/util.ts": "export const x = 1;\n"})
		f.remove("src/domain/customer.ts")
		next := snapshot(t, e, f.dir)
		if next == snap || !hasFile(next.Graph, "lib/new/util.ts") || hasFile(next.Graph, "src/domain/customer.ts") {
			t.Fatalf("detect %d: changes not seen", detect)
		}
		sameAsScratch(t, next, opts, "without git")
		f.write(map[string]string{".gitignore": "dist/\n*.log\nlib/\n"})
		next = snapshot(t, e, f.dir)
		if hasFile(next.Graph, "lib/new/util.ts") {
			t.Fatalf("detect %d: .gitignore change not seen", detect)
		}
		sameAsScratch(t, next, opts, "without git, after .gitignore")
	}
}

// TestSweepIsThrottled: in sweep mode a change is seen once the interval
// has passed, not before (the cost of a sweep is a stat per file).
func TestSweepIsThrottled(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	opts.Detect, opts.SweepInterval = DetectSweep, 300_000_000_000 // five minutes
	e := newEngine(t, opts)
	snap := snapshot(t, e, f.dir)
	f.write(map[string]string{"src/domain/order.ts": "export const changed = true;\n"})
	if again := snapshot(t, e, f.dir); again != snap {
		t.Fatal("a sweep ran before its interval passed")
	}
	if n := e.Stats().Sweeps; n != 0 {
		t.Fatalf("%d sweeps, want none: the analysis itself took every fingerprint", n)
	}
}

// TestSweepSettlesAfterGitChangesNothing: in sweep mode, git's files
// rewritten without moving HEAD (HEAD touched, a ref written just before
// the analysis read it) are checked once, not at every sweep after: each
// check asks git for HEAD.
func TestSweepSettlesAfterGitChangesNothing(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	opts.Detect, opts.SweepInterval = DetectSweep, -1
	e := newEngine(t, opts)
	snap := snapshot(t, e, f.dir)
	rs, _ := e.rootState(f.dir)
	sw := rs.det.(*sweeper)
	settled := func(what string) {
		t.Helper()
		// What the commit just before the analysis left racy settles once
		// its files are older than racyWindow.
		time.Sleep(2 * racyWindow)
		for range 2 {
			if again := snapshot(t, e, f.dir); again != snap {
				t.Fatalf("%s: a new snapshot although nothing changed", what)
			}
		}
		sw.sync(context.Background())
		if sw.pending() {
			t.Fatalf("%s: the sweep still reports %+v at every call", what, sw.take())
		}
	}
	settled("after the first analysis")
	now := time.Now()
	if err := os.Chtimes(f.path(".git/HEAD"), now, now); err != nil {
		t.Fatal(err)
	}
	settled("after HEAD was touched")
	f.commit("moves HEAD")
	if next := snapshot(t, e, f.dir); next == snap || next.Graph.Head == snap.Graph.Head {
		t.Fatal("the sweep missed a commit")
	}
}

// TestEditsDuringAnalysisAreSeen: a file changed while the first analysis
// runs (after its directory is watched, before the call returns) is in the
// next answer.
func TestEditsDuringAnalysisAreSeen(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e := newEngine(t, opts)
	edited := false
	progressHook = func(root, msg string) {
		if root == f.dir && strings.HasPrefix(msg, "reading") && !edited {
			edited = true
			f.write(map[string]string{"src/domain/order.ts": "export const duringAnalysis = 1;\n"})
		}
	}
	defer func() { progressHook = nil }()
	snapshot(t, e, f.dir)
	progressHook = nil
	if !edited {
		t.Fatal("the hook never ran")
	}
	next := snapshot(t, e, f.dir)
	if !contains(symbolsOf(next.Graph, "src/domain/order.ts"), "duringAnalysis") {
		t.Fatal("an edit made during the analysis is not seen by the next call")
	}
	sameAsScratch(t, next, opts, "edit during analysis")
}
