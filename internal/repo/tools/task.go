package tools

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// Bounds of a task context besides maxModules.
const (
	maxTaskFiles       = 25
	maxTaskEntryPoints = 10
	maxTaskConventions = 10
	maxTaskDecisions   = 8
	maxTaskChanges     = 10
	taskChangesPerMod  = 5
)

// moduleIndex builds, once per snapshot, the BM25 index that ranks modules
// for a task: a module's own names and description, weighted, and the
// names and exported symbols of its written files.
func (d *derived) moduleIndex() *index {
	d.moduleOnce.Do(func() {
		ix := newIndex()
		for i := range d.g.Modules {
			m := &d.g.Modules[i]
			ts := append(repeat(terms(m.ID), 3), repeat(terms(m.Name), 3)...)
			ts = append(ts, repeat(terms(m.Description), 2)...)
			for _, r := range m.Roles {
				ts = append(ts, terms(r.Role)...)
			}
			for _, f := range d.byModule[m.ID] {
				if f.Generated || f.Vendored {
					continue
				}
				ts = append(ts, terms(strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path)))...)
				ts = append(ts, terms(f.Doc)...)
				for _, s := range f.Symbols {
					ts = append(ts, terms(s.Name)...)
				}
			}
			ix.add(ts)
		}
		d.moduleIx = ix
	})
	return d.moduleIx
}

// rankedModule is a module's relevance to a task and the reasons for it.
type rankedModule struct {
	m       *model.Module
	score   float64
	reasons []string
}

func (h *Handlers) GetContextForTask(ctx context.Context, in *spec.GetContextForTaskInput) (*results.TaskContext, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	d := h.derived.of(snap)
	g := d.g
	maxModules := orDefault(in.MaxModules, 5)
	res := &results.TaskContext{SchemaVersion: model.SchemaVersion, Task: in.Task}
	query := terms(in.Task)

	// The target and its neighbourhood.
	var targetMod *model.Module
	targetFile := ""
	if t := strings.TrimSpace(optional(in.Target)); t != "" {
		if targetMod, err = d.resolveModule(t); err != nil {
			return nil, err
		}
		res.Target = d.clean(t)
		if d.files[res.Target] != nil {
			targetFile = res.Target
		}
	}

	ranked := map[string]*rankedModule{}
	rank := func(m *model.Module) *rankedModule {
		r := ranked[m.ID]
		if r == nil {
			r = &rankedModule{m: m}
			ranked[m.ID] = r
		}
		return r
	}
	top := 0.0
	for _, hit := range d.moduleIndex().search(query, nil) {
		r := rank(&g.Modules[hit.doc])
		r.score = hit.score
		r.reasons = append(r.reasons, matchedReason(hit.matched))
		top = max(top, hit.score)
	}
	if targetMod != nil {
		// The target leads; its neighbours rank above weak matches but a
		// strong match of the task words can still pass them.
		r := rank(targetMod)
		r.score += top + 1
		r.reasons = append(r.reasons, "the target's module")
		for _, id := range targetMod.DependsOn {
			if m := d.modules[id]; m != nil {
				r := rank(m)
				r.score += (top + 1) / 2
				r.reasons = append(r.reasons, "the target depends on it")
			}
		}
		for _, id := range targetMod.UsedBy {
			if m := d.modules[id]; m != nil {
				r := rank(m)
				r.score += (top + 1) / 2
				r.reasons = append(r.reasons, "it depends on the target")
			}
		}
	}
	list := make([]*rankedModule, 0, len(ranked))
	for _, r := range ranked {
		list = append(list, r)
	}
	if len(list) == 0 {
		// Nothing matched: the modules the rest depends on are where to start.
		for i := range g.Modules {
			m := &g.Modules[i]
			list = append(list, &rankedModule{m: m, reasons: []string{fmt.Sprintf("no term of the task matched; a central module (used by %d)", len(m.UsedBy))}})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return analyze.MoreImportant(list[i].m, list[j].m)
	})
	list = cut(list, maxModules, "modules", "raise maxModules (at most 12), or pass target", &res.Truncated)
	selected := map[string]bool{}
	for _, r := range list {
		selected[r.m.ID] = true
		s := moduleSummary(r.m)
		s.Relevance = round3(r.score)
		s.Reason = strings.Join(r.reasons, "; ")
		res.Modules = append(res.Modules, s)
	}

	res.Files = taskFiles(d, query, selected, targetMod, targetFile, min(maxTaskFiles, 3*maxModules+5), &res.Truncated)

	for _, ep := range d.rankedEntryPoints() {
		if selected[ep.Module] && ep.Type != "test" {
			res.EntryPoints = append(res.EntryPoints, ep)
		}
	}
	res.EntryPoints = cut(res.EntryPoints, maxTaskEntryPoints, "entryPoints", "call explain_module for a module's entry points", &res.Truncated)

	// Conventions: those observed in the chosen modules, then the
	// repository-wide rest, which apply to any change.
	seenConv := map[string]bool{}
	for _, r := range list {
		for _, c := range d.conventionsFor(r.m.ID) {
			if !seenConv[c.ID] {
				seenConv[c.ID] = true
				res.Conventions = append(res.Conventions, c)
			}
		}
	}
	for _, c := range g.Conventions {
		if !seenConv[c.ID] {
			seenConv[c.ID] = true
			res.Conventions = append(res.Conventions, c)
		}
	}
	res.Conventions = cut(res.Conventions, maxTaskConventions, "conventions", "call get_conventions", &res.Truncated)

	// Decisions: those the task's words name, then those governing the
	// chosen modules.
	ix, docs := d.searchIndex()
	byID := map[string]*model.Decision{}
	for i := range g.Decisions {
		byID[g.Decisions[i].ID] = &g.Decisions[i]
	}
	seenDec := map[string]bool{}
	addDecision := func(dec *model.Decision) {
		if dec != nil && !seenDec[dec.ID] {
			seenDec[dec.ID] = true
			res.Decisions = append(res.Decisions, *dec)
		}
	}
	for _, hit := range ix.search(query, func(i int) bool { return docs[i].typ == "decision" }) {
		addDecision(byID[docs[hit.doc].id])
	}
	for _, r := range list {
		for _, dec := range d.decisionsFor(r.m.ID) {
			addDecision(byID[dec.ID])
		}
	}
	res.Decisions = cut(res.Decisions, maxTaskDecisions, "decisions", "call get_decisions", &res.Truncated)

	res.RecentChanges = recentChanges(d, snap.History, list, &res.Truncated)
	return shape(res, full(in.Detail), narrowTask), nil
}

