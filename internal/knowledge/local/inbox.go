package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/faultinject"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Visibility of a capture.
const (
	Team    = "team"
	Private = "private"
)

// Capture is knowledge an agent or a person wants to keep.
type Capture struct {
	Kind    string // a kind or an alias (adr, pitfall, rule, …)
	Title   string
	Body    string
	Summary string
	Paths   []string
	Tags    []string
	// Supersedes are entries the capture replaces (marked when it is
	// promoted).
	Supersedes []string
	Commits    []string
	// Visibility is team or private; "" takes capture.default_visibility.
	Visibility string
	// Status of a decision (accepted when empty).
	Status string
	// Source says where it was found (`claude:4f1c2a9b`); kept in the inbox only.
	Source string
	// Author defaults to git's user.name.
	Author string
	// Origin is agent, cli or thread.
	Origin string
	// Promote writes the entry straight into the store instead of the inbox.
	Promote bool
}

// Captured is what Capture wrote.
type Captured struct {
	// Entry is the inbox candidate, or the store entry when promoted.
	Entry *store.Entry
	// Promoted is true when the entry went straight into the store; Result
	// then says what was written.
	Promoted bool
	Result   *store.Result
	// Redacted lists the secrets replaced by [redacted:<rule>].
	Redacted []secrets.Finding
}

// Candidate is an inbox entry.
type Candidate struct {
	*store.Entry
	Captured time.Time
	Branch   string
	Worktree string
	Source   string
	// Here is true for candidates captured in this worktree (or that do not
	// say where); Gone for those of a worktree that no longer exists.
	Here, Gone bool
	// PromotedTo and PromotedAt are set on promoted candidates.
	PromotedTo string
	PromotedAt time.Time
}

// Private reports whether the candidate stays local.
func (c *Candidate) Private() bool { return c.Visibility == Private }

// Capture validates a capture, redacts its secrets (or refuses it when
// capture.redact is off), and writes it to the inbox as
// inbox/<date>-<slug>[-N].md, or straight into the store with Promote. In
// a repository without a store only private captures are accepted
// (*NoStoreError).
func (s *State) Capture(ctx context.Context, c Capture) (*Captured, error) {
	known := func(k string) bool { _, ok := s.Config.Kind(k); return ok }
	kind, tag, ok := store.NormalizeKind(c.Kind, known)
	if !ok {
		var names []string
		for _, k := range s.Config.Kinds() {
			names = append(names, k.Name)
		}
		return nil, &store.UnknownKindError{Kind: c.Kind, Known: names}
	}
	title, body, summary := strings.TrimSpace(c.Title), strings.TrimSpace(c.Body), strings.TrimSpace(c.Summary)
	if title == "" {
		return nil, &InvalidError{"a capture needs a title: a short statement of what was decided or learned"}
	}
	if body == "" && summary == "" {
		return nil, &InvalidError{"a capture needs a body (or a summary): what was decided or learned, why, and what follows"}
	}
	vis := strings.ToLower(strings.TrimSpace(c.Visibility))
	if vis == "" {
		vis = s.Config.Capture.DefaultVisibility
	}
	if vis != Team && vis != Private {
		return nil, &InvalidError{fmt.Sprintf("visibility must be %q or %q, not %q", Team, Private, c.Visibility)}
	}
	if c.Promote && vis == Private {
		return nil, &InvalidError{"private entries stay in the local inbox; use visibility \"team\" to write into the shared store"}
	}
	if vis == Team && !s.Store.Exists() {
		return nil, &NoStoreError{StoreDir: s.Store.Dir()}
	}
	scanner, err := secrets.New(s.Config.Secrets.Allow, s.Config.Secrets.Redact)
	if err != nil {
		return nil, err
	}
	// Every value goes into the same file: each is redacted (or weighed
	// for refusal) like the body.
	clean := secrets.NewRedactor(scanner, !s.Config.Capture.Redact)
	title, body, summary = clean.Text(title), clean.Text(body), clean.Text(summary)
	c.Tags, c.Paths, c.Supersedes, c.Commits = clean.List(c.Tags), clean.List(c.Paths), clean.List(c.Supersedes), clean.List(c.Commits)
	c.Author, c.Source, c.Status, c.Origin = clean.Text(c.Author), clean.Text(c.Source), clean.Text(c.Status), clean.Text(c.Origin)
	if refused := clean.Refused(); refused != nil {
		return nil, &SecretError{Findings: refused}
	}
	redacted := clean.Redacted()
	// Resolved after redaction, so that an error naming what was given
	// never repeats a secret.
	supersedes, err := s.resolveSupersedes(cleanList(c.Supersedes))
	if err != nil {
		return nil, err
	}

	status := ""
	switch {
	case c.Status != "":
		status = store.NormalizeStatus(c.Status)
	case kind == store.KindDecision:
		status = store.StatusAccepted
	}
	tags := cleanList(c.Tags)
	if tag != "" && !slices.Contains(tags, tag) {
		tags = append(tags, tag)
	}
	var paths []string
	for _, p := range cleanList(c.Paths) {
		if p = strings.TrimPrefix(p, "./"); p != "" {
			paths = append(paths, p)
		}
	}
	var commits []string
	for _, sha := range cleanList(c.Commits) {
		if len(sha) > 12 && !strings.Contains(sha, "[redacted:") {
			sha = sha[:12]
		}
		commits = append(commits, sha)
	}
	author := strings.TrimSpace(c.Author)
	if author == "" {
		author = s.Repo.Config(ctx, "user.name")
	}
	if body != "" {
		body += "\n"
	}
	now := s.now()
	e := &store.Entry{
		Kind: kind, Title: title, Status: status, Date: now.Format("2006-01-02"), Summary: summary,
		Tags: tags, Paths: paths, Supersedes: supersedes, Commits: commits,
		Author: author, Visibility: vis, Origin: strings.TrimSpace(c.Origin), Body: body,
	}

	unlock, err := s.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()

	if c.Promote {
		e.Visibility = ""
		res, err := s.Store.Create(e)
		if err != nil {
			return nil, err
		}
		return &Captured{Entry: e, Promoted: true, Result: res, Redacted: redacted}, nil
	}
	if src := strings.TrimSpace(c.Source); src != "" {
		e.Set("source", src)
	}
	e.Set("captured", now.Format(time.RFC3339))
	if s.Branch != "" {
		e.Set("branch", s.Branch)
	}
	e.Set("worktree", s.Worktree)
	if err := s.writeCandidate(e, now); err != nil {
		return nil, err
	}
	return &Captured{Entry: e, Redacted: redacted}, nil
}

