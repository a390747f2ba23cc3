package inventory

import (
	"context"
	"sync"

	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Program is the kontext binary: the shipped toolsets, and every answer
// of every toolset passed once through the shared secret rules.
func Program() kcli.Program {
	return kcli.Program{Toolsets: Shipped(), OutputFilter: SecretFilter}
}

// SecretFilter is the output filter of a root's server: the program's
// secret rules (internal/secrets) with the repository's secrets.allow and
// secrets.redact patterns (as the configuration layers give them, a shared
// file's refused ones left out). The configuration is read on the first
// answer, so a server that answers nothing pays nothing; a change to it
// applies from the next start.
func SecretFilter(root *fsroot.Root) mcp.OutputFilter {
	return &secretFilter{dir: root.Dir()}
}

type secretFilter struct {
	dir  string
	once sync.Once
	f    *secrets.Filter
}

func (s *secretFilter) filter() *secrets.Filter {
	s.once.Do(func() {
		s.f = secrets.NewFilter(nil)
		ctx := context.Background()
		repo, err := git.Open(ctx, s.dir)
		if err != nil {
			repo = nil // outside a repository: the user's configuration only
		} else {
			defer repo.Close()
		}
		cfg, err := config.Load(ctx, repo, config.Options{SkipIdentity: true})
		if err != nil {
			return // a broken configuration does not weaken the built-in rules
		}
		if sc, err := secrets.New(cfg.Secrets.Allow, cfg.Secrets.Redact); err == nil {
			s.f = secrets.NewFilter(sc)
		}
	})
	return s.f
}

func (s *secretFilter) Suspect(text []byte) bool       { return s.filter().Suspect(text) }
func (s *secretFilter) Redact(key, text string) string { return s.filter().Redact(key, text) }
