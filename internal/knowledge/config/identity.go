package config

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kontext-dev/kontext/internal/git"
)

// Identity names a repository the same way on every clone: the normalised
// `origin` remote, or a local name when there is no remote.
type Identity struct {
	// ID is "github.com/acme/shop", or "local/<dir>-<hash8>".
	ID string
	// Slug is the ID made safe for a file name: "github.com-acme-shop".
	Slug string
	// Name is the repository's short name ("shop").
	Name string
	// Remote is the remote URL the ID came from ("" for a local ID).
	Remote string
}

// Identify computes the repository's identity.
func Identify(ctx context.Context, repo *git.Repo) Identity {
	dir := mainWorktreeDir(repo.CommonDir, repo.Dir)
	id := Identity{Remote: repo.RemoteURL(ctx)}
	if id.Remote != "" {
		id.ID = NormalizeRemote(id.Remote)
	}
	if id.ID == "" {
		// The hash is of the common directory, so every worktree of a clone
		// shares the identity (and the original computes it the same way).
		id.ID = fmt.Sprintf("local/%s-%s", dir, ShortHash(repo.CommonDir)[:8])
		id.Remote = ""
		id.Name = dir
	} else {
		id.Name = id.ID[strings.LastIndexByte(id.ID, '/')+1:]
	}
	id.Slug = strings.ReplaceAll(id.ID, "/", "-")
	return id
}

// NormalizeRemote turns a remote URL into host/owner/name, lower case:
// `git@github.com:Acme/Shop.git` and `https://github.com/acme/shop` both
// become `github.com/acme/shop`. Credentials and ports are dropped.
func NormalizeRemote(url string) string {
	s := strings.TrimSpace(url)
	for _, scheme := range []string{"git+ssh://", "ssh+git://", "https://", "http://", "ssh://", "git://", "file://"} {
		if strings.HasPrefix(strings.ToLower(s), scheme) {
			s = s[len(scheme):]
			break
		}
	}
	if at := strings.IndexByte(s, '@'); at >= 0 && !strings.Contains(s[:at], "/") {
		s = s[at+1:]
	}
	// scp-like host:path, or host:port/path
	if colon := strings.IndexByte(s, ':'); colon >= 0 && !strings.Contains(s[:colon], "/") {
		rest := strings.TrimLeft(s[colon+1:], "0123456789")
		s = s[:colon] + "/" + strings.TrimLeft(rest, "/")
	}
	s = strings.TrimRight(s, "/")
	s = strings.TrimSuffix(s, ".git")
	s = strings.ToLower(s)
	var parts []string
	for _, p := range strings.Split(s, "/") {
		if p != "" && p != "." && p != ".." {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "/")
}

// ShortHash is a stable, non-cryptographic 12-hex-digit hash (FNV-1a, 48
// bits), the one the original uses for local identities and worktree keys.
func ShortHash(s string) string {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return fmt.Sprintf("%012x", h&0xffffffffffff)
}

// mainWorktreeDir is the directory name of the main worktree, stable across
// linked worktrees: the parent of a ".git" common dir, else the common
// dir's name without ".git".
func mainWorktreeDir(common, root string) string {
	if filepath.Base(common) == ".git" {
		if p := filepath.Base(filepath.Dir(common)); p != "" && p != "." && p != string(filepath.Separator) {
			return p
		}
	}
	if n := strings.TrimSuffix(filepath.Base(common), ".git"); n != "" && n != "." {
		return n
	}
	if n := filepath.Base(root); n != "" {
		return n
	}
	return "repo"
}
