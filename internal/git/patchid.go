package git

import (
	"context"
	"strings"
)

// PatchIDs returns the patch id (git patch-id --stable) of each of the
// commits that changes anything: the same for a commit and its
// cherry-picks, whose changes are the same whatever their parents and
// messages. Two git processes, however many commits.
func (r *Repo) PatchIDs(ctx context.Context, shas []string) (map[string]string, error) {
	out := map[string]string{}
	if len(shas) == 0 {
		return out, nil
	}
	args := append([]string{"show", "--no-color", "--no-ext-diff", "--no-renames", "--format=commit %H", "-p"}, shas...)
	diff, err := r.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	ids, err := r.RunInput(ctx, diff, "patch-id", "--stable")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(ids), "\n") {
		if id, sha, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			out[sha] = id
		}
	}
	return out, nil
}
