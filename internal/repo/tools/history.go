package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// maxSnapshotFiles bounds the file list of a revision snapshot.
const maxSnapshotFiles = 500

func noGit(snap *repo.Snapshot) error {
	return fmt.Errorf("%s is not in a git work tree: there is no history or revision to read", snap.Root)
}

func (h *Handlers) GetModuleHistory(ctx context.Context, in *spec.GetModuleHistoryInput) (*results.ModuleHistory, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	if snap.History == nil {
		return nil, noGit(snap)
	}
	d := h.derived.of(snap)
	limit := orDefault(in.Limit, 20)
	res := &results.ModuleHistory{SchemaVersion: model.SchemaVersion, Target: d.clean(in.Target)}
	// A module by id or name is the module; a file or directory is itself,
	// placed in its module; anything else may be a path history still has.
	known := true
	if m := d.byName[strings.TrimSpace(in.Target)]; m != nil && d.modules[res.Target] == nil {
		res.Target = m.ID
	}
	switch {
	case d.modules[res.Target] != nil:
		m := d.modules[res.Target]
		res.Module, res.Signals = m.ID, m.Git
	case d.files[res.Target] != nil || d.isDir(res.Target):
		res.Module = d.moduleOf(res.Target)
	default:
		known = false
		res.Module = d.moduleOf(res.Target)
	}
	commits, truncated := analyze.ModuleHistory(d.g, snap.History, res.Target, limit)
	if !known && len(commits) == 0 {
		return nil, d.unknown(in.Target)
	}
	res.Commits, res.SecretFilesLeftOut = withoutSecretFiles(commits)
	if truncated {
		addTruncated(&res.Truncated, "commits", len(res.Commits), narrowHistory)
	}
	if snap.History.Truncated {
		addTruncated(&res.Truncated, "history", len(snap.History.Commits), narrowHistoryWindow)
	}
	return shape(res, full(in.Detail), narrowHistory), nil
}

// withoutSecretFiles returns the commits with the secret files left out
// of their file lists (copies: the analysis is shared), and those files.
func withoutSecretFiles(commits []analyze.HistoryEntry) ([]analyze.HistoryEntry, []string) {
	var out []analyze.HistoryEntry
	var left []string
	seen := map[string]bool{}
	for i, c := range commits {
		keep := c.Files[:0:0]
		for _, f := range c.Files {
			if !secrets.IsSecretFile(f) {
				keep = append(keep, f)
			} else if !seen[f] {
				seen[f] = true
				left = append(left, f)
			}
		}
		if len(keep) == len(c.Files) {
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		if out == nil {
			out = append(make([]analyze.HistoryEntry, 0, len(commits)), commits[:i]...)
		}
		c.Files = keep
		out = append(out, c)
	}
	if out == nil {
		out = commits
	}
	sort.Strings(left)
	return out, left
}

// revisionRange reads "A..B" as base A and revision B, the way git writes
// a range; the symmetric "A...B" means a merge base, which this tool does
// not compute.
func revisionRange(rev, base string) (string, string, error) {
	rev = strings.TrimSpace(rev)
	if strings.Contains(rev, "...") {
		return "", "", fmt.Errorf("%q: three-dot ranges are not supported; pass revision and base separately", rev)
	}
	if a, b, ok := strings.Cut(rev, ".."); ok && base == "" {
		if a == "" {
			a = "HEAD"
		}
		if b == "" {
			b = "HEAD"
		}
		return b, a, nil
	}
	return rev, base, nil
}

func (h *Handlers) GetRevisionDiff(ctx context.Context, in *spec.GetRevisionDiffInput) (*results.RevisionDiff, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	if snap.Git == nil {
		return nil, noGit(snap)
	}
	rev, base, err := revisionRange(in.Revision, strings.TrimSpace(optional(in.Base)))
	if err != nil {
		return nil, err
	}
	diff, err := analyze.RevisionDiff(ctx, snap.Git, snap.Graph, base, rev)
	if err != nil {
		return nil, revisionError(ctx, err)
	}
	res := &results.RevisionDiff{
		SchemaVersion: model.SchemaVersion, Base: diff.Base, Revision: diff.Revision,
		Files: diff.Files, Modules: diff.Modules, HasChanges: diff.HasChanges, SecretFilesLeftOut: diff.SecretFiles,
	}
	if diff.Truncated {
		addTruncated(&res.Truncated, "files", len(res.Files), narrowRevisionDiff)
	}
	if diff.SecretsCut {
		addTruncated(&res.Truncated, "secretFilesLeftOut", len(res.SecretFilesLeftOut), "")
	}
	return shape(res, full(in.Detail), narrowRevisionDiff), nil
}

func (h *Handlers) GetRevisionSnapshot(ctx context.Context, in *spec.GetRevisionSnapshotInput) (*results.RevisionSnapshot, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	if snap.Git == nil {
		return nil, noGit(snap)
	}
	s, err := analyze.RevisionSnapshot(ctx, snap.Git, snap.Graph, strings.TrimSpace(in.Revision), maxSnapshotFiles)
	if err != nil {
		return nil, revisionError(ctx, err)
	}
	res := &results.RevisionSnapshot{
		SchemaVersion: model.SchemaVersion, Revision: s.Revision, SHA: s.SHA, Author: s.Author, Date: s.Date,
		Subject: s.Subject, FileCount: s.FileCount, Files: s.Files, Languages: s.Languages, Modules: s.Modules,
		SecretFilesLeftOut: s.SecretFiles,
	}
	if s.Truncated {
		note(&res.Truncated, results.Truncation{Field: "files", Kept: len(res.Files), Total: s.FileCount, Narrow: narrowRevisionSnapshot})
	}
	if s.SecretsCut {
		addTruncated(&res.Truncated, "secretFilesLeftOut", len(res.SecretFilesLeftOut), "")
	}
	return shape(res, full(in.Detail), narrowRevisionSnapshot), nil
}

// revisionError keeps git's word on a bad revision and adds what to do.
func revisionError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if strings.Contains(err.Error(), "unknown revision") || strings.Contains(err.Error(), "not a revision") {
		return fmt.Errorf("%w: name a commit, tag or branch of this repository (get_module_history lists recent commits)", err)
	}
	return err
}

func (h *Handlers) GetChangeImpact(ctx context.Context, in *spec.GetChangeImpactInput) (*results.ChangeImpact, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	d := h.derived.of(snap)
	maxFiles := orDefault(in.MaxFiles, analyze.DefaultImpactFiles)
	imp, err := analyze.Impact(d.g, d.clean(in.Target), maxFiles)
	if err != nil {
		if errors.Is(err, analyze.ErrUnknownTarget) {
			return nil, d.unknown(in.Target)
		}
		return nil, err
	}
	res := &results.ChangeImpact{
		SchemaVersion: model.SchemaVersion, Target: imp.Target, Kind: imp.Kind, Modules: imp.Modules, TargetFiles: imp.TargetFiles,
		DirectDependents: imp.DirectDependents, TransitiveDependents: imp.TransitiveDependents,
		Files: imp.Files, Tests: imp.Tests, Decisions: imp.Decisions, Conventions: imp.Conventions,
	}
	for _, l := range imp.Cut {
		addTruncated(&res.Truncated, l, 0, narrowImpact)
	}
	return shape(res, full(in.Detail), narrowImpact), nil
}
