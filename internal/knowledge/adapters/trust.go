package adapters

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
)

// A repository's shared configuration is written by whoever can push to
// it; an adapter it declares starts programs or sends requests with the
// user's environment. So such an adapter runs only once the user trusts it,
// and the trust is pinned to the definition's hash: a pull that changes the
// definition needs trust again.

// TrustFileName is the trust file in the user's configuration directory.
const TrustFileName = "trust.toml"

// TrustPath is the user's trust file.
func TrustPath(getenv func(string) string) string {
	return filepath.Join(config.UserDir(getenv), TrustFileName)
}

// Pin is one trusted definition.
type Pin struct {
	Hash      string    `toml:"hash"`
	TrustedAt time.Time `toml:"trusted_at"`
}

// Trust is the trust file: for every repository root, the adapters trusted
// there and the hash of the definition trusted.
type Trust struct {
	path  string
	Repos map[string]*TrustedRepo `toml:"repos"`
}

// TrustedRepo holds one repository's pins.
type TrustedRepo struct {
	Adapters map[string]Pin `toml:"adapters"`
}

// LoadTrust reads the trust file (an empty one when it does not exist).
func LoadTrust(path string) (*Trust, error) {
	t := &Trust{path: path, Repos: map[string]*TrustedRepo{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust file: %w", err)
	}
	if _, err := toml.Decode(string(data), t); err != nil {
		return nil, fmt.Errorf("trust file %s: %w", path, err)
	}
	if t.Repos == nil {
		t.Repos = map[string]*TrustedRepo{}
	}
	return t, nil
}

// Path is where the trust file lives.
func (t *Trust) Path() string { return t.path }

// repoKey is how a repository is named in the file: its root, absolute
// and clean.
func repoKey(root string) string {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return filepath.Clean(root)
}

// Trusted reports whether d is trusted in the repository at root: a
// definition from the user's own layers always is; a team one when its
// current hash is pinned.
func (t *Trust) Trusted(root string, d *Definition) bool {
	if !d.Team {
		return true
	}
	p, ok := t.Pins(root)[d.Name]
	return ok && p.Hash == d.Hash()
}

// Changed reports whether a team definition was trusted once, for another
// definition than the current one.
func (t *Trust) Changed(root string, d *Definition) bool {
	p, ok := t.Pins(root)[d.Name]
	return d.Team && ok && p.Hash != d.Hash()
}

// Pins are the repository's pins (nil when none).
func (t *Trust) Pins(root string) map[string]Pin {
	r := t.Repos[repoKey(root)]
	if r == nil {
		return nil
	}
	return r.Adapters
}

// Pin trusts d's current definition in the repository at root.
func (t *Trust) Pin(root string, d *Definition, now time.Time) {
	key := repoKey(root)
	r := t.Repos[key]
	if r == nil {
		r = &TrustedRepo{}
		t.Repos[key] = r
	}
	if r.Adapters == nil {
		r.Adapters = map[string]Pin{}
	}
	r.Adapters[d.Name] = Pin{Hash: d.Hash(), TrustedAt: now.UTC().Truncate(time.Second)}
}

// Revoke removes the named pins of the repository (all of them when names
// is empty) and returns the names removed, sorted.
func (t *Trust) Revoke(root string, names ...string) []string {
	key := repoKey(root)
	r := t.Repos[key]
	if r == nil {
		return nil
	}
	var gone []string
	for name := range r.Adapters {
		if len(names) == 0 || contains(names, name) {
			gone = append(gone, name)
			delete(r.Adapters, name)
		}
	}
	if len(r.Adapters) == 0 {
		delete(t.Repos, key)
	}
	sort.Strings(gone)
	return gone
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Save writes the trust file atomically, readable by the user only.
func (t *Trust) Save() error {
	var buf bytes.Buffer
	buf.WriteString("# Adapters of repositories' shared configuration that you trust (kontext trust).\n# Each is pinned to the hash of its definition: a changed definition needs trust again.\n\n")
	if err := toml.NewEncoder(&buf).Encode(t); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(t.path, buf.Bytes(), 0o600)
}
