package tools

import (
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/results"
)

// Regression (issue 8.1): the revision views listed secret files (.env,
// keys) with everything else. They leave them out of the file lists and
// the counts, and name them in secretFilesLeftOut.
func TestRevisionsLeaveSecretFilesOut(t *testing.T) {
	f := newGitFixture(t, t.TempDir())
	f.write(map[string]string{"package.json": `{"name": "shop"}`, "src/app.ts": "export const x = 1\n"})
	first := f.commit("start", "Ada Lovelace", 3)
	f.write(map[string]string{
		".env":              "STRIPE_SECRET_KEY=sk" + "_live_51Hq8ZkLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8\n",
		"certs/server.key":  "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n",
		".ssh/id_ed25519":   "key\n",
		"src/pay.ts":        "export const pay = 1\n",
		"config/.env.local": "X=1\n",
	})
	f.git(nil, "add", "-f", ".env", "config/.env.local")
	second := f.commit("billing", "Ada Lovelace", 2)
	s := serveRepo(t, f.dir)

	var d results.RevisionDiff
	s.ok("get_revision_diff", map[string]any{"revision": second, "base": first}, &d)
	var paths []string
	for _, c := range d.Files {
		paths = append(paths, c.Path)
	}
	wantSecret := []string{".env", ".ssh/id_ed25519", "certs/server.key", "config/.env.local"}
	if !slices.Equal(paths, []string{"src/pay.ts"}) || !slices.Equal(d.SecretFilesLeftOut, wantSecret) || !d.HasChanges {
		t.Errorf("diff: files %v, left out %v", paths, d.SecretFilesLeftOut)
	}
	for _, m := range d.Modules {
		if m.Files != 1 {
			t.Errorf("module %s counts %d files: secret files are counted", m.Module, m.Files)
		}
	}

	var snap results.RevisionSnapshot
	s.ok("get_revision_snapshot", map[string]any{"revision": second}, &snap)
	if snap.FileCount != 3 || slices.ContainsFunc(snap.Files, func(p string) bool {
		return strings.Contains(p, "env") || strings.Contains(p, "key") || strings.Contains(p, "ssh")
	}) ||
		!slices.Equal(snap.SecretFilesLeftOut, wantSecret) {
		t.Errorf("snapshot: %d files %v, left out %v", snap.FileCount, snap.Files, snap.SecretFilesLeftOut)
	}
	if text := string(s.ok("get_revision_snapshot", map[string]any{"revision": first}, &snap)); strings.Contains(text, "secretFilesLeftOut") {
		t.Errorf("a tree without secret files says it left some out: %s", text)
	}
}

// A document whose content is a credential is never read by the
// heuristics, so no decision or convention quotes it.
func TestHeuristicsNeverReadCredentials(t *testing.T) {
	f := newGitFixture(t, t.TempDir())
	key := "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA " + "PRIVATE KEY-----\n"
	f.write(map[string]string{
		"package.json":             `{"name": "shop"}`,
		"src/app.ts":               "export const x = 1\n",
		"docs/adr/0001-use-tls.md": "# 1. Use TLS\n\nStatus: Accepted\n\n## Decision\n\nWe terminate TLS with this key:\n\n" + key,
		"docs/adr/0002-use-zod.md": "# 2. Use zod\n\nStatus: Accepted\n\n## Decision\n\nInput is validated with zod.\n",
	})
	f.commit("start", "Ada Lovelace", 3)
	s := serveRepo(t, f.dir)
	var d results.Decisions
	text := string(s.ok("get_decisions", map[string]any{"detail": "full"}, &d))
	if strings.Contains(text, "MIIEow") || strings.Contains(text, "Use TLS") || !strings.Contains(text, "Use zod") {
		t.Errorf("decisions:\n%s", text)
	}
}
