package tools

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/shell"
)

// shopModules are the packages of the Go repository newShop makes, each
// with the packages it imports: store is used by three, orders by two,
// billing by one, and tools by none, though it is the biggest.
var shopModules = map[string][]string{
	"internal/store":   nil,
	"internal/orders":  {"internal/store"},
	"internal/billing": {"internal/store", "internal/orders"},
	"cmd/shop":         {"internal/store", "internal/orders", "internal/billing"},
	"internal/tools":   nil,
}

// newShop makes a Go repository of five packages, bootstraps its store
// through ctx_init (so the module docs are the bootstrap's own, with
// their placeholders), and adds 20 decisions, 20 learnings, 4 conventions
// and 2 incidents. The oldest decision and learning govern
// internal/billing, so that only a focus brings them into view.
func newShop(t *testing.T) (string, *Handlers) {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "go.mod", "module example.com/shop\n\ngo 1.22\n")
	gittest.WriteFile(t, dir, "README.md", "# shop\n\n<!-- badges -->\nA shop that sells tea.\n")
	for pkg, deps := range shopModules {
		name := filepath.Base(pkg)
		if pkg == "cmd/shop" {
			name = "main"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "// Package %s is the shop's %s.\npackage %s\n\n", name, filepath.Base(pkg), name)
		if len(deps) > 0 {
			b.WriteString("import (\n")
			for _, d := range deps {
				fmt.Fprintf(&b, "\t_ %q\n", "example.com/shop/"+d)
			}
			b.WriteString(")\n")
		}
		files := 3
		if pkg == "internal/tools" {
			files = 9
		}
		for i := 0; i < files; i++ {
			text := fmt.Sprintf("package %s\n\n// F%d does its part.\nfunc F%d() int { return %d }\n", name, i, i, i)
			if i == 0 {
				text = b.String() + fmt.Sprintf("\n// F%d does its part.\nfunc F%d() int { return %d }\n", i, i, i)
			}
			gittest.WriteFile(t, dir, fmt.Sprintf("%s/f%d.go", pkg, i), text)
		}
	}
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "Initial shop")

	svc := knowledge.NewService(dir)
	svc.Getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}
	svc.Engine = repo.NewEngine(repo.Options{Detect: repo.DetectSweep, SweepInterval: -1, NoTerminal: true})
	svc.RankWait = -1 // the ranked answer, however busy the machine
	t.Cleanup(func() { svc.Close(); svc.Engine.Close() })
	h := New(svc)
	ctx := context.Background()
	if res, err := h.CtxInit(ctx, &spec.CtxInitInput{Bootstrap: true, Count: 1}); err != nil || res.IsError {
		t.Fatalf("ctx_init bootstrap: %v %v", err, res)
	}

	for i := 1; i <= 20; i++ {
		paths := fmt.Sprintf("internal/orders/f%d.go", i%3)
		if i == 1 {
			paths = "internal/billing/**"
		}
		gittest.WriteFile(t, dir, fmt.Sprintf(".ai/decisions/2026-01-%02d-decision-%d.md", i, i), fmt.Sprintf(
			"---\nkind: decision\ntitle: Decision number %d about orders\nstatus: accepted\ndate: 2026-01-%02d\npaths:\n  - %s\n---\n\n## Context\n\nWhy %d.\n\n## Decision\n\nWe do thing %d in the orders code, and we keep doing it for good reasons.\n",
			i, i, paths, i, i))
		gittest.WriteFile(t, dir, fmt.Sprintf(".ai/learnings/learning-%d.md", i), fmt.Sprintf(
			"---\nkind: learning\ntitle: Learning number %d about the store\ndate: 2026-02-%02d\npaths:\n  - %s\n---\n\nThe store needs care %d: retries must back off, or they pile up.\n",
			i, i, paths, i))
	}
	for i := 1; i <= 4; i++ {
		gittest.WriteFile(t, dir, fmt.Sprintf(".ai/conventions/convention-%d.md", i), fmt.Sprintf(
			"---\nkind: convention\ntitle: Convention number %d\ndate: 2026-03-%02d\n---\n\nAlways write code the way convention %d says.\n", i, i, i))
	}
	for i := 1; i <= 2; i++ {
		gittest.WriteFile(t, dir, fmt.Sprintf(".ai/incidents/incident-%d.md", i), fmt.Sprintf(
			"---\nkind: incident\ntitle: Incident number %d\ndate: 2026-04-%02d\n---\n\nThe shop was down for %d hours.\n", i, i, i))
	}
	return dir, h
}

