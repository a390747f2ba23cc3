package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/glob"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/adapters"
	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// largeChange is the size past which a change with no knowledge in it gets
// a nudge to capture what it embodies.
const largeChange = 12

func (h *Handlers) CtxPrepareCommit(ctx context.Context, in *spec.CtxPrepareCommitInput) (*mcp.ToolResult, error) {
	v := knowledge.VoiceOf(ctx)
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	var written []string
	var promoted []*store.Entry

	if len(in.Promote) > 0 {
		done, err := o.State.Promote(ctx, in.Promote...)
		for _, p := range done {
			fmt.Fprintf(&b, "Promoted inbox:%s → kx:%s (%s)\n", p.ID, p.Entry.ID, p.Entry.Path)
			written = append(written, p.Written...)
			promoted = append(promoted, p.Entry)
		}
		if err != nil {
			fmt.Fprintf(&b, "Not promoted: %v\n", failure(err, v))
		}
		h.deliver(ctx, o, adapters.EventPromote, promoted...)
	}
	if len(in.Drop) > 0 {
		dropped, err := o.State.Drop(ctx, in.Drop...)
		if len(dropped) > 0 {
			fmt.Fprintf(&b, "Dropped %s\n", strings.Join(dropped, ", "))
		}
		if err != nil {
			fmt.Fprintf(&b, "Not dropped: %v\n", failure(err, v))
		}
	}
	// Knowledge already written into the working tree — promoted by
	// ctx_inbox or ctx_capture with promote, submitted by the bootstrap's
	// tasks, edited — is staged with the change, as those replies say.
	pending, err := pendingKnowledge(ctx, o)
	if err != nil {
		return nil, err
	}
	written = append(written, pending...)
	entries, _ := o.Entries()
	if len(written) > 0 && o.Config.Store.IndexFile {
		// Under the clone's lock, as every writer of the store: a
		// read-modify-write of the README, whose temporary file another
		// process's start would otherwise take for a killed writer's.
		if unlock, err := o.State.Lock(ctx); err == nil {
			if changed, err := o.Store.WriteIndex(entries); err == nil && changed {
				written = append(written, o.Store.Dir()+"/README.md")
			}
			unlock()
		}
	}
	if len(written) > 0 {
		// Exactly what this call wrote: never the user's other changes.
		if err := o.Git.Add(ctx, dedupe(written)...); err != nil {
			return nil, fmt.Errorf("staging the knowledge files: %w", err)
		}
		fmt.Fprintf(&b, "Staged %s\n", strings.Join(dedupe(written), ", "))
	}
	if len(in.Promote)+len(in.Drop) > 0 {
		h.changed()
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}

	changed, untracked, staged, err := changedPaths(ctx, o.Git)
	if err != nil {
		return nil, err
	}
	b.WriteString("## The change\n")
	if len(changed) == 0 {
		b.WriteString("Nothing is staged or modified.\n")
	} else {
		stat := []string{"diff", "--stat=100"}
		if staged {
			stat = []string{"diff", "--cached", "--stat=100"}
		} else {
			b.WriteString("Nothing is staged; the working tree's changes:\n")
		}
		out, _ := o.Git.Run(ctx, stat...)
		b.WriteString(clip(strings.TrimRight(string(out), "\n"), 3000, "git diff --stat") + "\n")
		if !staged {
			for _, p := range changed {
				if untracked[p] {
					b.WriteString(" " + p + " (untracked)\n")
				}
			}
		}
	}

	b.WriteString("\n## Decisions covering the changed paths\n")
	covered := coveringAll(entries, changed)
	if len(covered) == 0 {
		b.WriteString("None of the store's decisions names these paths.\n")
	}
	for _, e := range covered {
		fmt.Fprintf(&b, "- %s\n", entryLine(e))
		if d := e.Section("Decision"); d != "" {
			fmt.Fprintf(&b, "  > %s\n", knowledge.OneParagraph(d, 400))
		}
	}

	cands, _ := o.State.List(ctx)
	b.WriteString("\n## Inbox\n")
	b.WriteString(candidatesFor(cands, changed, v))

	b.WriteString("\n## Checks\n")
	b.WriteString(checkStaged(ctx, o, entries, changed, staged))

	if len(promoted) > 0 {
		b.WriteString("\n## Trailers\nAdd to the commit message (the kontext hooks add them when installed):\n")
		for _, e := range promoted {
			if t := store.Trailer(e.Kind); t != "" {
				fmt.Fprintf(&b, "%s: %s\n", t, e.ID)
			}
		}
	}
	knowledgeInChange := len(promoted) > 0
	for _, p := range changed {
		if o.Store.IsEntryPath(p) {
			knowledgeInChange = true
		}
	}
	if len(changed) >= largeChange && !knowledgeInChange {
		fmt.Fprintf(&b, "\nThis change touches %d files and carries no knowledge. If it embodies a decision, a convention or a lesson, capture it (%s) and promote it here.\n", len(changed), v.Tool("ctx_capture"))
	}
	return mcp.TextResult(strings.TrimRight(b.String(), "\n")), nil
}