// taskFiles ranks the files worth reading: the target file, the files the
// task's words match (those in the chosen modules weighing more), and the
// entry points of the target's module.
func taskFiles(d *derived, query []string, selected map[string]bool, targetMod *model.Module, targetFile string, bound int, truncated *[]results.Truncation) []results.RankedFile {
	ix, docs := d.searchIndex()
	type ranked struct {
		path    string
		score   float64
		reasons []string
	}
	byPath := map[string]*ranked{}
	get := func(p string) *ranked {
		r := byPath[p]
		if r == nil {
			r = &ranked{path: p}
			byPath[p] = r
		}
		return r
	}
	keep := func(i int) bool {
		if docs[i].typ != "file" {
			return false
		}
		f := d.files[docs[i].path]
		return f != nil && !f.Generated && !f.Vendored
	}
	top := 0.0
	for _, hit := range ix.search(query, keep) {
		p := docs[hit.doc].path
		r := get(p)
		r.score = hit.score
		r.reasons = append(r.reasons, matchedReason(hit.matched))
		if selected[d.moduleOf(p)] {
			r.score *= 1.5
			r.reasons = append(r.reasons, "in a chosen module")
		}
		top = max(top, r.score)
	}
	if targetFile != "" {
		r := get(targetFile)
		r.score += top + 1
		r.reasons = append(r.reasons, "the target")
	}
	if targetMod != nil {
		for _, p := range targetMod.EntryPoints {
			if d.files[p] != nil {
				r := get(p)
				r.score += (top + 1) / 2
				r.reasons = append(r.reasons, "an entry point of the target's module")
			}
		}
	}
	list := make([]*ranked, 0, len(byPath))
	for _, r := range byPath {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return list[i].path < list[j].path
	})
	out := []results.RankedFile{}
	for _, r := range cut(list, bound, "files", "pass target, or call search_context with the task's words", truncated) {
		out = append(out, results.RankedFile{Path: r.path, Module: d.moduleOf(r.path), Score: round3(r.score), Reason: strings.Join(r.reasons, "; ")})
	}
	return out
}

// recentChanges merges the newest commits of the chosen modules.
func recentChanges(d *derived, h *analyze.History, list []*rankedModule, truncated *[]results.Truncation) []analyze.HistoryEntry {
	out := []analyze.HistoryEntry{}
	if h == nil {
		return out
	}
	seen := map[string]bool{}
	for _, r := range list {
		entries, _ := analyze.ModuleHistory(d.g, h, r.m.ID, taskChangesPerMod)
		for _, e := range entries {
			if !seen[e.SHA] {
				seen[e.SHA] = true
				out = append(out, e)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Date.Equal(out[j].Date) {
			return out[i].Date.After(out[j].Date)
		}
		return out[i].SHA < out[j].SHA
	})
	return cut(out, maxTaskChanges, "recentChanges", "call get_module_history for a module", truncated)
}