func briefText(t *testing.T, h *Handlers, ctx context.Context, in *spec.CtxBriefInput) string {
	t.Helper()
	res, err := h.CtxBrief(ctx, in)
	if err != nil || res.IsError {
		t.Fatalf("ctx_brief: %v %v", err, res)
	}
	return resultText(t, res)
}

// briefSections splits a brief into its sections' lines by heading.
func briefSections(brief string) (order []string, lines map[string][]string) {
	lines = map[string][]string{}
	current := ""
	for _, l := range strings.Split(brief, "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			current = h
			order = append(order, h)
			continue
		}
		if current != "" && l != "" {
			lines[current] = append(lines[current], l)
		}
	}
	return order, lines
}

var moreLine = regexp.MustCompile(`^\(\+(\d+) more(?:: (.*))?\)$`)

// accounted checks that a section shows or counts every one of its total
// items: the entries it lists plus its "+N more" add up.
func accounted(t *testing.T, budget int, heading string, lines []string, total int, more string) {
	t.Helper()
	shown, counted := 0, 0
	for _, l := range lines {
		if m := moreLine.FindStringSubmatch(l); m != nil {
			counted, _ = strconv.Atoi(m[1])
			if m[2] != more {
				t.Errorf("budget %d, %s: the more line points to %q, want %q", budget, heading, m[2], more)
			}
			continue
		}
		if strings.HasPrefix(l, "- ") {
			shown++
		}
	}
	if shown+counted != total {
		t.Errorf("budget %d, %s: %d shown + %d counted, want %d:\n%s", budget, heading, shown, counted, total, strings.Join(lines, "\n"))
	}
}

// With 20 decisions — more than brief.max_decisions — every section after
// Decisions still appears at every budget, each within its share: the
// brief fits the budget, and every section accounts for all its items.
func TestBriefKeepsEverySection(t *testing.T) {
	_, h := newShop(t)
	ctx := context.Background()
	want := []string{"Decisions", "Conventions", "Learnings & pitfalls", "Incidents", "Modules", "State"}
	for _, budget := range []int{500, 800, 1400, 3000, 20000} {
		b := budget
		brief := briefText(t, h, ctx, &spec.CtxBriefInput{BudgetTokens: &b})
		if len(brief) > budget*charsPerToken {
			t.Errorf("budget %d: %d characters, over %d", budget, len(brief), budget*charsPerToken)
		}
		order, lines := briefSections(brief)
		if strings.Join(order, "|") != strings.Join(want, "|") {
			t.Errorf("budget %d: sections %q, want %q:\n%s", budget, order, want, brief)
			continue
		}
		accounted(t, budget, "Decisions", lines["Decisions"], 20, "ctx_log")
		accounted(t, budget, "Conventions", lines["Conventions"], 4, "ctx_log kind: convention")
		accounted(t, budget, "Learnings & pitfalls", lines["Learnings & pitfalls"], 20, "ctx_log kind: learning")
		accounted(t, budget, "Incidents", lines["Incidents"], 2, "ctx_log kind: incident")
		accounted(t, budget, "Modules", lines["Modules"], len(shopModules), "ctx_log kind: architecture")
		if budget >= 1400 {
			// At the default budget each section shows entries, not only a count.
			for _, s := range want[:5] {
				if !strings.HasPrefix(lines[s][0], "- ") {
					t.Errorf("budget %d: %s shows no entry:\n%s", budget, s, brief)
				}
			}
		}
		if budget >= 3000 && !strings.Contains(brief, "\n(+8 more: ctx_log)\n") {
			// brief.max_decisions (12) holds even when the budget has room.
			t.Errorf("budget %d: no (+8 more: ctx_log) after twelve decisions:\n%s", budget, brief)
		}
	}
}

// The shares of the budget: a section that needs less than its share
// gives the rest to the others; none is left unused while one is cut.
func TestBriefShares(t *testing.T) {
	for _, c := range []struct {
		needs, weights []int
		room           int
		want           []int
	}{
		{[]int{100, 100}, []int{1, 1}, 1000, []int{100, 100}},
		{[]int{5000, 100, 100}, []int{1, 1, 1}, 1000, []int{800, 100, 100}},
		{[]int{5000, 5000}, []int{3, 1}, 1000, []int{750, 250}},
		{[]int{5000, 0, 5000}, []int{1, 1, 1}, 1000, []int{500, 0, 500}},
		{[]int{5000, 200, 5000}, []int{2, 2, 1}, 1000, []int{533, 200, 266}},
		{[]int{10, 10}, []int{1, 1}, 0, []int{0, 0}},
	} {
		got := shares(c.needs, c.weights, c.room)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("shares(%v, %v, %d) = %v, want %v", c.needs, c.weights, c.room, got, c.want)
		}
	}
}