// pendingKnowledge lists the knowledge files whose working-tree state is
// not staged: entries added, changed or deleted (in every directory that
// holds entries), and the store's index README; its configuration and
// .gitattributes only while untracked (the bootstrap wrote them; an edit
// to the team's configuration is the user's to stage).
func pendingKnowledge(ctx context.Context, o *knowledge.Opened) ([]string, error) {
	if !o.Store.Exists() {
		return nil, nil
	}
	args := append([]string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--"}, o.StoreDirs()...)
	out, err := o.Git.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	storeFiles := map[string]bool{}
	for _, name := range []string{"README.md", "kontext.toml", ".gitattributes"} {
		storeFiles[o.Store.Dir()+"/"+name] = true
	}
	var paths []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) < 4 {
			continue
		}
		worktree, p := rec[1], rec[3:]
		untracked := rec[:2] == "??"
		if worktree == ' ' && !untracked {
			continue // staged as it is
		}
		switch {
		case o.Store.IsEntryPath(p), p == o.Store.Dir()+"/README.md":
		case storeFiles[p] && untracked:
		default:
			continue
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// changedPaths are the staged paths, or, with nothing staged, the working
// tree's changed and untracked ones (the latter also in untracked: the
// listing says so, with no git process per path).
func changedPaths(ctx context.Context, repo *git.Repo) (paths []string, untracked map[string]bool, staged bool, err error) {
	out, err := repo.Run(ctx, "diff", "--cached", "--name-only", "-z")
	if err != nil {
		return nil, nil, false, err
	}
	if paths := splitNUL(out); len(paths) > 0 {
		return paths, nil, true, nil
	}
	out, err = repo.Run(ctx, "diff", "--name-only", "-z")
	if err != nil {
		return nil, nil, false, err
	}
	paths = splitNUL(out)
	if out, err := repo.Run(ctx, "ls-files", "-z", "--others", "--exclude-standard"); err == nil {
		others := splitNUL(out)
		untracked = make(map[string]bool, len(others))
		for _, p := range others {
			untracked[p] = true
		}
		paths = append(paths, others...)
	}
	sort.Strings(paths)
	return dedupe(paths), untracked, false, nil
}

func splitNUL(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// coveringAll are the active decisions whose paths cover any changed path.
func coveringAll(entries []*store.Entry, changed []string) []*store.Entry {
	seen := map[string]bool{}
	var out []*store.Entry
	for _, p := range changed {
		for _, e := range covering(entries, p) {
			if e.Kind == "decision" && e.IsActive() && !seen[e.ID] {
				seen[e.ID] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// candidatesFor lists the inbox: candidates touching the changed files
// first, then this worktree's others, then other worktrees'.
func candidatesFor(cands []*local.Candidate, changed []string, v knowledge.Voice) string {
	touches := func(c *local.Candidate) bool {
		for _, pat := range c.Paths {
			for _, p := range changed {
				if glob.Match(pat, p) { // a directory pattern covers its files
					return true
				}
			}
		}
		return false
	}
	var first, here, elsewhere []*local.Candidate
	for _, c := range cands {
		if c.Private() {
			continue
		}
		switch {
		case touches(c):
			first = append(first, c)
		case c.Here:
			here = append(here, c)
		default:
			elsewhere = append(elsewhere, c)
		}
	}
	if len(first)+len(here)+len(elsewhere) == 0 {
		return fmt.Sprintf("No team candidates. If this change embodies a decision, a convention or a lesson, capture it (%s) and promote it here.\n", v.Tool("ctx_capture"))
	}
	var b strings.Builder
	write := func(title string, list []*local.Candidate) {
		if len(list) == 0 {
			return
		}
		b.WriteString(title + "\n")
		for _, c := range list {
			b.WriteString(candidateText(c, false) + "\n")
		}
	}
	write(fmt.Sprintf("Touching the changed files (promote what holds: %s):", v.Call("ctx_prepare_commit", "promote", []string{"<id>"})), first)
	write("Other candidates from this worktree:", here)
	write("From other worktrees (promote them from there):", elsewhere)
	return b.String()
}

// checkStaged validates the knowledge files in the change and scans them
// for secrets, reading what is staged when something is.
func checkStaged(ctx context.Context, o *knowledge.Opened, entries []*store.Entry, changed []string, staged bool) string {
	var files []*store.Entry
	for _, p := range changed {
		if !o.Store.IsEntryPath(p) {
			continue
		}
		var data []byte
		var err error
		if staged {
			data, err = o.Git.Run(ctx, "show", ":"+p)
		} else {
			data, err = o.Root.ReadFile(p)
		}
		if err != nil {
			continue // deleted
		}
		kind, _ := o.Store.KindOf(p)
		files = append(files, store.Parse(p, data, kind))
	}
	if len(files) == 0 {
		return "No knowledge files in the change.\n"
	}
	problems := store.Validate(files, store.CheckOptions{
		All:          entries,
		KnownKind:    func(k string) bool { _, ok := o.Config.Kind(k); return ok },
		MaxBodyLines: o.Config.Store.MaxBodyLines,
		Scanner:      o.Secrets,
		NoSecrets:    o.Config.Secrets.Scan == "off",
	})
	if len(problems) == 0 {
		return fmt.Sprintf("%d knowledge file(s) valid; no secrets found.\n", len(files))
	}
	var b strings.Builder
	errs := 0
	for _, p := range problems {
		if p.Level == store.Error {
			errs++
		}
		fmt.Fprintf(&b, "- %s\n", p.String())
	}
	if errs > 0 {
		fmt.Fprintf(&b, "%d error(s) will block the commit (the pre-commit hook runs the same checks).\n", errs)
	}
	return b.String()
}
