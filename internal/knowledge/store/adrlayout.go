package store

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// adrLayout is how a directory's ADRs are written, read from the newest of
// them, so that a decision kontext adds looks like its neighbours: an
// adr-tools directory gets "# 12. Title", "Date:" and a "## Status"
// section, a MADR one its front matter and "## Decision Outcome", a MADR 2
// one its "* Status:" bullets.
type adrLayout struct {
	// frontMatter: the status and date are front matter and the title is
	// the first heading (MADR 3 and later).
	frontMatter bool
	// The title's number: what comes before it ("ADR-"), its width when
	// zero-padded (4 for "0007", 0 for "7") and what separates it from the
	// title (". ", ": ", " — "); numbered is false when titles have none.
	numbered  bool
	numPrefix string
	numWidth  int
	numSep    string
	// fieldLine is a field line of the directory, "\x00" for its label and
	// "\x01" for its value: "Date: \x01", "* \x00: \x01", "**\x00:** \x01".
	fieldLine string
	// statusSection: the status is the paragraph of a "## Status" section
	// (Nygard, adr-tools); capital: it is written with a capital letter.
	statusSection bool
	capital       bool
	// headings maps kontext's section names (Context, Decision,
	// Consequences) to the directory's heading lines ("## Context and
	// Problem Statement", "## Decision Outcome", "### Consequences").
	headings map[string]string
}

var numberedTitleRE = lazyregexp.New(`^(\D*?)(\d{1,5})(\D.*)$`)

// layoutOf reads the layout of the ADRs in dir from its newest entry (the
// highest number, else the last name); nil when the directory has none, or
// its entries are kontext's own front matter.
func (s *Store) layoutOf(dir, kind string) *adrLayout {
	abs, err := s.root.Path(dir)
	if err != nil {
		return nil
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	var names []string
	for _, d := range ents {
		if d.Type().IsRegular() && s.IsEntryPath(dir+"/"+d.Name()) {
			names = append(names, d.Name())
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.SliceStable(names, func(i, j int) bool {
		ni, nj := atoi(seqDigits(strings.TrimSuffix(names[i], ".md"))), atoi(seqDigits(strings.TrimSuffix(names[j], ".md")))
		if ni != nj {
			return ni < nj
		}
		return names[i] < names[j]
	})
	rel := dir + "/" + names[len(names)-1]
	data, err := s.root.ReadFile(rel)
	if err != nil {
		return nil
	}
	return readLayout(Parse(rel, data, kind))
}

// readLayout is the layout of one ADR.
func readLayout(e *Entry) *adrLayout {
	src := e.src
	l := &adrLayout{capital: true, headings: map[string]string{}}
	switch {
	case src.fm != nil:
		for _, b := range src.fm.blocks {
			if b.canon == "title" || b.canon == "id" || b.canon == "kind" {
				return nil // kontext's own front matter: written the usual way
			}
		}
		if _, t := firstH1(e.Body); t == "" {
			return nil
		}
		l.frontMatter = true
	case src.fd != nil && src.fd.h1 >= 0:
		d := src.fd
		line := strings.TrimRight(d.lines[d.h1], "\r\n")
		if start := strings.Index(line, "# ") + 2; start <= d.titleAt[0] {
			head := strings.TrimLeft(line[start:d.titleAt[0]], " \t")
			if m := numberedTitleRE.FindStringSubmatch(head); m != nil {
				l.numbered, l.numPrefix, l.numSep = true, m[1], m[3]
				if len(m[2]) > 1 && m[2][0] == '0' {
					l.numWidth = len(m[2])
				}
			}
		}
		for _, f := range d.fields {
			if f.canon != "" && l.fieldLine == "" {
				l.fieldLine = f.template
			}
			if f.canon == "status" {
				l.capital = f.capital
			}
		}
		if d.status != nil {
			l.statusSection, l.capital = true, d.status.capital
		}
	default:
		return nil
	}
	if l.fieldLine == "" {
		l.fieldLine = "\x00: \x01"
	}
	fence := false
	for _, line := range strings.Split(e.Body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		level, text := heading(t)
		if fence || level < 2 {
			continue
		}
		lower := strings.ToLower(text)
		var name string
		switch {
		case strings.Contains(lower, "consequence"):
			name = "Consequences"
		case strings.HasPrefix(lower, "decision"):
			name = "Decision"
		case strings.Contains(lower, "context") || strings.Contains(lower, "problem"):
			name = "Context"
		}
		if _, ok := l.headings[name]; name != "" && !ok {
			l.headings[name] = strings.Repeat("#", level) + " " + text
		}
	}
	return l
}

// renderLayout writes a new entry the way its directory's ADRs are.
func renderLayout(e *Entry, l *adrLayout) string {
	body := strings.TrimLeft(e.Body, "\r\n")
	// kontext's own section headings become the directory's.
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		if lvl, text := heading(strings.TrimSpace(line)); lvl == 2 {
			if h, ok := l.headings[text]; ok {
				lines[i] = h
			}
		}
	}
	body = ensureEOL(strings.Join(lines, "\n"), "\n")
	status := e.Status
	if e.Status == StatusSuperseded && len(e.SupersededBy) > 0 {
		status = "superseded by " + strings.Join(e.SupersededBy, ", ")
	}
	if l.capital {
		r, n := utf8.DecodeRuneInString(status)
		status = string(unicode.ToUpper(r)) + status[n:]
	}
	var b strings.Builder
	if l.frontMatter {
		b.WriteString("---\n")
		for _, c := range canonOrder {
			switch c {
			case "id", "kind", "title":
				continue
			}
			if v := fieldValue(e, c); !empty(v) {
				b.WriteString(renderKey(c, v, "\n"))
			}
		}
		for _, f := range e.Extra {
			if f.Value != nil {
				b.WriteString(renderKey(f.Key, f.Value, "\n"))
			}
		}
		b.WriteString("---\n\n# " + strings.ReplaceAll(e.Title, "\n", " ") + "\n\n" + body)
		return b.String()
	}
	title := strings.ReplaceAll(e.Title, "\n", " ")
	if n, ok := e.Number(); ok && l.numbered {
		num := strconv.Itoa(n)
		if l.numWidth > len(num) {
			num = strings.Repeat("0", l.numWidth-len(num)) + num
		}
		title = l.numPrefix + num + l.numSep + title
	}
	b.WriteString("# " + title + "\n\n")
	field := func(label, value string) {
		b.WriteString(strings.Replace(strings.Replace(l.fieldLine, "\x00", label, 1), "\x01", value, 1) + "\n")
	}
	if !l.statusSection && status != "" {
		field(fieldLabels["status"], status)
	}
	for _, c := range []string{"date", "summary", "tags", "paths", "supersedes", "commits", "author"} {
		if v := fieldText(c, fieldValue(e, c)); v != "" {
			field(fieldLabels[c], strings.ReplaceAll(v, "\n", " "))
		}
	}
	for _, f := range e.Extra {
		if v := valueString(f.Value); v != "" {
			b.WriteString(extraLine(f.Key, v) + "\n")
		}
	}
	b.WriteString("\n")
	if l.statusSection && status != "" {
		b.WriteString("## Status\n\n" + status + "\n\n")
	}
	b.WriteString(body)
	return b.String()
}
