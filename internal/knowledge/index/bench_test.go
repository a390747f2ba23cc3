package index

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/index/benchrepo"
)

// The benchmarks run on a generated repository of 5,000 commits, 1,000
// entries and 500 Markdown files (benchrepo), made once per run, or the
// one KONTEXT_BENCH_REPO names.
var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
	benchTmp  string
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		if err := runChild(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if benchTmp != "" {
		os.RemoveAll(benchTmp)
	}
	os.Exit(code)
}

func benchRepo(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		if d := os.Getenv("KONTEXT_BENCH_REPO"); d != "" {
			if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
				benchDir = d
				return
			}
			benchDir = d
		} else {
			benchTmp, benchErr = os.MkdirTemp("", "kontext-bench-")
			if benchErr != nil {
				return
			}
			benchDir = filepath.Join(benchTmp, "repo")
		}
		start := time.Now()
		var st benchrepo.Stats
		st, benchErr = benchrepo.Generate(context.Background(), benchDir, benchrepo.Options{})
		fmt.Fprintf(os.Stderr, "generated %s: %d commits, %d entries, %d docs, %d code files in %v\n",
			benchDir, st.Commits, st.Entries, st.Docs, st.CodeFiles, time.Since(start).Round(time.Millisecond))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

// benchSources are the three local sources; entries come from the .ai/
// files through storeSource, which does what the store's source will:
// list the entry files, version them by stat, parse the changed ones.
func benchSources(tb testing.TB, repo *git.Repo) []Source {
	docs, err := NewDocsSource(repo, DocsOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return []Source{NewCommitsSource(repo, CommitsOptions{}), docs, &storeSource{dir: filepath.Join(repo.Dir, ".ai")}}
}

var benchQueries = []string{
	"postgres migration", "orderTotal", "retry timeout", "flaky tests", "why did we switch to kafka",
	"cache invalidation", "deploy rollback", "payment refund policy", "rate limiter", "session token expiry",
	"database deadlock", "webhook retries", "feature flag cleanup", "kamilo", "shipping tax",
}

// peakRSS is the most memory this process held, in MiB: the index's
// (git's processes are not counted).
func peakRSS() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024 // KiB on Linux
}

// cpuTime is the user and system time of this process and its finished
// children (git): on a shared machine it varies less than wall time.
func cpuTime() time.Duration {
	var t time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		syscall.Getrusage(who, &ru)
		t += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return t
}

func dirSize(dir string) float64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return float64(n) / (1 << 20)
}

// BenchmarkFirstSearch is a cold start: open the repository and an
// empty index, and answer one query, which builds the index.
func BenchmarkFirstSearch(b *testing.B) {
	dir := benchRepo(b)
	ctx := context.Background()
	root := b.TempDir()
	var last string
	var docs int
	b.ReportAllocs()
	i := 0
	cpu0 := cpuTime()
	for b.Loop() {
		i++
		last = filepath.Join(root, fmt.Sprint(i))
		repo, err := git.Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		ix, err := Open(ctx, Options{Dir: last, Sources: benchSources(b, repo)})
		if err != nil {
			b.Fatal(err)
		}
		hits, err := ix.Search(ctx, Query{Text: "postgres migration"})
		if err != nil || len(hits) == 0 {
			b.Fatalf("%v %v", hits, err)
		}
		if docs == 0 {
			ix.db.QueryRow(`SELECT count(*) FROM docs`).Scan(&docs)
		}
		ix.Close()
		repo.Close()
	}
	b.ReportMetric(ms(cpuTime()-cpu0)/float64(i), "cpu-ms/op")
	b.ReportMetric(peakRSS(), "peak-RSS-MB")
	b.ReportMetric(dirSize(last), "index-MB")
	b.ReportMetric(float64(docs), "docs")
}

// BenchmarkWarmSearch answers queries on a built index, with the default
// once-a-second check for changes, as an MCP server does.
func BenchmarkWarmSearch(b *testing.B) {
	benchWarm(b, 0)
}

