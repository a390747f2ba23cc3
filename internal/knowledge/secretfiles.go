package knowledge

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kontext-dev/kontext/internal/secrets"
)

// maxContentCheck bounds what is read of a file to decide whether its
// content makes it a secret: keys and credential files are small.
const maxContentCheck = 1 << 20

// SecretReason says why kontext never shows the file a tool was asked
// about ("" when it may): its name as asked (.env, even through a symlink
// named otherwise), the name it resolves to (a symlink named notes.txt that
// leads to .env), or its content (a private key in notes.txt). rel is the
// path as the root resolved it.
func (o *Opened) SecretReason(asked, rel string) string {
	asked = strings.TrimSpace(filepath.ToSlash(asked))
	if secrets.IsSecretFile(asked) || secrets.IsSecretFile(rel) {
		return "it may hold secrets"
	}
	if filepath.IsAbs(asked) {
		if r, err := filepath.Rel(o.Root.Dir(), asked); err == nil && secrets.IsSecretFile(filepath.ToSlash(r)) {
			return "it may hold secrets"
		}
	} else if secrets.IsSecretFile(path.Clean(asked)) {
		return "it may hold secrets"
	}
	if rule := o.SecretContent(rel); rule != "" {
		return "its content is a credential (" + rule + ")"
	}
	return ""
}

// SecretContent applies the content rules to a regular file of the work
// tree ("" for anything else: a directory, a missing file, a FIFO, which
// is never opened).
func (o *Opened) SecretContent(rel string) string {
	abs, err := o.Root.Path(rel)
	if err != nil {
		return ""
	}
	info, err := os.Lstat(abs)
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	f, err := o.Root.OS().Open(filepath.FromSlash(rel))
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	buf := make([]byte, min(info.Size(), maxContentCheck))
	n, _ := io.ReadFull(f, buf)
	return secrets.SecretContent(rel, buf[:n])
}

// ReadShown reads a file under the root whose text a tool shows (the
// README's first paragraph, an AGENTS.md): never a secret file, whatever
// the name it is asked by (README.md may be a symlink to .env).
func (o *Opened) ReadShown(name string) ([]byte, error) {
	rel, err := o.Root.Rel(name)
	if err != nil {
		return nil, err
	}
	if secrets.IsSecretFile(name) || secrets.IsSecretFile(rel) {
		return nil, fs.ErrPermission
	}
	data, err := o.Root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	if secrets.SecretContent(rel, data) != "" {
		return nil, fs.ErrPermission
	}
	return data, nil
}
