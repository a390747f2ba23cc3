package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// Limits of the summary's lists; --json has everything.
const (
	maxLanguages   = 10
	maxModules     = 30
	maxEntryPoints = 15
	maxExternal    = 15
	maxIssues      = 10
	maxConventions = 20
	maxDecisions   = 20
	maxActive      = 8
	maxCycleShown  = 6
)

// Summary writes the repository at a glance: languages, package managers
// and workspaces, modules with their basis, roles and size, entry points,
// the most used external dependencies, cycles and layering violations,
// conventions, decisions and git activity.
func Summary(out io.Writer, snap *repo.Snapshot) error {
	w := &writer{w: out}
	g := snap.Graph
	s := g.Summary

	w.printf("%s — %s\n", s.Name, snap.Root)
	how := "from scratch"
	if snap.Incremental {
		how = "incrementally (from a previous analysis)"
	}
	head := ""
	if g.Head != "" {
		head = ", commit " + g.Head[:min(12, len(g.Head))]
	}
	w.printf("%s, %s (%s source), %s lines%s; analysed %s in %s\n",
		plural(len(g.Modules), "module", "modules"), plural(s.Files, "file", "files"), count(s.SourceFiles), count(s.Lines), head, how, snap.Took.Round(time.Millisecond))

	w.section("Languages")
	var rows [][]string
	for i, l := range s.Languages {
		if i == maxLanguages {
			break
		}
		rows = append(rows, []string{l.Language, plural(l.Files, "file", "files"), count(l.Lines) + " lines"})
	}
	w.table(rows)
	w.more(min(len(s.Languages), maxLanguages), len(s.Languages), "languages")
	if len(s.Languages) == 0 {
		w.printf("  none recognised\n")
	}

	w.section("Package managers and workspaces")
	rows = [][]string{{"package managers", orNone(s.PackageManagers)}}
	for _, ws := range g.Workspaces {
		if len(ws.Members) == 0 {
			rows = append(rows, []string{ws.Tool + " workspace", ws.Manifest + ": no member found in the tree"})
			continue
		}
		rows = append(rows, []string{ws.Tool + " workspace", fmt.Sprintf("%s (%s): %s", ws.Manifest, plural(len(ws.Members), "member", "members"), clipList(ws.Members, 6))})
	}
	if len(g.Workspaces) == 0 {
		rows = append(rows, []string{"workspaces", "none"})
	}
	manifests := map[string]int{}
	for _, m := range g.Manifests {
		manifests[m.Ecosystem]++
	}
	var eco []string
	for _, k := range sortedKeys(manifests) {
		eco = append(eco, fmt.Sprintf("%s %d", k, manifests[k]))
	}
	rows = append(rows, []string{"manifests", orNone(eco)})
	w.table(rows)

	modules(w, g)
	entryPoints(w, g)
	external(w, g)
	structure(w, g)
	conventions(w, g)
	decisions(w, g)
	activity(w, g)
	return w.err
}

func modules(w *writer, g *model.Graph) {
	w.section("Modules (%s)", count(len(g.Modules)))
	// The engine's ranking, as the tools list them: the core first.
	mods := analyze.RankModules(g)
	rows := [][]string{{"MODULE", "BASIS", "LANGUAGE", "FILES", "LINES", "ROLES"}}
	for i, m := range mods {
		if i == maxModules {
			break
		}
		var roles []string
		for _, r := range m.Roles {
			roles = append(roles, fmt.Sprintf("%s %s", r.Role, conf(r.Confidence)))
		}
		rows = append(rows, []string{m.ID, string(m.Basis), dash(m.Language), count(m.Files), count(m.Lines), dash(strings.Join(roles, ", "))})
	}
	w.table(rows)
	w.more(min(len(mods), maxModules), len(mods), "modules")
}

func entryPoints(w *writer, g *model.Graph) {
	// Where execution starts first; test entry points are many and alike,
	// so they are counted.
	var main []model.EntryPoint
	tests := 0
	for _, ep := range analyze.RankEntryPoints(g, g.EntryPoints) {
		if ep.Type == "test" {
			tests++
		} else {
			main = append(main, ep)
		}
	}
	w.section("Entry points (%s, and %s)", count(len(main)), plural(tests, "test", "tests"))
	var rows [][]string
	for i, ep := range main {
		if i == maxEntryPoints {
			break
		}
		rows = append(rows, []string{ep.Path, ep.Type, "module " + ep.Module, conf(ep.Confidence)})
	}
	w.table(rows)
	w.more(min(len(main), maxEntryPoints), len(main), "entry points")
	if len(main) == 0 {
		w.printf("  none found\n")
	}
}

