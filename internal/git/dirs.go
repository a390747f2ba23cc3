package git

import (
	"context"
	"strings"
)

// UntrackedDirs lists the untracked directories git does not ignore,
// empty ones included, relative to the top level, without a trailing
// slash. Files lists none of an empty directory, yet a file created in it
// later is one Files will list: watching for new files means watching
// these directories too.
func (r *Repo) UntrackedDirs(ctx context.Context) ([]string, error) {
	out, err := r.Run(ctx, "ls-files", "-z", "--others", "--directory", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range splitZ(out) {
		if d, ok := strings.CutSuffix(e, "/"); ok && d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs, nil
}