// BenchmarkWarmSearchChecked checks the sources before every query: the
// worst case of the rate limit, a query arriving every second.
func BenchmarkWarmSearchChecked(b *testing.B) {
	benchWarm(b, -1)
}

func benchWarm(b *testing.B, interval time.Duration) {
	dir := benchRepo(b)
	ctx := context.Background()
	repo, err := git.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	ix, err := Open(ctx, Options{Dir: b.TempDir(), Sources: benchSources(b, repo), MinInterval: interval})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	// Build, and let the docs source learn its file list.
	for range 2 {
		if _, err := ix.RefreshNow(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var times []time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := time.Now()
		if _, err := ix.Search(ctx, Query{Text: benchQueries[i%len(benchQueries)]}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		i++
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
	b.ReportMetric(ms(times[len(times)*99/100]), "p99-ms")
	b.ReportMetric(peakRSS(), "peak-RSS-MB")
}

// BenchmarkIdleRefresh is the check a query pays when nothing changed.
func BenchmarkIdleRefresh(b *testing.B) {
	dir := benchRepo(b)
	ctx := context.Background()
	repo, err := git.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	ix, err := Open(ctx, Options{Dir: b.TempDir(), Sources: benchSources(b, repo)})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	for range 2 {
		if _, err := ix.RefreshNow(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		ch, err := ix.RefreshNow(ctx)
		if err != nil || len(ch.Sources) != 0 {
			b.Fatalf("%+v %v", ch, err)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// storeSource reads .ai/<kind>s/*.md entries the way the store's source
// will: stat to version, read and parse only what changed.
type storeSource struct {
	dir string
	mu  sync.Mutex
	fps []string // what the last List saw: dirs and files
}

func (s *storeSource) Name() string { return "entries" }

func (s *storeSource) Fingerprint(ctx context.Context) (string, error) {
	s.mu.Lock()
	paths := s.fps
	s.mu.Unlock()
	if paths == nil {
		return "", nil
	}
	var b strings.Builder
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			b.WriteString(FileVersion(fi))
		}
		b.WriteByte(0)
	}
	return fmt.Sprintf("%x", hashString(b.String())), nil
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func (s *storeSource) List(ctx context.Context) ([]Item, error) {
	var items []Item
	paths := []string{s.dir}
	subs, err := os.ReadDir(s.dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, sub := range subs {
		if !sub.IsDir() {
			continue
		}
		d := filepath.Join(s.dir, sub.Name())
		paths = append(paths, d)
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			p := filepath.Join(d, e.Name())
			fi, err := os.Stat(p)
			if err != nil {
				continue
			}
			paths = append(paths, p)
			items = append(items, Item{Key: p, Version: FileVersion(fi)})
		}
	}
	s.mu.Lock()
	s.fps = paths
	s.mu.Unlock()
	return items, nil
}

func (s *storeSource) Load(ctx context.Context, items []Item, emit func(Item, []Doc) error) error {
	for _, it := range items {
		fi, err := os.Stat(it.Key)
		if err != nil {
			continue
		}
		data, err := os.ReadFile(it.Key)
		if err != nil {
			continue
		}
		d := Doc{Source: "local"}
		text := string(data)
		if rest, ok := strings.CutPrefix(text, "---\n"); ok {
			fm, body, _ := strings.Cut(rest, "\n---\n")
			text = body
			for _, line := range strings.Split(fm, "\n") {
				k, v, _ := strings.Cut(line, ":")
				v = strings.TrimSpace(v)
				switch k {
				case "id":
					d.URI = "kx:" + v
				case "kind":
					d.Kind = v
				case "title":
					d.Title = v
				case "status":
					d.Status = v
				case "date":
					d.Date = v
				case "tags":
					d.Tags = strings.Split(strings.Trim(v, "[]"), ", ")
				case "paths":
					d.Paths = strings.Split(strings.Trim(v, "[]"), ", ")
				}
			}
		}
		d.Body = strings.TrimSpace(text)
		if err := emit(Item{Key: it.Key, Version: FileVersion(fi)}, []Doc{d}); err != nil {
			return err
		}
	}
	return nil
}
