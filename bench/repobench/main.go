//go:build linux

// Command repobench measures the repo engine (internal/repo) on large
// trees: the Go standard library ($(go env GOROOT)/src, about 11,500
// files), an npm monorepo made of real packages installed from the
// registry (about 12,600 JavaScript and TypeScript files; see npm.go for
// the choice), and a real Go repository (Prometheus from the module
// proxy, or -gorepo; see golist.go). It is run by `make bench` after mcpbench, never by go
// test.
//
// Every measurement runs in a child process of its own (this program
// re-executed; child.go), so that each cold analysis starts with an empty
// heap and no memoised verdicts, and so that its peak memory is the child's
// VmHWM. It measures:
//
//   - cold analysis: a new engine's first Snapshot of the tree (median of
//     -runs children; the operating system's file cache is warm after the
//     first, as it is for an agent working on a checked-out tree);
//   - warm call: Snapshot with nothing changed (p50 and p99 of -calls);
//   - the secret filter: rounds of warm repo tool calls through an MCP
//     session, by a server without the output filter and one with the
//     filter kontext mcp uses, taking turns (-filter-rounds); its cost is
//     the median difference as a percentage;
//   - one-file re-analysis: a file edited (a function appended), then
//     Snapshot (p50 of -edits edits, each of another file), on a copy of
//     the tree;
//   - restart: a new process on a tree whose persistent cache an earlier
//     one wrote;
//   - beside the cold analysis of the Go trees, `go list -e -json ./...`
//     on the same tree (median of -runs, after a warm-up run), and the
//     ratio of the two: the cold analysis must stay the faster.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kontext-dev/kontext/bench/internal/measure"
)

// The goals of issue 4 on this two-core machine.
const (
	goalColdGOROOT   = 5 * time.Second
	goalColdMemory   = 500 << 10 // KiB
	goalWarmP50      = 5 * time.Millisecond
	goalOneFileP50   = 100 * time.Millisecond
	goalFilterCost   = 5.0 // percent of a warm repo tool call
	defaultRuns      = 3
	defaultWarmCalls = 1000
	defaultEdits     = 20
	defaultFilter    = 200
)

type config struct {
	runs, calls, edits int
	filterRounds       int
	only               map[string]bool
	npmCache           string
	goRepo             string
	jsonOutput         bool
}

func main() {
	if spec := os.Getenv(childEnv); spec != "" {
		runChild(spec)
		return
	}
	var cfg config
	var only string
	flag.IntVar(&cfg.runs, "runs", defaultRuns, "cold analyses per tree (the median is reported)")
	flag.IntVar(&cfg.calls, "calls", defaultWarmCalls, "warm calls measured")
	flag.IntVar(&cfg.edits, "edits", defaultEdits, "one-file edits measured")
	flag.IntVar(&cfg.filterRounds, "filter-rounds", defaultFilter, "rounds of warm repo tool calls with and without the secret filter")
	flag.StringVar(&only, "only", "", "comma list of trees: goroot,npm,gorepo")
	flag.StringVar(&cfg.goRepo, "gorepo", "", "the Go repository measured beside go list (default: "+goRepoModule+" from the module cache)")
	flag.StringVar(&cfg.npmCache, "npm-cache", "", "where the npm packages are installed once (default: the user cache directory)")
	flag.BoolVar(&cfg.jsonOutput, "json", false, "print the results as JSON on stdout (progress stays on stderr)")
	flag.Parse()
	if cfg.runs < 1 || cfg.calls < 1 || cfg.edits < 1 || cfg.filterRounds < 1 {
		fatalf("-runs, -calls, -edits and -filter-rounds must be at least 1")
	}
	if only != "" {
		cfg.only = map[string]bool{}
		for _, t := range strings.Split(only, ",") {
			cfg.only[strings.TrimSpace(t)] = true
		}
	}

	tmp, err := os.MkdirTemp("", "repobench-")
	if err != nil {
		fatalf("temp dir: %v", err)
	}
	defer os.RemoveAll(tmp)

	loadBefore := measure.Load1()
	var trees []*tree
	if cfg.only == nil || cfg.only["goroot"] {
		trees = append(trees, gorootTree())
	}
	if cfg.only == nil || cfg.only["npm"] {
		trees = append(trees, npmTree(cfg, tmp))
	}
	if cfg.only == nil || cfg.only["gorepo"] {
		trees = append(trees, goRepoTree(cfg))
	}
	for _, t := range trees {
		if t.skipped == "" {
			measureTree(t, cfg, tmp)
		}
	}
	load := [2]string{loadBefore, measure.Load1()}
	goals := evaluate(trees)
	if cfg.jsonOutput {
		out, _ := json.MarshalIndent(map[string]any{"go": runtime.Version(), "cpus": runtime.NumCPU(), "load": load, "trees": trees, "goals": goals}, "", "  ")
		fmt.Println(string(out))
		return
	}
	print(cfg, load, trees, goals)
}