func external(w *writer, g *model.Graph) {
	ext := make([]*model.External, len(g.External))
	for i := range g.External {
		ext[i] = &g.External[i]
	}
	// The most used first: by modules using them, declared ones before
	// merely imported ones.
	sort.SliceStable(ext, func(i, j int) bool {
		if len(ext[i].UsedBy) != len(ext[j].UsedBy) {
			return len(ext[i].UsedBy) > len(ext[j].UsedBy)
		}
		if (len(ext[i].Manifests) > 0) != (len(ext[j].Manifests) > 0) {
			return len(ext[i].Manifests) > 0
		}
		return ext[i].Name < ext[j].Name
	})
	w.section("External dependencies (%s, most used first)", count(len(ext)))
	var rows [][]string
	for i, e := range ext {
		if i == maxExternal {
			break
		}
		kind := ""
		if e.Dev {
			kind = "dev"
		}
		rows = append(rows, []string{e.Name, dash(e.Version), e.Ecosystem, dash(kind), "used by " + plural(len(e.UsedBy), "module", "modules")})
	}
	w.table(rows)
	w.more(min(len(ext), maxExternal), len(ext), "dependencies")
	if len(ext) == 0 {
		w.printf("  none\n")
	}
}

func structure(w *writer, g *model.Graph) {
	w.section("Dependency cycles (%s)", count(len(g.Cycles)))
	for i, c := range g.Cycles {
		if i == maxIssues {
			break
		}
		if len(c.Modules) > maxCycleShown {
			// A large component is named by its first modules and its size.
			w.printf("  %s → … (%s modules in the cycle)\n", strings.Join(c.Modules[:maxCycleShown], " → "), count(len(c.Modules)))
			continue
		}
		w.printf("  %s → %s\n", strings.Join(c.Modules, " → "), c.Modules[0])
	}
	w.more(min(len(g.Cycles), maxIssues), len(g.Cycles), "cycles")
	if len(g.Cycles) == 0 {
		w.printf("  none\n")
	}
	w.section("Layering violations (%s)", count(len(g.Violations)))
	var rows [][]string
	for i, v := range g.Violations {
		if i == maxIssues {
			break
		}
		rows = append(rows, []string{v.From + " → " + v.To, v.Rule, conf(v.Confidence)})
	}
	w.table(rows)
	w.more(min(len(g.Violations), maxIssues), len(g.Violations), "violations")
	if len(g.Violations) == 0 {
		w.printf("  none\n")
	}
}

func conventions(w *writer, g *model.Graph) {
	w.section("Conventions (%s)", count(len(g.Conventions)))
	var rows [][]string
	for i, c := range g.Conventions {
		if i == maxConventions {
			break
		}
		rows = append(rows, []string{c.Category, clip(c.Statement, 80), fmt.Sprintf("%s, %s", conf(c.Confidence), plural(c.Samples, "sample", "samples"))})
	}
	w.table(rows)
	w.more(min(len(g.Conventions), maxConventions), len(g.Conventions), "conventions")
	if len(g.Conventions) == 0 {
		w.printf("  none with enough samples\n")
	}
}

func decisions(w *writer, g *model.Graph) {
	w.section("Decisions (%s)", count(len(g.Decisions)))
	var rows [][]string
	for i, d := range g.Decisions {
		if i == maxDecisions {
			break
		}
		rows = append(rows, []string{d.ID, d.Status, d.Origin, clip(d.Title, 72), d.Source})
	}
	w.table(rows)
	w.more(min(len(g.Decisions), maxDecisions), len(g.Decisions), "decisions")
	if len(g.Decisions) == 0 {
		w.printf("  none found\n")
	}
}

func activity(w *writer, g *model.Graph) {
	if g.Git == nil {
		w.section("Git activity")
		w.printf("  not a git work tree\n")
		return
	}
	gs := g.Git
	if gs.WindowEnd.IsZero() {
		w.section("Git activity (last %d days)", gs.WindowDays)
	} else {
		w.section("Git activity (%d days up to %s, HEAD's commit date)", gs.WindowDays, gs.WindowEnd.Format("2006-01-02"))
	}
	if gs.Commits == 0 {
		w.printf("  no commits in the window\n")
		return
	}
	w.printf("  %s by %s, %s to %s\n", plural(gs.Commits, "commit", "commits"), plural(gs.Contributors, "contributor", "contributors"),
		gs.FirstCommit.Format("2006-01-02"), gs.LastCommit.Format("2006-01-02"))
	var active []*model.Module
	for i := range g.Modules {
		if m := &g.Modules[i]; m.Git != nil && m.Git.Changes > 0 {
			active = append(active, m)
		}
	}
	sort.SliceStable(active, func(i, j int) bool {
		if active[i].Git.Changes != active[j].Git.Changes {
			return active[i].Git.Changes > active[j].Git.Changes
		}
		return active[i].ID < active[j].ID
	})
	rows := [][]string{{"MOST CHANGED", "CHANGES", "RECENT", "FREQUENCY", "LAST CHANGED", "CONTRIBUTORS"}}
	for i, m := range active {
		if i == maxActive {
			break
		}
		rows = append(rows, []string{m.ID, count(m.Git.Changes), count(m.Git.RecentChanges), m.Git.ChangeFrequency,
			m.Git.LastChanged.Format("2006-01-02"), count(m.Git.Contributors)})
	}
	w.table(rows)
	w.more(min(len(active), maxActive), len(active), "changed modules")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clipList(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", … (%d more)", len(xs)-n)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// clip shortens s to n runes, with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
