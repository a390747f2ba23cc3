package index

import (
	"context"
	"strconv"
	"strings"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// DefaultMaxCommits is index.max_commits.
const DefaultMaxCommits = 5000

// CommitsOptions configure the commits source.
type CommitsOptions struct {
	// Max is how many of the newest non-merge commits are indexed;
	// 0 means DefaultMaxCommits.
	Max int
	// Source is Doc.Source; "" means "local".
	Source string
}

// CommitsSource indexes the newest non-merge commits reachable from
// HEAD: subject as title, the rest of the message (trailers included,
// Co-authored-by and Signed-off-by dropped) as body, and the files each
// touched (secret files left out), searchable by name but never shown in a
// snippet. A commit
// that leaves history (amended, rebased away, reset) leaves the index.
type CommitsSource struct {
	repo *git.Repo
	max  int
	src  string
}

// NewCommitsSource returns the commits source of repo.
func NewCommitsSource(repo *git.Repo, opts CommitsOptions) *CommitsSource {
	if opts.Max <= 0 {
		opts.Max = DefaultMaxCommits
	}
	if opts.Source == "" {
		opts.Source = "local"
	}
	return &CommitsSource{repo: repo, max: opts.Max, src: opts.Source}
}

// Name implements Source.
func (s *CommitsSource) Name() string { return "commits" }

// Fingerprint implements Source: the commits depend on HEAD alone, which
// is read from the ref files without starting git.
func (s *CommitsSource) Fingerprint(ctx context.Context) (string, error) {
	head, err := s.repo.HeadFromRefs(ctx)
	if err != nil {
		return "", err
	}
	return "head=" + head + " max=" + strconv.Itoa(s.max), nil
}

// List implements Source.
func (s *CommitsSource) List(ctx context.Context) ([]Item, error) {
	shas, err := s.repo.RevList(ctx, git.LogOptions{MaxCount: s.max, NoMerges: true})
	if err != nil {
		return nil, err
	}
	items := make([]Item, len(shas))
	for i, sha := range shas {
		items[i] = Item{Key: sha, Version: sha}
	}
	return items, nil
}

// Identities implements Twins: a commit's identity is its patch id, which
// a cherry-pick of it shares.
func (s *CommitsSource) Identities(ctx context.Context, uris []string) (map[string]string, error) {
	var shas []string
	for _, u := range uris {
		if sha, ok := strings.CutPrefix(u, "git:"); ok && sha != "" {
			shas = append(shas, sha)
		}
	}
	ids, err := s.repo.PatchIDs(ctx, shas)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ids))
	for sha, id := range ids {
		out["git:"+sha] = id
	}
	return out, nil
}

// walkThreshold is where walking the whole window of history becomes
// cheaper than naming each wanted commit to git. A variable for tests.
var walkThreshold = 500

// Load implements Source.
func (s *CommitsSource) Load(ctx context.Context, items []Item, emit func(Item, []Doc) error) error {
	if len(items) == 0 {
		return nil
	}
	want := make(map[string]bool, len(items))
	shas := make([]string, 0, len(items))
	for _, it := range items {
		want[it.Key] = true
		shas = append(shas, it.Key)
	}
	opts := git.LogOptions{NoMerges: true, Files: true}
	if len(items) > walkThreshold {
		opts.MaxCount = s.max
	} else {
		opts.Revs = shas
	}
	return s.repo.EachCommit(ctx, opts, func(c git.Commit) error {
		if !want[c.SHA] {
			return nil
		}
		return emit(Item{Key: c.SHA, Version: c.SHA}, []Doc{s.commitDoc(&c)})
	})
}

// Walk implements Walker: a first build reads the window of history in
// one git log instead of a rev-list and then a log.
func (s *CommitsSource) Walk(ctx context.Context, emit func(Item, []Doc) error) error {
	return s.repo.EachCommit(ctx, git.LogOptions{NoMerges: true, Files: true, MaxCount: s.max}, func(c git.Commit) error {
		return emit(Item{Key: c.SHA, Version: c.SHA}, []Doc{s.commitDoc(&c)})
	})
}

func (s *CommitsSource) commitDoc(c *git.Commit) Doc {
	paths := make([]string, 0, len(c.Files))
	for _, f := range c.Files {
		// A secret file is neither shown nor found by its name.
		if !secrets.IsSecretFile(f.Path) {
			paths = append(paths, f.Path)
		}
	}
	return Doc{
		URI:    "git:" + c.SHA,
		Kind:   "commit",
		Source: s.src,
		Title:  c.Subject,
		Body:   commitBody(c.Body),
		Date:   c.AuthorTime.UTC().Format("2006-01-02"),
		Paths:  paths,
	}
}

// commitBody is the message after the subject without the trailers that
// name people rather than say anything about the change.
func commitBody(body string) string {
	if !strings.Contains(strings.ToLower(body), "-by:") {
		return body
	}
	lines := strings.Split(body, "\n")
	out := lines[:0]
	for _, l := range lines {
		key, _, ok := strings.Cut(strings.TrimSpace(l), ":")
		if ok {
			switch strings.ToLower(key) {
			case "co-authored-by", "signed-off-by":
				continue
			}
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
