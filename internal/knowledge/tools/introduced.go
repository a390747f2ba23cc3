package tools

import (
	"context"
	"strings"

	"github.com/kontext-dev/kontext/internal/git"
)

// introduction is the commit that added an entry's file, followed back
// through renames: a later move of the ADR folder (doc/ → docs/) is not
// where the entry came from.
type introduction struct {
	SHA string // the commit that added the file first
	// MovedIn is the commit that last moved the file to where it is ("" when
	// it never moved), and From the path it had before.
	MovedIn, From string
}

// maxRenameGenerations bounds how many moves of one file are followed.
const maxRenameGenerations = 8

// introductions maps the files under dirs to the commits that introduced
// them. The history of dirs is read once for the commits that added each
// file; those commits are read once more, with rename detection and
// without a path limit (a path limit hides the side of a rename outside
// it), to tell an addition from a move; a moved file's additions are then
// looked for under its old path, before the move.
func introductions(ctx context.Context, repo *git.Repo, dirs []string) map[string]introduction {
	out := map[string]introduction{}
	added, err := additions(ctx, repo, "HEAD", dirs)
	if err != nil {
		return out
	}
	// current path → the path it is being followed under, and the commit
	// that added that path.
	type following struct{ path, sha string }
	pending := map[string]following{}
	for p, sha := range added {
		pending[p] = following{p, sha}
		out[p] = introduction{SHA: sha}
	}
	for gen := 0; gen < maxRenameGenerations && len(pending) > 0; gen++ {
		bySHA := map[string][]string{} // adding commit → current paths
		var shas []string
		for cur, f := range pending {
			if bySHA[f.sha] == nil {
				shas = append(shas, f.sha)
			}
			bySHA[f.sha] = append(bySHA[f.sha], cur)
		}
		commits, err := repo.Log(ctx, git.LogOptions{Revs: shas, Files: true, Renames: true})
		if err != nil {
			return out
		}
		next := map[string]following{}
		for _, c := range commits {
			renamed := map[string]string{} // new path → old path
			for _, f := range c.Files {
				if f.Status == 'R' && f.From != "" {
					renamed[f.Path] = f.From
				}
			}
			if len(renamed) == 0 || len(c.Parents) == 0 {
				continue
			}
			var froms []string
			fromOf := map[string]string{}
			for _, cur := range bySHA[c.SHA] {
				if old, ok := renamed[pending[cur].path]; ok {
					froms = append(froms, old)
					fromOf[old] = cur
					in := out[cur]
					if in.MovedIn == "" {
						in.MovedIn, in.From = c.SHA, old
					}
					out[cur] = in
				}
			}
			if len(froms) == 0 {
				continue
			}
			before, err := additions(ctx, repo, c.SHA+"^", froms)
			if err != nil {
				continue
			}
			for old, sha := range before {
				cur, ok := fromOf[old]
				if !ok {
					continue
				}
				in := out[cur]
				in.SHA = sha
				out[cur] = in
				next[cur] = following{old, sha}
			}
		}
		pending = next
	}
	return out
}

// additions maps each file under pathspecs to the oldest commit reachable
// from rev that added it.
func additions(ctx context.Context, repo *git.Repo, rev string, pathspecs []string) (map[string]string, error) {
	args := []string{"log", "--diff-filter=A", "--no-renames", "--name-only", "-z", "--format=%x1e%H", "--end-of-options", rev, "--"}
	raw, err := repo.Run(ctx, append(args, pathspecs...)...)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, rec := range strings.Split(string(raw), "\x1e") {
		// "<sha>\x00\n<file>\x00<file>\x00…"
		sha, files, ok := strings.Cut(rec, "\x00")
		if sha = strings.TrimSpace(sha); !ok || len(sha) < 40 {
			continue
		}
		for _, f := range strings.Split(files, "\x00") {
			if f = strings.TrimSpace(f); f != "" {
				out[f] = sha // the oldest addition wins: log is newest first
			}
		}
	}
	return out, nil
}
