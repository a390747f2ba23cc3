package store

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/glob"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Level is how serious a problem is: errors block a commit, warnings do not.
type Level int

// The levels.
const (
	Warning Level = iota + 1
	Error
)

func (l Level) String() string {
	if l == Error {
		return "error"
	}
	return "warning"
}

// Problem is one finding of Validate.
type Problem struct {
	Level   Level
	Path    string
	Line    int // 1-based; 1 when the problem is the whole file
	Message string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s:%d: %s", p.Level, p.Path, p.Line, p.Message)
}

// CheckOptions configure Validate.
type CheckOptions struct {
	// All is every entry of the store, for duplicate ids and supersedes
	// references; nil means the entries being checked.
	All []*Entry
	// KnownKind says which kinds exist; nil means the built-in ones.
	KnownKind func(string) bool
	// MaxBodyLines warns above this many non-empty body lines (0: off).
	MaxBodyLines int
	// Tracked is every tracked file, for the `paths` check; nil skips it.
	Tracked []string
	// Scanner finds secrets; nil uses the built-in rules. Set NoSecrets to
	// skip the scan (secrets.scan = "off").
	Scanner   *secrets.Scanner
	NoSecrets bool
}

// The markers of the facts kontext renders into overview and module docs
// (the bootstrap writes them).
const (
	factsStartPrefix = "<!-- kontext:facts:start"
	factsEndMarker   = "<!-- kontext:facts:end -->"
)

// Validate checks entries the way `kontext check` does. Errors: missing
// title, unknown kind, duplicate id, high-confidence secret. Warnings: a
// decision without status or date, an unusual status, a malformed date, a
// long body, supersedes pointing nowhere, a paths pattern that matches no
// tracked file, a medium-confidence secret. Problems are ordered by file
// and line.
func Validate(entries []*Entry, opts CheckOptions) []Problem {
	all := opts.All
	if all == nil {
		all = entries
	}
	known := opts.KnownKind
	if known == nil {
		known = isBuiltinKind
	}
	scanner := opts.Scanner
	byID := map[string][]string{}
	for _, e := range all {
		byID[e.ID] = append(byID[e.ID], e.Path)
	}
	var out []Problem
	for _, e := range entries {
		add := func(level Level, field, format string, args ...any) {
			line := e.Line(field)
			if line == 0 {
				line = 1
			}
			out = append(out, Problem{Level: level, Path: e.Path, Line: line, Message: fmt.Sprintf(format, args...)})
		}
		if strings.TrimSpace(e.Title) == "" || (e.src != nil && e.src.untitled) {
			add(Error, "title", "missing title (no title key and no # heading)")
		}
		if !known(e.Kind) {
			add(Error, "kind", "unknown kind %q", e.Kind)
		}
		if paths := byID[e.ID]; len(paths) > 1 {
			others := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == e.Path })
			add(Error, "id", "duplicate id %q (also %s)", e.ID, strings.Join(others, ", "))
		}
		if e.Kind == KindDecision {
			switch {
			case e.Status == "":
				add(Warning, "status", "decision has no status (proposed|accepted|superseded|deprecated|rejected)")
			case !slices.Contains(Statuses, e.Status):
				add(Warning, "status", "unusual decision status %q (proposed|accepted|superseded|deprecated|rejected)", e.Status)
			}
			if e.Date == "" {
				add(Warning, "date", "decision has no date")
			}
		}
		if e.Date != "" && !ValidDate(e.Date) {
			add(Warning, "date", "date %q is not YYYY-MM-DD", e.Date)
		}
		if max := opts.MaxBodyLines; max > 0 && e.Get("generated") == "" {
			// The facts kontext renders between its markers are its own
			// output, kept short where they are written: only what people
			// and agents wrote counts.
			n, facts := 0, false
			for _, l := range strings.Split(e.Body, "\n") {
				t := strings.TrimSpace(l)
				switch {
				case strings.HasPrefix(t, factsStartPrefix):
					facts = true
				case strings.HasPrefix(t, factsEndMarker):
					facts = false
				case t != "" && !facts:
					n++
				}
			}
			if n > max {
				add(Warning, "body", "long entry (%d lines > %d): keep entries brief and link to docs for detail", n, max)
			}
		}
		for _, s := range e.Supersedes {
			if _, err := Find(all, s); err != nil {
				add(Warning, "supersedes", "supersedes %q, which is not an entry (%v)", s, err)
			}
		}
		if opts.Tracked != nil {
			for _, p := range e.Paths {
				if !slices.ContainsFunc(opts.Tracked, glob.Matcher(p)) {
					add(Warning, "paths", "path pattern %q matches no tracked file", p)
				}
			}
		}
		if !opts.NoSecrets {
			text := e.Text()
			if text == "" {
				text = string(Marshal(e))
			}
			var fs []secrets.Finding
			if scanner != nil {
				fs = scanner.Scan(text)
			} else {
				fs = secrets.Scan(text)
			}
			for _, f := range fs {
				level, word := Warning, "possible"
				if f.Severity == secrets.High {
					level, word = Error, "high-confidence"
				}
				out = append(out, Problem{Level: level, Path: e.Path, Line: f.Line,
					Message: fmt.Sprintf("%s secret (%s) at column %d: %s; remove it, or mark the line with %s if it is not one", word, f.Rule, f.Col, f.Excerpt, secrets.AllowMarker)})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// Check validates every entry of the store with its configuration;
// tracked (nil: skip) is the list of tracked files for the paths check.
func (s *Store) Check(tracked []string) ([]Problem, error) {
	entries, err := s.Load()
	opts := CheckOptions{
		MaxBodyLines: s.cfg.Store.MaxBodyLines,
		Tracked:      tracked,
		KnownKind:    func(k string) bool { _, ok := s.cfg.Kind(k); return ok },
		NoSecrets:    s.cfg.Secrets.Scan == "off",
	}
	if sc, serr := secrets.New(s.cfg.Secrets.Allow, nil); serr == nil {
		opts.Scanner = sc
	}
	return Validate(entries, opts), err
}
