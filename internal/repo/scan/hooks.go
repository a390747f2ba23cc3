package scan

import (
	"io/fs"
	"sync/atomic"
)

// Phase names a stage of a scan, for progress reports.
type Phase string

const (
	PhaseListing   Phase = "listing files"
	PhaseParsing   Phase = "parsing"
	PhaseManifests Phase = "manifests"
	PhaseModules   Phase = "modules"
	PhaseImports   Phase = "resolving imports"
)

// Hooks let an engine follow a scan. Every hook may be nil. Progress and
// Stat are called from the parsing workers, concurrently.
type Hooks struct {
	// Progress reports a phase; done and total count files while parsing
	// and are 0 otherwise.
	Progress func(phase Phase, done, total int)
	// Listed receives the listing before any file is read, so that an
	// engine can start watching its directories first: a change made while
	// the scan runs is then never missed.
	Listed func(paths []string)
	// Stat receives the metadata of each file a scan parses, taken just
	// before it is read: the fingerprint that says later whether the file
	// changed since.
	Stat func(path string, info fs.FileInfo)
}

func (h *Hooks) progress(phase Phase, done, total int) {
	if h != nil && h.Progress != nil {
		h.Progress(phase, done, total)
	}
}

func (h *Hooks) listed(paths []string) {
	if h != nil && h.Listed != nil {
		h.Listed(paths)
	}
}

// parseCounter reports parsing progress from the workers.
type parseCounter struct {
	hooks *Hooks
	total int
	done  atomic.Int64
}

func (c *parseCounter) add(n int) {
	if c == nil || c.hooks == nil || c.hooks.Progress == nil {
		return
	}
	c.hooks.Progress(PhaseParsing, int(c.done.Add(int64(n))), c.total)
}
