// Package benchrepo generates the repository kontext's benchmarks run
// on: a git history of thousands of commits (written with one
// `git fast-import`, in seconds), Markdown documentation, and a .ai/
// knowledge store in the original kontext's entry format. The text is
// pseudo-random but deterministic: the same Options give the same bytes,
// so figures from two runs compare.
package benchrepo

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Options size the repository. Zero values take the figures.
type Options struct {
	Commits int // 5000
	Entries int // 1000
	Docs    int // 500 Markdown files
	Seed    int64
}

// Stats describe what Generate wrote.
type Stats struct {
	Commits, Entries, Docs, CodeFiles int
}

// Generate makes a repository in dir (created; must not be a repository
// already) on branch main, with its work tree checked out.
func Generate(ctx context.Context, dir string, opts Options) (Stats, error) {
	if opts.Commits <= 0 {
		opts.Commits = 5000
	}
	if opts.Entries <= 0 {
		opts.Entries = 1000
	}
	if opts.Docs <= 0 {
		opts.Docs = 500
	}
	if opts.Seed == 0 {
		opts.Seed = 20260101
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Stats{}, err
	}
	run := func(stdin *os.File, args ...string) error {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		cmd.Stdin = stdin
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := run(nil, "init", "-q", "-b", "main"); err != nil {
		return Stats{}, err
	}
	for _, kv := range [][2]string{{"user.name", "Bench"}, {"user.email", "bench@example.com"}, {"commit.gpgsign", "false"}} {
		if err := run(nil, "config", kv[0], kv[1]); err != nil {
			return Stats{}, err
		}
	}
	stream, err := os.CreateTemp("", "kontext-fast-import-*")
	if err != nil {
		return Stats{}, err
	}
	defer os.Remove(stream.Name())
	g := newGen(opts.Seed)
	st, err := g.writeStream(stream, opts)
	if err != nil {
		stream.Close()
		return Stats{}, err
	}
	if _, err := stream.Seek(0, 0); err != nil {
		stream.Close()
		return Stats{}, err
	}
	err = run(stream, "fast-import", "--quiet", "--done")
	stream.Close()
	if err != nil {
		return Stats{}, err
	}
	if err := run(nil, "reset", "-q", "--hard", "main"); err != nil {
		return Stats{}, err
	}
	return st, nil
}

type gen struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	words []string
}

// Words that kontext's users search for, among the generated ones.
var realWords = strings.Fields(`order orders payment payments invoice invoices refund customer account
	user users session token auth login cache caching queue worker job retry timeout database postgres
	mysql redis kafka migration migrate schema index query latency throughput deploy deployment release
	rollback config configuration feature flag metrics logging tracing alert incident outage error errors
	test tests flaky build pipeline docker kubernetes service api endpoint handler request response
	client server proxy gateway billing pricing tax shipping cart checkout inventory warehouse product
	catalog search ranking email notification webhook scheduler cron batch stream event events consumer
	producer replica shard backup restore encryption secret permission role admin audit compliance
	because instead replace replaced deprecate deprecated switch switched never always avoid prefer must
	should keep slow fast memory leak crash panic bug fix fixed regression performance upgrade library
	module package interface struct function method field column table row transaction lock deadlock`)

var identifiers = strings.Fields(`orderTotal computeTax userID sessionStore retryBackoff maxConnections
	httpClient parseConfig loadBalancer featureFlags eventBus paymentIntent refundPolicy cacheTTL
	ABTest2 OAuth2Token apiGateway rateLimiter shardKey writeAheadLog`)

func newGen(seed int64) *gen {
	r := rand.New(rand.NewSource(seed))
	g := &gen{r: r}
	g.words = append(g.words, realWords...)
	syll := strings.Fields("ka lo mi ne ru ta vo zen pra tri sol mar den fi gu ho ja ki le mo nu pe qua ri se")
	for len(g.words) < 4000 {
		n := 2 + r.Intn(3)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(syll[r.Intn(len(syll))])
		}
		g.words = append(g.words, b.String())
	}
	// Shuffle the real words into the frequent and the rare ranks alike.
	r.Shuffle(len(g.words), func(i, j int) { g.words[i], g.words[j] = g.words[j], g.words[i] })
	g.zipf = rand.NewZipf(r, 1.1, 2, uint64(len(g.words)-1))
	return g
}

