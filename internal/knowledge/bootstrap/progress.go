package bootstrap

import (
	"fmt"
	"path"
	"strings"

	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// DocProgress counts the architecture docs the bootstrap rendered and how
// many of them an agent has deepened (or this clone skipped). It reads
// only the store's entries and init-done.json, so the brief and status can
// afford it on every call; the full task list (decision clusters,
// refreshes) needs the scan and the history and is ctx_init's to compute.
type DocProgress struct {
	Rendered, Deepened int
}

// StoreProgress counts the overview and module docs among entries.
func StoreProgress(entries []*store.Entry, cfg *config.Config, st *store.Store, stateDir string) DocProgress {
	archDir := architectureDir(cfg, st)
	modules := path.Join(archDir, ModulesDir) + "/"
	overview := path.Join(archDir, "overview.md")
	var done *Done
	var p DocProgress
	for _, e := range entries {
		var task string
		switch {
		case e.Path == overview:
			task = "purpose"
		case strings.HasPrefix(e.Path, modules) && e.Get("module") != "":
			task = "mod:" + e.Get("module")
		default:
			continue
		}
		p.Rendered++
		if e.Get(keyDeepened) != "" {
			p.Deepened++
			continue
		}
		if done == nil {
			done = LoadDone(stateDir)
		}
		if _, skipped := done.Tasks[task]; skipped {
			p.Deepened++
		}
	}
	return p
}

// String says how far the docs are, or "" when there is nothing left.
func (p DocProgress) String() string {
	if p.Rendered == 0 || p.Deepened >= p.Rendered {
		return ""
	}
	return fmt.Sprintf("%d of %d architecture docs deepened; ctx_init gives the next tasks", p.Deepened, p.Rendered)
}