// A focus on a module pulls in the module (first, with its overview), and
// its decisions and learnings, which would not make the cut otherwise:
// by path and by the module's name alike.
func TestBriefFocusPullsInTheModule(t *testing.T) {
	_, h := newShop(t)
	ctx := context.Background()
	budget := 900
	plain := briefText(t, h, ctx, &spec.CtxBriefInput{BudgetTokens: &budget})
	if strings.Contains(plain, "Decision number 1 about") || strings.Contains(plain, "Learning number 1 about") {
		t.Fatalf("the oldest decision and learning made the cut without a focus:\n%s", plain)
	}
	for _, f := range [][]string{{"internal/billing"}, {"internal/billing/f0.go"}, {"billing"}} {
		brief := briefText(t, h, ctx, &spec.CtxBriefInput{Focus: f, BudgetTokens: &budget})
		_, lines := briefSections(brief)
		if got := lines["Modules"]; len(got) == 0 || !strings.HasPrefix(got[0], "- internal/billing") {
			t.Errorf("focus %q: internal/billing is not the first module:\n%s", f, brief)
		}
		if got := lines["Decisions"]; len(got) == 0 || !strings.Contains(got[0], "Decision number 1 about") {
			t.Errorf("focus %q: the billing decision is not first:\n%s", f, brief)
		}
		if got := lines["Learnings & pitfalls"]; len(got) == 0 || !strings.Contains(got[0], "Learning number 1 about") {
			t.Errorf("focus %q: the billing learning is not first:\n%s", f, brief)
		}
		for _, s := range []string{"Conventions", "Incidents", "Modules"} {
			if len(lines[s]) == 0 {
				t.Errorf("focus %q: no %s section:\n%s", f, s, brief)
			}
		}
	}
}

