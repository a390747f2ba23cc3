package bootstrap

import (
	"context"
	"slices"
	"testing"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
)

// The decision tasks list each candidate commit's files: never a secret
// file among them.
func TestHistoryLeavesSecretFilesOut(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) { t.Helper(); gittest.Git(t, dir, args...) }
	run("init", "-q", "-b", "main")
	gittest.WriteFiles(t, dir, map[string]string{"src/billing.go": "package src\n", ".env": "STRIPE_SECRET_KEY=x\n", "deploy/id_rsa": "key\n"})
	run("add", "-A")
	run("commit", "-q", "-m", "Switch billing to Stripe\n\nWe decided to move from Braintree to Stripe because the fees are lower and the API is simpler; this replaces the old gateway and changes how refunds work, so every caller must now pass a currency. BREAKING CHANGE: refunds need a currency.")
	repo, err := git.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	h, err := ReadHistory(context.Background(), repo, &Scan{}, config.Defaults(), "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range h.Clusters {
		for _, cand := range c.Commits {
			n++
			if !slices.Equal(cand.Files, []string{"src/billing.go"}) {
				t.Errorf("candidate %s lists %v", cand.Subject, cand.Files)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no candidate: %+v", h)
	}
}