// resolveSupersedes turns the entries a capture supersedes into full ids
// now, while the agent can still be asked which one it means: a prefix
// that later matched a second entry would mark that one superseded.
func (s *State) resolveSupersedes(keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	if !s.Store.Exists() {
		return nil, &InvalidError{fmt.Sprintf("supersedes names entries of the team's store, and this repository has none (%s/)", s.Store.Dir())}
	}
	entries, err := s.Store.Load()
	if err != nil && len(entries) == 0 {
		return nil, err
	}
	ids, err := store.ResolveIDs(entries, keys)
	if err != nil {
		return nil, fmt.Errorf("supersedes: %w", err)
	}
	return ids, nil
}

// writeCandidate gives a candidate a free id `<date>-<slug>[-N]` and
// creates its file. The id is found without writing (see
// store.FreeSuffix), so the 260th capture of one title writes and flushes
// one file, not 260; creation is exclusive, so ids stay unique even
// between writers that do not share the lock.
func (s *State) writeCandidate(e *store.Entry, now time.Time) error {
	slug := store.Slugify(e.Title, store.MaxSlug)
	if slug == "" {
		slug = "note"
	}
	base := now.Format("2006-01-02") + "-" + slug
	e.Style = store.StyleFrontMatter
	taken := func(n int) bool {
		id := store.Suffixed(base, n)
		for _, dir := range []string{s.InboxDir(), s.PromotedDir()} { // .promoted: awaiting cleanup
			if _, err := os.Lstat(filepath.Join(dir, id+".md")); err == nil {
				return true
			}
		}
		return false
	}
	n := store.FreeSuffix(taken)
	for range 100 {
		id := store.Suffixed(base, n)
		e.ID, e.Path = id, "inbox/"+id+".md"
		err := atomicfile.CreateIn(s.TempDir(), filepath.Join(s.InboxDir(), id+".md"), store.Marshal(e), 0o644)
		if err == nil {
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		// Another writer took it meanwhile.
		for n++; taken(n); n++ {
		}
	}
	return fmt.Errorf("no free inbox id for %q", base)
}

func cleanList(l []string) []string {
	var out []string
	for _, v := range l {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// List returns the inbox candidates, newest first, each saying which
// worktree and branch captured it. Private candidates are included: they
// are readable (and searchable) locally.
func (s *State) List(ctx context.Context) ([]*Candidate, error) {
	cands, err := s.read(ctx, s.InboxDir(), true)
	if err != nil {
		return nil, err
	}
	out := cands[:0]
	for _, c := range cands {
		if s.promotionDone(ctx, c.ID) {
			continue // promoted; only the removal of this copy was interrupted
		}
		out = append(out, c)
	}
	return out, nil
}

// Promoted returns the promoted candidates whose entries are not committed yet.
func (s *State) Promoted(ctx context.Context) ([]*Candidate, error) {
	return s.read(ctx, s.PromotedDir(), true)
}

// read parses the candidates in dir. With gone it asks git which
// worktrees still exist, to mark the candidates of the others Gone;
// without, none is taken for gone.
func (s *State) read(ctx context.Context, dir string, gone bool) ([]*Candidate, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var alive map[string]bool
	if gone {
		alive = s.liveWorktrees(ctx)
	}
	var out []*Candidate
	for _, de := range ents {
		name := de.Name()
		if !de.Type().IsRegular() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") {
			continue
		}
		data, err := fsroot.Read(nil, filepath.Join(dir, name), 0)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // dropped or promoted meanwhile
			}
			return nil, err
		}
		out = append(out, s.candidate(store.Parse("inbox/"+name, data, store.KindLearning), alive))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Captured.Equal(out[j].Captured) {
			return out[i].Captured.After(out[j].Captured)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

func (s *State) candidate(e *store.Entry, alive map[string]bool) *Candidate {
	c := &Candidate{Entry: e, Branch: e.Get("branch"), Worktree: e.Get("worktree"), Source: e.Get("source"), PromotedTo: e.Get(promotedTo)}
	c.Captured, _ = time.Parse(time.RFC3339, e.Get("captured"))
	c.PromotedAt, _ = time.Parse(time.RFC3339, e.Get(promotedAt))
	c.Here = c.Worktree == "" || c.Worktree == s.Worktree
	c.Gone = !c.Here && alive != nil && !alive[c.Worktree]
	return c
}

// liveWorktrees is the set of keys of the clone's existing worktrees (nil
// when git cannot say: then none is taken for gone).
func (s *State) liveWorktrees(ctx context.Context) map[string]bool {
	wts, err := s.Repo.Worktrees(ctx)
	if err != nil {
		return nil
	}
	alive := map[string]bool{s.Worktree: true}
	for _, w := range wts {
		if _, err := os.Stat(w.Path); err == nil {
			alive[WorktreeKey(w.Path)] = true
		}
	}
	return alive
}

// Show returns one candidate by id, unique id prefix or unique suffix.
func (s *State) Show(ctx context.Context, key string) (*Candidate, error) {
	cands, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	return find(cands, key)
}

func find(cands []*Candidate, key string) (*Candidate, error) {
	key = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(key), "inbox:"))
	for _, c := range cands {
		if c.ID == key {
			return c, nil
		}
	}
	for _, match := range []func(id string) bool{
		func(id string) bool { return strings.HasPrefix(id, key) },
		func(id string) bool { return strings.HasSuffix(id, key) },
	} {
		var hits []*Candidate
		for _, c := range cands {
			if key != "" && match(c.ID) {
				hits = append(hits, c)
			}
		}
		if len(hits) == 1 {
			return hits[0], nil
		}
		if len(hits) > 1 {
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = h.ID
			}
			sort.Strings(ids)
			return nil, &store.AmbiguousError{Key: key, Candidates: ids}
		}
	}
	return nil, &NotFoundError{ID: key}
}