// Modules come in the repo engine's order (analyze.RankModules on the
// engine's own analysis), by their short path, with "+N more" counting
// the rest; brief.max_modules bounds them.
func TestBriefRanksModules(t *testing.T) {
	dir, h := newShop(t)
	ctx := context.Background()
	snap, err := h.svc.Engine.Snapshot(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range analyze.RankModules(snap.Graph) {
		if _, ok := shopModules[m.ID]; ok {
			want = append(want, m.ID)
		}
	}
	// The packages everything imports lead; the biggest, which nothing
	// imports, comes last.
	if len(want) != len(shopModules) || !slices.Contains(want[:2], "internal/store") || !slices.Contains(want[:2], "internal/orders") || want[len(want)-1] != "internal/tools" {
		t.Fatalf("the engine's ranking is not what the shop's imports say: %v", want)
	}
	brief := briefText(t, h, ctx, &spec.CtxBriefInput{})
	_, lines := briefSections(brief)
	var got []string
	for _, l := range lines["Modules"] {
		name, _, _ := strings.Cut(strings.TrimPrefix(l, "- "), " — ")
		got = append(got, name)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("modules %q, want the engine's order %q:\n%s", got, want, brief)
	}

	gittest.WriteFile(t, dir, ".ai/kontext.toml", readText(t, dir, ".ai/kontext.toml")+"\n[brief]\nmax_modules = 2\n")
	brief = briefText(t, h, ctx, &spec.CtxBriefInput{})
	_, lines = briefSections(brief)
	summary := func(id string) string { return "Package " + path.Base(id) + " is the shop's " + path.Base(id) + "." }
	if strings.Join(lines["Modules"], "\n") != fmt.Sprintf("- %s — %s\n- %s — %s\n(+3 more: ctx_log kind: architecture)",
		want[0], summary(want[0]), want[1], summary(want[1])) {
		t.Errorf("max_modules = 2:\n%s", brief)
	}
}

// The bootstrap's placeholders for unwritten sections never show: not as
// the About line, not as a module's summary; the README's comment is not
// its first paragraph either.
func TestBriefHidesPlaceholders(t *testing.T) {
	dir, h := newShop(t)
	ctx := context.Background()
	// A module doc the bootstrap wrote, without a summary yet.
	doc := filepath.Join(".ai", "architecture", "modules", "internal-tools.md")
	text := readText(t, dir, doc)
	text = regexp.MustCompile(`(?m)^summary:.*\n`).ReplaceAllString(text, "")
	gittest.WriteFile(t, dir, doc, text)
	brief := briefText(t, h, ctx, &spec.CtxBriefInput{Focus: []string{"internal/tools"}})
	if strings.Contains(brief, "<!--") || strings.Contains(brief, "kontext:") {
		t.Errorf("a placeholder shows:\n%s", brief)
	}
	if !strings.Contains(brief, "\nAbout: A shop that sells tea.\n") {
		t.Errorf("About is not the README's first paragraph:\n%s", brief)
	}
	_, lines := briefSections(brief)
	if got := lines["Modules"]; len(got) == 0 || got[0] != "- internal/tools" {
		t.Errorf("a module without a summary says more than its path:\n%s", brief)
	}
	// Once the purpose task wrote it, About is the Purpose.
	if _, err := h.CtxInitSubmit(ctx, &spec.CtxInitSubmitInput{TaskID: "purpose", Overview: ptr("The shop sells tea to the people of the town.\n\nIt has a store, orders and billing.")}); err != nil {
		t.Fatal(err)
	}
	brief = briefText(t, h, ctx, &spec.CtxBriefInput{})
	if !strings.Contains(brief, "\nAbout: The shop sells tea to the people of the town.\n") {
		t.Errorf("About is not the written Purpose:\n%s", brief)
	}
}

// From a shell, the brief points to commands, not tools.
func TestBriefFromAShell(t *testing.T) {
	_, h := newShop(t)
	budget := 900
	brief := briefText(t, h, shell.With(context.Background()), &spec.CtxBriefInput{BudgetTokens: &budget})
	for _, want := range []string{"more: kontext log)", "more: kontext log --kind learning)"} {
		if !strings.Contains(brief, want) {
			t.Errorf("no %q:\n%s", want, brief)
		}
	}
	if strings.Contains(brief, "ctx_") && !strings.Contains(brief, "ctx_init (the kontext-init prompt)") {
		t.Errorf("a tool name in a shell's brief:\n%s", brief)
	}
}

func ptr[T any](v T) *T { return &v }

// Search never finds or quotes the bootstrap's placeholders: the module
// docs are found by what they say, and no snippet holds a comment.
func TestSearchHidesPlaceholders(t *testing.T) {
	_, h := newShop(t)
	ctx := context.Background()
	for _, q := range []string{"billing", "task module writes this section", "kontext facts start"} {
		res, err := h.CtxSearch(ctx, &spec.CtxSearchInput{Query: q, Limit: 50, BudgetTokens: 100000})
		if err != nil || res.IsError {
			t.Fatalf("ctx_search %q: %v %v", q, err, res)
		}
		text := resultText(t, res)
		if strings.Contains(text, "<!--") || strings.Contains(text, "kontext:") || strings.Contains(text, "ctx_init) writes") {
			t.Errorf("ctx_search %q quotes a placeholder:\n%s", q, text)
		}
		if q == "billing" && !strings.Contains(text, "<kx:internal-billing>") {
			t.Errorf("ctx_search billing does not find the module doc:\n%s", text)
		}
	}
}

// A process whose engine has not answered yet ranks the modules by the
// order an earlier one found (kept under .git/kontext/), and by path
// when none did.
func TestBriefRanksModulesFromTheLastOrder(t *testing.T) {
	dir, h := newShop(t)
	ctx := context.Background()
	modulesOf := func(h *Handlers) []string {
		_, lines := briefSections(briefText(t, h, ctx, &spec.CtxBriefInput{}))
		var got []string
		for _, l := range lines["Modules"] {
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "- "), " — ")
			got = append(got, name)
		}
		return got
	}
	ranked := modulesOf(h)
	// A second service on the same repository, whose engine cannot
	// answer (closed): the order on disk.
	later := func() *Handlers {
		svc := knowledge.NewService(dir)
		svc.Getenv = h.svc.Getenv
		svc.Engine = repo.NewEngine(repo.Options{NoTerminal: true})
		svc.Engine.Close()
		svc.RankWait = -1
		t.Cleanup(func() { svc.Close() })
		return New(svc)
	}
	if got := modulesOf(later()); strings.Join(got, " ") != strings.Join(ranked, " ") {
		t.Errorf("from the order on disk: %q, want %q", got, ranked)
	}
	o, _ := h.svc.Open(ctx)
	if err := os.Remove(filepath.Join(o.State.Dir, "worktrees", o.State.Worktree, "module-rank.json")); err != nil {
		t.Fatal(err)
	}
	if got := modulesOf(later()); strings.Join(got, " ") != "cmd/shop internal/billing internal/orders internal/store internal/tools" {
		t.Errorf("with no order known: %q, want path order", got)
	}
}