// tree is one tree measured, and what was measured on it.
type tree struct {
	Name    string `json:"name"`
	Root    string `json:"root"`
	About   string `json:"about"`
	skipped string
	// coldOnly trees are measured cold and beside go list only: they may
	// be read-only (the module cache), and their warm and edit figures
	// would repeat those of the large trees.
	coldOnly bool
	// goList marks a Go tree go list is measured on, with goEnv.
	goList bool
	goEnv  []string

	Files   int          `json:"files"`
	Cold    []childStats `json:"cold"`
	Warm    *childStats  `json:"warm,omitempty"`
	Filter  *filterStats `json:"filter,omitempty"`
	Edit    *childStats  `json:"edit,omitempty"`
	Restart *childStats  `json:"restart,omitempty"`
	// GoList are the times of `go list -e -json ./...` on the same tree,
	// GoPackages the packages it listed.
	GoList     []time.Duration `json:"go_list_ns,omitempty"`
	GoPackages int             `json:"go_packages,omitempty"`
	Failed     string          `json:"failed,omitempty"`
	SkippedWhy string          `json:"skipped,omitempty"`
}

func measureTree(t *tree, cfg config, tmp string) {
	for i := 0; i < cfg.runs; i++ {
		progressf("%s: cold analysis %d of %d", t.Name, i+1, cfg.runs)
		s, err := child(childSpec{Mode: "cold", Root: t.Root})
		if err != nil {
			t.Failed = err.Error()
			return
		}
		t.Cold = append(t.Cold, s)
		t.Files = s.Files
	}
	if t.goList {
		measureGoList(t, cfg.runs)
	}
	if t.coldOnly || t.Failed != "" {
		return
	}
	progressf("%s: %d warm calls", t.Name, cfg.calls)
	warm, err := child(childSpec{Mode: "warm", Root: t.Root, N: cfg.calls})
	if err != nil {
		t.Failed = err.Error()
		return
	}
	t.Warm = &warm
	progressf("%s: %d rounds of repo tool calls, with and without the secret filter", t.Name, cfg.filterRounds)
	filter, err := child(childSpec{Mode: "filter", Root: t.Root, N: cfg.filterRounds})
	if err != nil {
		t.Failed = err.Error()
		return
	}
	t.Filter = filter.Filter

	// Edits and the persistent cache need a tree of our own.
	progressf("%s: copying the tree for the edits", t.Name)
	work := filepath.Join(tmp, t.Name)
	if err := copyTree(t.Root, work); err != nil {
		t.Failed = "copy: " + err.Error()
		return
	}
	defer os.RemoveAll(work)
	progressf("%s: %d one-file edits", t.Name, cfg.edits)
	edit, err := child(childSpec{Mode: "edit", Root: work, N: cfg.edits})
	if err != nil {
		t.Failed = err.Error()
		return
	}
	t.Edit = &edit
	progressf("%s: restart from the persistent cache", t.Name)
	cache := filepath.Join(tmp, t.Name+"-cache")
	var restart childStats
	if _, err = child(childSpec{Mode: "save", Root: work, CacheDir: cache}); err == nil {
		restart, err = child(childSpec{Mode: "restart", Root: work, CacheDir: cache})
	}
	if err != nil {
		t.Failed = err.Error()
		return
	}
	t.Restart = &restart
}