func (g *gen) word() string {
	if g.r.Intn(40) == 0 {
		return identifiers[g.r.Intn(len(identifiers))]
	}
	return g.words[g.zipf.Uint64()]
}

func (g *gen) sentence(min, max int) string {
	n := min + g.r.Intn(max-min+1)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.word()
	}
	s := strings.Join(ws, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (g *gen) paragraph(sentences int) string {
	ss := make([]string, sentences)
	for i := range ss {
		ss[i] = g.sentence(6, 16)
	}
	return strings.Join(ss, " ")
}

func (g *gen) title(min, max int) string {
	s := strings.TrimSuffix(g.sentence(min, max), ".")
	return s
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() > 50 {
			break
		}
	}
	return strings.Trim(b.String(), "-")
}

type file struct{ path, body string }

func (g *gen) writeStream(w *os.File, opts Options) (Stats, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var st Stats
	modules := make([]string, 60)
	for i := range modules {
		modules[i] = fmt.Sprintf("internal/%s%d", slug(g.words[g.r.Intn(300)]), i)
	}
	var code []string
	for _, m := range modules {
		for j := 0; j < 8; j++ {
			code = append(code, fmt.Sprintf("%s/%s.go", m, slug(g.words[g.r.Intn(len(g.words))])))
		}
	}
	st.CodeFiles = len(code)

	// Docs and entries arrive in the first commits, so that history
	// touches them too; code changes come with every commit.
	docs := g.docs(opts.Docs, modules)
	entries := g.entries(opts.Entries, modules)
	st.Docs, st.Entries = len(docs), len(entries)

	when := time.Date(2022, 1, 1, 9, 0, 0, 0, time.UTC)
	authors := []string{"Ada Lovelace <ada@example.com>", "Grace Hopper <grace@example.com>", "Alan Turing <alan@example.com>", "Barbara Liskov <barbara@example.com>"}
	for i := 0; i < opts.Commits; i++ {
		when = when.Add(time.Duration(1+g.r.Intn(6)) * time.Hour)
		author := authors[g.r.Intn(len(authors))]
		msg := g.commitMessage(authors)
		fmt.Fprintf(bw, "commit refs/heads/main\nmark :%d\n", i+1)
		fmt.Fprintf(bw, "author %s %d +0000\ncommitter %s %d +0000\n", author, when.Unix(), author, when.Unix())
		fmt.Fprintf(bw, "data %d\n%s\n", len(msg), msg)
		if i > 0 {
			fmt.Fprintf(bw, "from :%d\n", i)
		}
		var files []file
		switch {
		case i < 10:
			per := (len(docs) + 9) / 10
			files = append(files, docs[min(i*per, len(docs)):min((i+1)*per, len(docs))]...)
		case i < 20:
			per := (len(entries) + 9) / 10
			j := i - 10
			files = append(files, entries[min(j*per, len(entries)):min((j+1)*per, len(entries))]...)
		}
		for n := 1 + g.r.Intn(3); n > 0; n-- {
			p := code[g.r.Intn(len(code))]
			files = append(files, file{p, fmt.Sprintf("package %s\n\n// revision %d: %s\n", filepath.Base(filepath.Dir(p)), i, g.sentence(4, 10))})
		}
		for _, f := range files {
			fmt.Fprintf(bw, "M 100644 inline %s\ndata %d\n%s\n", f.path, len(f.body), f.body)
		}
		bw.WriteString("\n")
		st.Commits++
	}
	bw.WriteString("done\n")
	return st, bw.Flush()
}

