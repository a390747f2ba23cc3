package repo

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"sort"
	"strings"
	"testing"
)

// TestIncrementalEqualsScratch edits a repository at random between calls
// — source edits that add and drop imports and exports, edits that change
// no fact, new files in new directories, deletions, renames, manifest,
// tsconfig and ADR changes, .gitignore changes, commits — and checks after
// every step that the engine's answer equals an analysis from scratch.
func TestIncrementalEqualsScratch(t *testing.T) {
	steps := 30
	if testing.Short() {
		steps = 10
	}
	for _, mode := range []struct {
		name   string
		detect DetectMode
		seed   uint64
	}{{"watch", DetectAuto, 1}, {"sweep", DetectSweep, 2}, {"watch-2", DetectAuto, 3}} {
		t.Run(mode.name, func(t *testing.T) {
			f := newRepo(t, layeredApp)
			opts := testOptions(t)
			opts.Detect, opts.SweepInterval = mode.detect, -1
			e := newEngine(t, opts)
			rng := rand.New(rand.NewPCG(mode.seed, 7))
			snap := snapshot(t, e, f.dir)
			for step := 0; step < steps; step++ {
				var did []string
				for n := 1 + rng.IntN(3); n > 0; n-- {
					did = append(did, randomEdit(t, rng, f, snap, step))
				}
				before, _ := json.Marshal(snap.Graph)
				next := snapshot(t, e, f.dir)
				what := fmt.Sprintf("step %d (seed %d: %s)", step, mode.seed, strings.Join(did, "; "))
				sameAsScratch(t, next, opts, what)
				// Snapshots are immutable: the update wrote into new parts.
				if after, _ := json.Marshal(snap.Graph); string(after) != string(before) {
					t.Fatalf("%s: the update changed the previous snapshot", what)
				}
				snap = next
			}
			st := e.Stats()
			if st.FullScans != 1 {
				t.Fatalf("%d full scans: the updates were not incremental", st.FullScans)
			}
		})
	}
}

func randomEdit(t *testing.T, rng *rand.Rand, f *repoFixture, snap *Snapshot, step int) string {
	t.Helper()
	var sources []string
	for _, file := range snap.Graph.Files {
		if strings.HasSuffix(file.Path, ".ts") {
			if _, err := os.Stat(f.path(file.Path)); err == nil {
				sources = append(sources, file.Path)
			}
		}
	}
	sort.Strings(sources)
	pick := func() string { return sources[rng.IntN(len(sources))] }
	rel := func(from, to string) string {
		r := strings.Repeat("../", strings.Count(path.Dir(from), "/")+1) + strings.TrimSuffix(to, ".ts")
		if !strings.HasPrefix(path.Dir(from), "src") {
			r = "../" + r
		}
		return r
	}
	switch op := rng.IntN(13); op {
	case 12: // a directory renamed or deleted (its tracked files still in git's index)
		d := path.Dir(pick())
		if d == "." || d == "src" {
			return "nothing"
		}
		if rng.IntN(2) == 0 {
			f.remove(d)
			return "delete directory " + d
		}
		f.rename(d, fmt.Sprintf("%s-moved-%d", d, step))
		return "rename directory " + d
	case 0, 1: // append an import of another file and an export
		p, q := pick(), pick()
		body, _ := os.ReadFile(f.path(p))
		f.write(map[string]string{p: fmt.Sprintf("import { x%d } from '%s';\n", step, rel(p, q)) + string(body) + fmt.Sprintf("\nexport const value%d = %d;\n", step, step)})
		return "import in " + p
	case 2: // drop the first line (often an import)
		p := pick()
		body, _ := os.ReadFile(f.path(p))
		lines := strings.SplitN(string(body), "\n", 2)
		if len(lines) == 2 {
			f.write(map[string]string{p: lines[1]})
		}
		return "drop a line of " + p
	case 3: // a new file in a new directory
		dir := []string{"src/features", "src/adapters/http", "src/repository", "lib/shared"}[rng.IntN(4)]
		p := fmt.Sprintf("%s/f%d/mod%d.ts", dir, step, step)
		f.write(map[string]string{p: fmt.Sprintf("import { OrderService } from '%s';\nimport axios from 'axios';\n\nexport class Feature%d extends OrderService {}\n", rel(p, "src/services/order-service.ts"), step)})
		return "add " + p
	case 4: // delete
		if len(sources) > 4 {
			p := pick()
			f.remove(p)
			return "delete " + p
		}
		return "nothing"
	case 5: // rename
		p := pick()
		to := path.Dir(p) + fmt.Sprintf("/renamed-%d.ts", step)
		f.rename(p, to)
		return "rename " + p
	case 6: // a manifest change
		deps := []string{`"express": "^4.18.0"`, `"pg": "^8.11.0"`, `"axios": "^1.6.0"`, `"zod": "^3.22.0"`, `"kafkajs": "^2.2.0"`}
		rng.Shuffle(len(deps), func(i, j int) { deps[i], deps[j] = deps[j], deps[i] })
		k := 1 + rng.IntN(len(deps))
		f.write(map[string]string{"package.json": fmt.Sprintf(`{"name": "shop", "version": "1.0.%d", "type": "module", "main": "src/index.ts", "dependencies": {%s}, "devDependencies": {"vitest": "^1.0.0"}}`, step, strings.Join(deps[:k], ", "))})
		return "package.json"
	case 7: // tsconfig paths
		alias := []string{`"@domain/*": ["src/domain/*"]`, `"@services/*": ["src/services/*"]`, `"@infra/*": ["src/infrastructure/*"]`}[rng.IntN(3)]
		f.write(map[string]string{"tsconfig.json": fmt.Sprintf(`{"compilerOptions": {"strict": %v, "baseUrl": ".", "paths": {%s}}}`, rng.IntN(2) == 0, alias)})
		return "tsconfig.json"
	case 8: // an ADR
		n := 2 + rng.IntN(3)
		f.write(map[string]string{fmt.Sprintf("docs/adr/%04d-decision-%d.md", n, n): fmt.Sprintf("# ADR-%d: Decision %d of step %d\n\nStatus: %s\n\n## Decision\n\nWe will do %d.\n", n, n, step, []string{"accepted", "proposed", "superseded"}[rng.IntN(3)], step)})
		return "ADR"
	case 9: // ignore rules
		rules := []string{"dist/\n*.log\n", "dist/\n*.log\nsrc/infrastructure/\n", "dist/\n*.log\nlib/\n", "dist/\n*.log\n*.test.ts\n"}[rng.IntN(4)]
		f.write(map[string]string{".gitignore": rules})
		return ".gitignore: " + strings.ReplaceAll(rules, "\n", " ")
	case 10: // a commit
		f.commit(fmt.Sprintf("refactor: step %d", step))
		return "commit"
	default: // an edit that changes no fact: same lines, same imports
		p := pick()
		body, _ := os.ReadFile(f.path(p))
		f.write(map[string]string{p: strings.Replace(string(body), "return", "return /* edited */", 1)})
		return "comment in " + p
	}
}