// goal is one check against a target.
type goal struct {
	Name   string  `json:"goal"`
	Value  float64 `json:"value"`
	Target float64 `json:"target"`
	Unit   string  `json:"unit"`
	Pass   *bool   `json:"pass"` // nil: not measured
}

func evaluate(trees []*tree) []goal {
	check := func(name string, value, target float64, unit string, measured bool) goal {
		g := goal{Name: name, Value: value, Target: target, Unit: unit}
		if measured {
			pass := value < target
			g.Pass = &pass
		}
		return g
	}
	var goals []goal
	for _, t := range trees {
		// The goal is on a repository with dependencies, as agents work
		// in; go list of the standard library loads no module, and its
		// ratio is printed for comparison only.
		if t.Name == "gorepo" && len(t.GoList) > 0 && len(t.Cold) > 0 {
			cold, _ := medianCold(t)
			goals = append(goals, check("cold "+t.Name+" ÷ go list -e -json ./...", ratio(cold, medianDuration(t.GoList)), 1, "×", true))
		}
		if t.Name != "goroot" {
			continue
		}
		cold, peak := medianCold(t)
		measured := len(t.Cold) > 0
		goals = append(goals,
			check("cold GOROOT/src", seconds(cold), seconds(goalColdGOROOT), "s", measured),
			check("cold GOROOT/src peak memory", float64(peak)/1024, goalColdMemory/1024, "MiB", measured),
			check("warm call p50", ms(warmP50(t)), ms(goalWarmP50), "ms", t.Warm != nil),
			check("one-file re-analysis p50", ms(editP50(t)), ms(goalOneFileP50), "ms", t.Edit != nil))
	}
	for _, t := range trees {
		if t.Filter != nil {
			goals = append(goals, check("secret filter cost, "+t.Name, t.Filter.Cost, goalFilterCost, "%", true))
		}
	}
	return goals
}