// Drop deletes candidates from the inbox.
func (s *State) Drop(ctx context.Context, keys ...string) ([]string, error) {
	unlock, err := s.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cands, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	var dropped []string
	var errs []error
	for _, k := range keys {
		c, err := find(cands, k)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(filepath.Join(s.InboxDir(), c.ID+".md")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		dropped = append(dropped, c.ID)
	}
	return dropped, errors.Join(errs...)
}

// Promotion is one candidate written into the store.
type Promotion struct {
	ID    string // the candidate's inbox id
	Entry *store.Entry
	// Written lists the files written (the entry and the entries it
	// superseded), relative to the work tree, for staging.
	Written []string
	// Missing are supersedes references that matched no entry.
	Missing []string
}

// Promote writes candidates into this worktree's store (the kind's
// directory, style and numbering), marks what they supersede, and moves
// each candidate to inbox/.promoted/ with promoted_to and promoted_at. A
// promotion interrupted by a crash is completed or undone by the next one,
// so a candidate is promoted at most once. Private candidates are refused
// (*PrivateError), as is everything in a repository without a store.
func (s *State) Promote(ctx context.Context, keys ...string) ([]Promotion, error) {
	unlock, err := s.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var done []Promotion
	var errs []error
	for _, k := range keys {
		p, err := s.promote(ctx, k)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done = append(done, *p)
	}
	return done, errors.Join(errs...)
}

func (s *State) promote(ctx context.Context, key string) (*Promotion, error) {
	// Which worktrees are gone does not matter here: no git process to
	// find out for every candidate promoted.
	all, err := s.read(ctx, s.InboxDir(), false)
	if err != nil {
		return nil, err
	}
	c, err := find(all, key)
	if err != nil {
		if nf := (*NotFoundError)(nil); errors.As(err, &nf) {
			if twin := s.twin(key); twin != nil {
				return nil, &AlreadyPromotedError{ID: key, To: twin.Get(promotedTo)}
			}
		}
		return nil, err
	}
	inboxFile := filepath.Join(s.InboxDir(), c.ID+".md")
	twinFile := filepath.Join(s.PromotedDir(), c.ID+".md")
	if twin := s.twin(c.ID); twin != nil {
		target := twin.Get(promotedTo)
		if s.holdsPromotion(ctx, twin) {
			if dir := twin.Get(promotedWorktree); dir != "" && dir != s.Store.Root() {
				// Written in another worktree, which completes it.
				return nil, &AlreadyPromotedError{ID: c.ID, To: target}
			}
			// The entry was written here; what followed was interrupted:
			// marking what it supersedes, removing this copy.
			return s.completePromotion(c, target, inboxFile)
		}
		// The entry never got written (or another took its name): undo
		// the record and promote again.
		if err := os.Remove(twinFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if c.Private() {
		return nil, &PrivateError{ID: c.ID}
	}
	if !s.Store.Exists() {
		return nil, &NoStoreError{StoreDir: s.Store.Dir()}
	}
	e := c.Entry.Clone()
	for _, k := range []string{"captured", "branch", "worktree", "source", promotedTo, promotedAt, promotedDigest, promotedWorktree} {
		e.Set(k, nil)
	}
	e.Visibility, e.ID, e.Path = "", "", ""
	for attempt := 0; ; attempt++ {
		if err := s.Store.Allocate(e); err != nil {
			return nil, err
		}
		// Record the promotion before writing the entry: a crash in between
		// leaves a record whose target does not hold this entry, which the
		// next attempt undoes; a crash after leaves both, which it
		// completes. The record says what the entry's file holds and in
		// which worktree, so that neither another entry that took the
		// name nor another worktree's tree is mistaken for it.
		c.Entry.Set(promotedTo, e.Path)
		c.Entry.Set(promotedAt, s.now().Format(time.RFC3339))
		c.Entry.Set(promotedDigest, digest(store.Marshal(e)))
		c.Entry.Set(promotedWorktree, s.Store.Root())
		if err := atomicfile.WriteIn(s.TempDir(), twinFile, store.Marshal(c.Entry), 0o644); err != nil {
			return nil, err
		}
		faultinject.Point(PointRecorded)
		err := s.Store.WriteNew(e)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || attempt > 50 {
			os.Remove(twinFile)
			return nil, err
		}
	}
	faultinject.Point(PointWritten)
	p := &Promotion{ID: c.ID, Entry: e, Written: []string{e.Path}}
	sup, missing, err := s.Store.Supersede(e)
	for _, o := range sup {
		p.Written = append(p.Written, o.Path)
	}
	p.Missing = missing
	if err != nil {
		return nil, err
	}
	faultinject.Point(PointSuperseded)
	if err := os.Remove(inboxFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return p, nil
}

// completePromotion finishes a promotion whose entry was written before
// the process died: the entries it supersedes are marked (again: marking
// twice changes nothing) and the inbox copy is removed. It returns the
// promotion, so that its files are staged as a complete one's are.
func (s *State) completePromotion(c *Candidate, target, inboxFile string) (*Promotion, error) {
	data, err := s.Store.ReadFile(target)
	if err != nil {
		return nil, err
	}
	kind, _ := s.Store.KindOf(target)
	e := store.Parse(target, data, kind)
	p := &Promotion{ID: c.ID, Entry: e, Written: []string{e.Path}}
	sup, missing, err := s.Store.Supersede(e)
	for _, o := range sup {
		p.Written = append(p.Written, o.Path)
	}
	p.Missing = missing
	if err != nil {
		return nil, err
	}
	if err := os.Remove(inboxFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return p, nil
}

// The fields of a promotion record (inbox/.promoted/<id>.md) besides the
// candidate's own: promoted_to and promoted_at as the original kontext
// writes them, and what the entry's file holds and in which worktree.
const (
	promotedTo       = "promoted_to"
	promotedAt       = "promoted_at"
	promotedDigest   = "promoted_sha256"
	promotedWorktree = "promoted_worktree"
)

// Crash points of a promotion (see package faultinject): the record is
// written; the entry is written; the superseded entries are marked (the
// inbox copy is still there).
const (
	PointRecorded   = "promote:recorded"
	PointWritten    = "promote:written"
	PointSuperseded = "promote:superseded"
)

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// twin reads the .promoted record of a candidate id, or nil.
func (s *State) twin(id string) *store.Entry {
	if strings.ContainsAny(id, `/\`) {
		return nil
	}
	data, err := fsroot.Read(nil, filepath.Join(s.PromotedDir(), id+".md"), 0)
	if err != nil {
		return nil
	}
	return store.Parse("inbox/.promoted/"+id+".md", data, store.KindLearning)
}

func (s *State) promotionDone(ctx context.Context, id string) bool {
	t := s.twin(id)
	return t != nil && s.holdsPromotion(ctx, t)
}

// holdsPromotion reports whether the promotion a record describes
// happened: its target file, in the worktree that promoted it, holds this
// entry — not merely some file of that name (another entry of the same
// title may have taken the name after a crash), and not a file of this
// worktree when another one promoted it. A record of a worktree that no
// longer exists took its entry with it: the promotion is done again here.
func (s *State) holdsPromotion(ctx context.Context, twin *store.Entry) bool {
	rel := twin.Get(promotedTo)
	if rel == "" {
		return false
	}
	dir := twin.Get(promotedWorktree)
	if dir == "" || dir == s.Store.Root() {
		dir = s.Store.Root()
	} else if !s.isWorktree(ctx, dir) {
		return false
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		return false
	}
	defer root.Close()
	data, err := root.ReadFile(rel)
	if err != nil {
		return false
	}
	if want := twin.Get(promotedDigest); want != "" {
		return digest(data) == want
	}
	// A record without a digest (an earlier kontext, the original): the
	// entry is the candidate's when its title and body are.
	e := store.Parse(rel, data, twin.Kind)
	return e.Title == twin.Title && strings.TrimSpace(e.Body) == strings.TrimSpace(twin.Body)
}

// isWorktree reports whether dir is a live worktree of this clone.
func (s *State) isWorktree(ctx context.Context, dir string) bool {
	wts, err := s.Repo.Worktrees(ctx)
	if err != nil {
		return true // git cannot say: do not take its promotion for undone
	}
	for _, w := range wts {
		if filepath.Clean(w.Path) == filepath.Clean(dir) {
			_, err := os.Stat(dir)
			return err == nil
		}
	}
	return false
}

// CleanPromoted deletes the promoted candidates whose entry is now part of
// HEAD, and returns how many it deleted.
func (s *State) CleanPromoted(ctx context.Context) (int, error) {
	unlock, err := s.Lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	// Run after every commit: no git process to find gone worktrees, which
	// this does not need.
	cands, err := s.read(ctx, s.PromotedDir(), false)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range cands {
		if c.PromotedTo == "" || strings.ContainsAny(c.PromotedTo, "\n") {
			continue
		}
		if dir := c.Get(promotedWorktree); dir != "" && dir != s.Store.Root() {
			continue // another worktree's promotion: its HEAD decides
		}
		_, data, ok, err := s.Repo.Object(ctx, "HEAD:"+c.PromotedTo)
		if err != nil {
			return n, err
		}
		if !ok {
			continue
		}
		id := strings.TrimSuffix(strings.TrimPrefix(c.Path, "inbox/"), ".md")
		// A promotion interrupted before its inbox copy was removed, and
		// since committed: the copy goes too, or it would come back as a
		// candidate once the record is gone.
		if want := c.Get(promotedDigest); want != "" && digest(data) == want {
			if err := os.Remove(filepath.Join(s.InboxDir(), id+".md")); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return n, err
			}
		}
		if err := os.Remove(filepath.Join(s.PromotedDir(), id+".md")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	atomicfile.RemoveStaleTemps(s.InboxDir(), time.Hour)
	atomicfile.RemoveStaleTemps(s.PromotedDir(), time.Hour)
	return n, nil
}
