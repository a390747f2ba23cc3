package repo

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/repo/scan"
)

// progress fans an analysis' progress out to everyone waiting for it: an
// MCP notifications/progress to each request that gave a progressToken
// (mcp.Progress does nothing for one that did not), and a line on a
// terminal. Reports are a percentage that only grows, and a message.
type progress struct {
	mu      sync.Mutex
	sinks   map[int]context.Context
	nextID  int
	pct     float64
	msg     string
	sentPct float64
	sentAt  time.Time
	term    io.Writer
	root    string
	drawn   bool
}

func newProgress(root string, term io.Writer) *progress {
	return &progress{sinks: map[int]context.Context{}, term: term, root: root, sentPct: -1}
}

// join adds a waiting request and returns its id for leave.
func (p *progress) join(ctx context.Context) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	p.sinks[p.nextID] = ctx
	if p.msg != "" {
		// A late joiner hears where the analysis is at once.
		mcp.Progress(ctx, p.pct, 100, p.msg)
	}
	return p.nextID
}

func (p *progress) leave(id int) {
	p.mu.Lock()
	delete(p.sinks, id)
	p.mu.Unlock()
}

// report sets the progress. Messages of one phase (parsing 10 of 100, 20
// of 100, …) are sent at most every 50 ms; a new phase at once.
func (p *progress) report(pct float64, msg string) {
	if p == nil {
		return
	}
	if progressHook != nil {
		progressHook(p.root, msg)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pct < p.pct {
		pct = p.pct
	}
	newPhase := phaseOf(msg) != phaseOf(p.msg)
	p.pct, p.msg = pct, msg
	now := time.Now()
	if !newPhase && now.Sub(p.sentAt) < 50*time.Millisecond {
		return
	}
	p.sentAt = now
	if pct > p.sentPct {
		p.sentPct = pct
		for _, ctx := range p.sinks {
			mcp.Progress(ctx, pct, 100, msg)
		}
	}
	if p.term != nil {
		fmt.Fprintf(p.term, "\r\x1b[Kkontext: analysing %s: %s (%.0f%%)", p.root, msg, pct)
		p.drawn = true
	}
}

// progressHook, set by tests, sees every report as it is made: a test
// acts mid-analysis (cancels it, pauses it) at a phase it names.
var progressHook func(root, msg string)

// done clears the terminal line.
func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.term != nil && p.drawn {
		fmt.Fprint(p.term, "\r\x1b[K")
		p.drawn = false
	}
}

// phaseOf is a message without its counts: "parsing 10 of 100 files" and
// "parsing 20 of 100 files" are one phase.
func phaseOf(msg string) string {
	for i := 0; i < len(msg); i++ {
		if msg[i] >= '0' && msg[i] <= '9' {
			return msg[:i]
		}
	}
	return msg
}

// The share of the work each phase of a cold analysis stands for, as the
// percentage reached when it starts; parsing and reading content advance
// through their range file by file.
const (
	pctListing  = 1
	pctParsing  = 2
	pctAssemble = 60
	pctObserve  = 65
	pctHistory  = 86
	pctRoles    = 90
)

func scanProgress(p *progress) func(scan.Phase, int, int) {
	return func(phase scan.Phase, done, total int) {
		switch phase {
		case scan.PhaseListing:
			p.report(pctListing, "listing files")
		case scan.PhaseParsing:
			if total > 0 {
				p.report(pctParsing+float64(pctAssemble-pctParsing)*float64(done)/float64(total), fmt.Sprintf("parsing %d of %d files", done, total))
			}
		case scan.PhaseManifests:
			p.report(pctAssemble, "reading manifests")
		case scan.PhaseModules:
			p.report(pctAssemble+2, "finding modules")
		case scan.PhaseImports:
			p.report(pctAssemble+3, "resolving imports")
		}
	}
}

func observeProgress(p *progress) func(int, int) {
	return func(done, total int) {
		if total > 0 {
			p.report(pctObserve+float64(pctRoles-pctObserve)*float64(done)/float64(total), fmt.Sprintf("reading %d of %d source files", done, total))
		}
	}
}

// stderrTerminal is stderr when it is a terminal (a person is watching),
// nil otherwise (a pipe to an agent host, a log file, a test).
func stderrTerminal() io.Writer {
	if term.IsTerminal(int(os.Stderr.Fd())) {
		return os.Stderr
	}
	return nil
}