func print(cfg config, load [2]string, trees []*tree, goals []goal) {
	fmt.Printf("repobench: the repo engine on large trees; cold analysis median of %d processes, %d warm calls, %d one-file edits\n", cfg.runs, cfg.calls, cfg.edits)
	fmt.Printf("go %s, %d CPUs, load average %s before, %s after\n\n", runtime.Version(), runtime.NumCPU(), load[0], load[1])
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, t := range trees {
		fmt.Fprintf(tw, "%s\t", t.Name)
	}
	fmt.Fprintln(tw)
	row := func(label string, cell func(*tree) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, t := range trees {
			switch {
			case t.skipped != "":
				fmt.Fprint(tw, "skipped\t")
			case t.Failed != "" && cell(t) == "-":
				fmt.Fprint(tw, "failed\t")
			default:
				fmt.Fprintf(tw, "%s\t", cell(t))
			}
		}
		fmt.Fprintln(tw)
	}
	row("files", func(t *tree) string { return count(t.Files) })
	row("cold analysis (median)", func(t *tree) string { d, _ := medianCold(t); return formatDuration(d) })
	row("cold analysis (min – max)", func(t *tree) string {
		if len(t.Cold) == 0 {
			return "-"
		}
		var ds []time.Duration
		for _, c := range t.Cold {
			ds = append(ds, c.Took)
		}
		return formatDuration(slices.Min(ds)) + " – " + formatDuration(slices.Max(ds))
	})
	row("go list -e -json ./... (median)", func(t *tree) string { return formatDuration(medianDuration(t.GoList)) })
	row("cold analysis ÷ go list", func(t *tree) string {
		cold, _ := medianCold(t)
		if len(t.GoList) == 0 || cold == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", ratio(cold, medianDuration(t.GoList)))
	})
	row("packages go list listed", func(t *tree) string { return count(t.GoPackages) })
	row("cold peak RSS (VmHWM, max)", func(t *tree) string { _, p := medianCold(t); return formatKiB(p) })
	row("warm call p50", func(t *tree) string { return formatDuration(warmP50(t)) })
	row("warm call p99", func(t *tree) string {
		if t.Warm == nil {
			return "-"
		}
		return formatDuration(t.Warm.P99)
	})
	row("repo tool calls, a round (p50)", func(t *tree) string {
		if t.Filter == nil {
			return "-"
		}
		return fmt.Sprintf("%d tools, %s: %s wall, %s CPU", t.Filter.Tools, formatBytes(t.Filter.Bytes), formatDuration(t.Filter.Off), formatDuration(t.Filter.OffCPU))
	})
	row("… with the secret filter (p50)", func(t *tree) string {
		if t.Filter == nil {
			return "-"
		}
		return fmt.Sprintf("%s wall, %s CPU", formatDuration(t.Filter.On), formatDuration(t.Filter.OnCPU))
	})
	row("secret filter cost (median, CPU; wall)", func(t *tree) string {
		if t.Filter == nil {
			return "-"
		}
		return fmt.Sprintf("%+.1f %%; %+.1f %%", t.Filter.Cost, t.Filter.WallCost)
	})
	row("one-file re-analysis p50", func(t *tree) string { return formatDuration(editP50(t)) })
	row("one-file re-analysis max", func(t *tree) string {
		if t.Edit == nil {
			return "-"
		}
		return formatDuration(t.Edit.Max)
	})
	row("restart from the cache", func(t *tree) string {
		if t.Restart == nil {
			return "-"
		}
		return formatDuration(t.Restart.Took)
	})
	row("files parsed on restart", func(t *tree) string {
		if t.Restart == nil {
			return "-"
		}
		return fmt.Sprint(t.Restart.FilesParsed)
	})
	row("change detection", func(t *tree) string {
		if len(t.Cold) == 0 {
			return "-"
		}
		return t.Cold[0].Mode
	})
	tw.Flush()
	fmt.Println()
	for _, t := range trees {
		note := t.About
		if t.skipped != "" {
			note += "; SKIPPED: " + t.skipped
		}
		if t.Failed != "" {
			note += "; FAILED: " + t.Failed
		}
		fmt.Printf("  %-7s %s\n", t.Name, note)
	}
	if len(goals) > 0 {
		fmt.Println("\ngoals")
		tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		for _, g := range goals {
			value, verdict := "n/a", "n/a (not measured)"
			if g.Pass != nil {
				value, verdict = fmt.Sprintf("%.*f %s", decimals(g.Value), g.Value, g.Unit), "MISS"
				if *g.Pass {
					verdict = "PASS"
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\tgoal < %g %s\t%s\n", g.Name, value, g.Target, g.Unit, verdict)
		}
		tw.Flush()
	}
}

func decimals(v float64) int {
	switch {
	case v < 1:
		return 3
	case v < 100:
		return 2
	}
	return 0
}

func medianCold(t *tree) (time.Duration, int64) {
	if len(t.Cold) == 0 {
		return 0, 0
	}
	var ds []time.Duration
	var peak int64
	for _, c := range t.Cold {
		ds = append(ds, c.Took)
		peak = max(peak, c.PeakRSSKiB)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], peak
}

func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func warmP50(t *tree) time.Duration {
	if t.Warm == nil {
		return 0
	}
	return t.Warm.P50
}

func editP50(t *tree) time.Duration {
	if t.Edit == nil {
		return 0
	}
	return t.Edit.P50
}

func gorootTree() *tree {
	t := &tree{Name: "goroot", About: "the Go standard library: $(go env GOROOT)/src, not a git work tree (listed by the .gitignore-honouring walk)", goList: true}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.skipped = "go env GOROOT: " + err.Error()
		return t
	}
	t.Root = filepath.Join(strings.TrimSpace(string(out)), "src")
	return t
}

func progressf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "repobench: "+format+"\n", args...)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "repobench: "+format+"\n", args...)
	os.Exit(1)
}
