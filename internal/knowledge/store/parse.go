package store

import (
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// source is an entry file as it was read, kept so that a rewrite changes
// only what the caller changed.
type source struct {
	text     string
	style    Style
	snap     *Entry         // the entry as read
	number   string         // the ADR number of a numbered title heading
	untitled bool           // the title was made from the file name
	lines    map[string]int // canonical field (and "title", "body") → 1-based line
	fm       *fmDoc
	fd       *fieldsDoc
}

// The canonical fields, in the order the original writes them.
var canonOrder = []string{"id", "kind", "title", "status", "date", "summary", "tags", "paths", "supersedes", "superseded_by", "commits", "author", "visibility", "origin"}

func canonRank(c string) int {
	if i := slices.Index(canonOrder, c); i >= 0 {
		return i
	}
	return len(canonOrder)
}

func isListField(c string) bool {
	switch c {
	case "tags", "paths", "supersedes", "superseded_by", "commits":
		return true
	}
	return false
}

// Parse reads an entry file. rel is its path relative to the repository
// root (the id defaults to its stem); kind is the kind of the directory it
// is in, used when the file does not say. Parse never fails: whatever it
// cannot read stays in the body, and Line reports where fields are.
func Parse(rel string, data []byte, kind string) *Entry {
	text := string(data)
	stem := strings.TrimSuffix(path.Base(strings.ReplaceAll(rel, `\`, "/")), ".md")
	e := &Entry{Path: rel, Kind: kind}
	src := &source{text: text, lines: map[string]int{}}
	if fm, ok := parseFrontMatter(text); ok {
		src.style, src.fm = StyleFrontMatter, fm
		fm.apply(e, src)
	} else {
		src.style = StyleFields
		src.fd = parseFields(text, e, src)
	}
	e.Style = src.style
	if e.ID == "" {
		e.ID = stem
	}
	if e.Title == "" {
		if src.fm != nil {
			if line, t := firstH1(e.Body); t != "" {
				e.Title = t
				src.lines["title"] = src.lines["body"] + line
			}
		}
		if e.Title == "" {
			e.Title = humanize(stem)
			src.untitled = true
		}
	}
	if e.Status != "" {
		e.Status = NormalizeStatus(e.Status)
	}
	src.snap = e.clone()
	e.src = src
	return e
}

// Line returns the 1-based line of a field in the file the entry was read
// from ("status", "paths", "title", "body", …), or 0 when it is not there.
func (e *Entry) Line(field string) int {
	if e.src == nil {
		return 0
	}
	return e.src.lines[field]
}

// Text returns the file the entry was read from ("" for a new entry).
func (e *Entry) Text() string {
	if e.src == nil {
		return ""
	}
	return e.src.text
}

// Marshal renders the entry in its style. An entry read from a file is
// written back byte for byte except for what changed since it was read; a
// new entry (or one whose Style changed) is rendered the way the original
// kontext writes entries.
func Marshal(e *Entry) []byte {
	if e.src == nil || e.src.style != e.Style {
		if e.layout != nil && e.src == nil {
			return []byte(renderLayout(e, e.layout))
		}
		if e.Style == StyleFields {
			return []byte(renderFields(e))
		}
		return []byte(renderFrontMatter(e))
	}
	if sameEntry(e, e.src.snap) {
		return []byte(e.src.text)
	}
	if e.src.fm != nil {
		return []byte(e.src.fm.patch(e, e.src.snap))
	}
	return []byte(e.src.fd.patch(e, e.src.snap))
}

func sameEntry(a, b *Entry) bool {
	for _, c := range canonOrder {
		if !reflect.DeepEqual(fieldValue(a, c), fieldValue(b, c)) {
			return false
		}
	}
	return a.Body == b.Body && reflect.DeepEqual(normExtra(a.Extra), normExtra(b.Extra))
}

func normExtra(fs []Field) []Field {
	if len(fs) == 0 {
		return nil
	}
	return fs
}

// fieldValue returns a canonical field: a string, or a []string (nil when
// empty) for list fields.
func fieldValue(e *Entry, c string) any {
	list := func(l []string) any {
		if len(l) == 0 {
			return []string(nil)
		}
		return l
	}
	switch c {
	case "id":
		return e.ID
	case "kind":
		return e.Kind
	case "title":
		return e.Title
	case "status":
		return e.Status
	case "date":
		return e.Date
	case "summary":
		return e.Summary
	case "tags":
		return list(e.Tags)
	case "paths":
		return list(e.Paths)
	case "supersedes":
		return list(e.Supersedes)
	case "superseded_by":
		return list(e.SupersededBy)
	case "commits":
		return list(e.Commits)
	case "author":
		return e.Author
	case "visibility":
		return e.Visibility
	case "origin":
		return e.Origin
	}
	return nil
}

func setField(e *Entry, c string, v any) {
	s, l := valueString(v), valueList(v)
	switch c {
	case "id":
		e.ID = s
	case "kind":
		e.Kind = strings.ToLower(s)
	case "title":
		e.Title = s
	case "status":
		e.Status = s
	case "date":
		e.Date = s
	case "summary":
		e.Summary = s
	case "tags":
		e.Tags = l
	case "paths":
		e.Paths = l
	case "supersedes":
		e.Supersedes = l
	case "superseded_by":
		e.SupersededBy = l
	case "commits":
		e.Commits = l
	case "author":
		e.Author = s
	case "visibility":
		e.Visibility = s
	case "origin":
		e.Origin = s
	}
}

func valueString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []string:
		return strings.Join(x, ", ")
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, valueString(e))
		}
		return strings.Join(parts, ", ")
	case nil:
		return ""
	}
	return ""
}

func valueList(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = splitInlineList(x)
	case []string:
		out = x
	case []any:
		for _, e := range x {
			if s := strings.TrimSpace(valueString(e)); s != "" {
				out = append(out, s)
			}
		}
	}
	var clean []string
	for _, s := range out {
		if s = strings.TrimSpace(s); s != "" {
			clean = append(clean, s)
		}
	}
	return clean
}

// splitInlineList splits "a, 'b, c', d" at commas outside quotes.
func splitInlineList(s string) []string {
	var items []string
	var cur strings.Builder
	quote := rune(0)
	for _, c := range s {
		switch {
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
			cur.WriteRune(c)
		case quote != 0 && c == quote:
			quote = 0
			cur.WriteRune(c)
		case quote == 0 && c == ',':
			items = append(items, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(c)
		}
	}
	items = append(items, cur.String())
	var out []string
	for _, it := range items {
		if u := unquote(strings.TrimSpace(it)); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// unquote reads a scalar the lenient way the original does: YAML quotes
// removed, a trailing " # comment" of a plain scalar dropped.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return unescapeReplacer.Replace(s[1 : len(s)-1])
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	if i := strings.Index(s, " #"); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// supersededRE reads the statuses that say a decision was replaced, wholly
// or in part, and by what: "Superseded by 0009", "Partly superseded by
// [ADR-15](0015-x.md)", "Superseded in part by 0012", "Replaced by 0007",
// "Superceded" (a common spelling).
var supersededRE = lazyregexp.New(`(?i)^(?:(partly|partially|in part)\s+)?(?:supersee?ded|superceded|replaced|obsoleted)(\s+in\s+part)?(?:\s+by\b:?)?(.*)$`)

// applyStatus sets the status from a raw value; "superseded by 0009" also
// names the superseding entries, and a status that says more than its
// word ("Partly superseded by 0015") keeps what it says as the note.
func applyStatus(e *Entry, raw string) (encodesLink bool) {
	v := strings.TrimSpace(raw)
	trimmed := strings.TrimSpace(strings.Trim(v, "*_`"))
	if m := supersededRE.FindStringSubmatch(trimmed); m != nil {
		for _, id := range supersededIDs(m[3]) {
			if !slices.Contains(e.SupersededBy, id) {
				e.SupersededBy = append(e.SupersededBy, id)
			}
		}
		e.Status = StatusSuperseded
		if m[1] != "" || m[2] != "" {
			e.StatusNote = trimmed
		}
		return strings.TrimSpace(m[3]) != "" || m[1] != "" || m[2] != ""
	}
	e.Status = raw
	if n := NormalizeStatus(raw); n != "" && !strings.EqualFold(trimmed, n) && slices.Contains(Statuses, n) {
		e.StatusNote = trimmed // "Accepted (2021-03-01)", "Deprecated in favour of 0012"
	}
	return false
}

// supersededIDs reads "0009", "0009, 0010" or "[9. Title](0009-title.md)".
func supersededIDs(s string) []string {
	s = strings.Trim(strings.TrimSpace(s), ":*_ ")
	var ids []string
	if m := mdLink.FindAllStringSubmatchIndex(s, -1); len(m) > 0 {
		for _, loc := range m {
			target := s[strings.Index(s[loc[0]:loc[1]], "](")+loc[0]+2 : loc[1]-1]
			target = strings.TrimSuffix(path.Base(target), ".md")
			if target != "" && target != "." && target != "/" {
				ids = append(ids, target)
			}
		}
		return ids
	}
	// Ids have no commas or quotes, so a plain split is exact.
	for _, p := range strings.Split(strings.ReplaceAll(s, "`", ""), ",") {
		if f := strings.Fields(p); len(f) > 0 {
			if id := strings.Trim(f[0], ".;"); id != "" {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// firstH1 returns the 0-based line and text of the first `# ` heading
// outside code fences.
func firstH1(text string) (int, string) {
	fence := false
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(t, "# ") {
			return i, strings.TrimSpace(t[2:])
		}
	}
	return -1, ""
}

// humanize turns a file stem into a title: "0003-use-postgres" → "Use postgres".
func humanize(stem string) string {
	s := strings.TrimLeft(stem, "0123456789-")
	if s == "" {
		s = stem
	}
	s = dashReplacer.Replace(s)
	if s == "" {
		return ""
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

func lineEnding(text string) string {
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// The replacers are built once: building a Replacer costs more than using
// it, and parsing a store uses them thousands of times.
var (
	unescapeReplacer = strings.NewReplacer(`\"`, `"`, `\\`, `\`)
	dashReplacer     = strings.NewReplacer("-", " ", "_", " ")
)