func (g *gen) commitMessage(authors []string) string {
	var b strings.Builder
	prefixes := []string{"", "", "", "feat: ", "fix: ", "refactor: ", "chore: ", "docs: "}
	b.WriteString(prefixes[g.r.Intn(len(prefixes))])
	b.WriteString(g.title(4, 9))
	if g.r.Intn(3) > 0 {
		b.WriteString("\n\n")
		b.WriteString(g.paragraph(1 + g.r.Intn(4)))
	}
	if g.r.Intn(4) == 0 {
		b.WriteString("\n\n")
		if g.r.Intn(2) == 0 {
			fmt.Fprintf(&b, "Refs: SHOP-%d\n", g.r.Intn(900)+100)
		}
		if g.r.Intn(2) == 0 {
			fmt.Fprintf(&b, "Co-authored-by: %s\n", authors[g.r.Intn(len(authors))])
		}
		fmt.Fprintf(&b, "Signed-off-by: %s", authors[g.r.Intn(len(authors))])
	}
	return b.String()
}

func (g *gen) docs(n int, modules []string) []file {
	var out []file
	for i := 0; i < n; i++ {
		var p string
		switch {
		case i < 8:
			p = fmt.Sprintf("%s-%d.md", strings.ToUpper(slug(g.title(1, 2))), i)
		case i < 8+len(modules):
			p = modules[i-8] + "/README.md"
		case i%5 == 0:
			p = fmt.Sprintf("adr/%04d-%s.md", i, slug(g.title(3, 6)))
		default:
			p = fmt.Sprintf("docs/%s/%s-%d.md", slug(g.words[g.r.Intn(50)]), slug(g.title(2, 4)), i)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n%s\n", g.title(2, 6), g.paragraph(1+g.r.Intn(3)))
		for s := 2 + g.r.Intn(5); s > 0; s-- {
			fmt.Fprintf(&b, "\n## %s\n\n", g.title(1, 4))
			for p := 1 + g.r.Intn(3); p > 0; p-- {
				b.WriteString(g.paragraph(2 + g.r.Intn(4)))
				b.WriteString("\n\n")
			}
			if g.r.Intn(4) == 0 {
				fmt.Fprintf(&b, "```go\nfunc %s() {}\n```\n", identifiers[g.r.Intn(len(identifiers))])
			}
		}
		out = append(out, file{p, b.String()})
	}
	return out
}

func (g *gen) entries(n int, modules []string) []file {
	var out []file
	statuses := []string{"accepted", "accepted", "accepted", "accepted", "proposed", "superseded", "deprecated"}
	for i := 0; i < n; i++ {
		var kind, dir string
		switch r := i % 10; {
		case r < 4:
			kind, dir = "decision", "decisions"
		case r < 6:
			kind, dir = "convention", "conventions"
		case r < 9:
			kind, dir = "learning", "learnings"
		default:
			kind, dir = "incident", "incidents"
		}
		title := g.title(3, 8)
		date := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format("2006-01-02")
		id := slug(title)
		if kind == "decision" {
			id = date + "-" + id
		}
		id = fmt.Sprintf("%s-%d", id, i)
		status := "accepted"
		if kind == "decision" {
			status = statuses[g.r.Intn(len(statuses))]
		}
		var b strings.Builder
		fmt.Fprintf(&b, "---\nid: %s\nkind: %s\ntitle: %s\nstatus: %s\ndate: %s\nsummary: %s\ntags: [%s, %s]\npaths: [%s/**]\n---\n\n",
			id, kind, title, status, date, g.sentence(6, 12), slug(g.word()), slug(g.word()), modules[g.r.Intn(len(modules))])
		if kind == "decision" {
			fmt.Fprintf(&b, "## Context\n\n%s\n\n## Decision\n\n%s\n\n## Consequences\n\n%s\n", g.paragraph(2), g.paragraph(2), g.paragraph(1))
		} else {
			fmt.Fprintf(&b, "%s\n\n%s\n", g.paragraph(2), g.paragraph(1+g.r.Intn(2)))
		}
		out = append(out, file{".ai/" + dir + "/" + id + ".md", b.String()})
	}
	return out
}
