package store

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// fieldsDoc is a classic ADR: an optional preamble, a `# Title` line, field
// lines (`**Status:** accepted`, `Status: …`, `- Status: …`), then the body.
type fieldsDoc struct {
	lines     []string // the whole file, each line with its ending
	h1        int      // index of the title line; -1 when there is none
	titleAt   [2]int   // byte range of the title text in lines[h1]
	fields    []fdField
	fieldsEnd int // index after the last field line (h1+1 when none)
	bodyStart int // index of the body's first line
	status    *statusPara
	extras    []fdExtra
	eol       string
}

// fdExtra is a key kontext keeps that has no ADR field (the bootstrap's
// init_task, say), on a line of its own among the fields as an HTML
// comment, invisible where the ADR is rendered: <!-- kontext:key value -->.
type fdExtra struct {
	line int
	key  string
}

const extraPrefix, extraSuffix = "<!-- kontext:", " -->"

// extraComment reads an extra key's line.
func extraComment(t string) (key, value string, ok bool) {
	rest, ok := strings.CutPrefix(t, extraPrefix)
	if !ok {
		return "", "", false
	}
	rest, ok = strings.CutSuffix(rest, extraSuffix)
	if !ok {
		return "", "", false
	}
	key, value, _ = strings.Cut(rest, " ")
	if key == "" || strings.Trim(key, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return "", "", false // the facts markers (kontext:facts:start) and other comments
	}
	return key, strings.TrimSpace(value), true
}

// fieldText renders a field's value for a field line. Globs go in code
// spans: a bare "src/**" at the end of a bold field line would read back
// as emphasis; the parser drops the backticks of list fields.
func fieldText(canon string, v any) string {
	if canon != "paths" {
		return valueString(v)
	}
	items := valueList(v)
	for i, it := range items {
		if strings.ContainsAny(it, "*_`") && !strings.Contains(it, "`") {
			items[i] = "`" + it + "`"
		}
	}
	return strings.Join(items, ", ")
}

func extraLine(key, value string) string {
	value = strings.ReplaceAll(strings.ReplaceAll(value, "\n", " "), "-->", "->")
	return extraPrefix + key + " " + value + extraSuffix
}

type fdField struct {
	line     int
	canon    string // "" for a recognised key kontext does not keep (scope)
	label    [2]int // byte range of the key in the line
	value    [2]int // byte range of the value
	encodes  bool   // a status that said "superseded by …"
	capital  bool   // the value started with a capital letter
	template string // the line with the value cut out, for new lines of the same look
}

// statusPara is a status kept as the first line of a `## Status` section
// (adr-tools).
type statusPara struct {
	line    int
	capital bool
	encodes bool
}

var titleNumber = lazyregexp.New(`^(?i:ADR[-\s]?)?(\d{1,5})(?:\s*[—–:]\s*|\.\s+|\s+[-—–]+\s+)(\S.*)$`)

var fieldKeys = map[string]string{
	"status": "status", "date": "date", "tags": "tags", "paths": "paths", "supersedes": "supersedes",
	"superseded by": "superseded_by", "superseded-by": "superseded_by", "summary": "summary", "commits": "commits",
	"author": "author", "authors": "author", "deciders": "author", "owner": "author",
	"scope": "", "kind": "kind", "id": "id",
}

var fieldLabels = map[string]string{
	"status": "Status", "date": "Date", "summary": "Summary", "tags": "Tags", "paths": "Paths",
	"supersedes": "Supersedes", "superseded_by": "Superseded by", "commits": "Commits", "author": "Author",
}

func parseFields(text string, e *Entry, src *source) *fieldsDoc {
	d := &fieldsDoc{lines: strings.SplitAfter(text, "\n"), h1: -1, eol: lineEnding(text)}
	if d.lines[len(d.lines)-1] == "" {
		d.lines = d.lines[:len(d.lines)-1]
	}
	fence := false
	for i, l := range d.lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(t, "# ") {
			d.h1 = i
			break
		}
	}
	if d.h1 < 0 {
		d.fieldsEnd, d.bodyStart = 0, skipBlank(d.lines, 0)
		e.Body = strings.Join(d.lines[d.bodyStart:], "")
		src.lines["body"] = d.bodyStart + 1
		return d
	}
	line := strings.TrimRight(d.lines[d.h1], "\r\n")
	start := strings.Index(line, "# ") + 2
	for start < len(line) && (line[start] == ' ' || line[start] == '\t') {
		start++
	}
	end := len(strings.TrimRight(line, " \t"))
	if end < start {
		end = start
	}
	raw := line[start:end]
	if m := titleNumber.FindStringSubmatchIndex(raw); m != nil {
		src.number = raw[m[2]:m[3]]
		start += m[4]
	}
	d.titleAt = [2]int{start, end}
	e.Title = strings.TrimSpace(line[start:end])
	src.lines["title"] = d.h1 + 1

	d.fieldsEnd = d.h1 + 1
	seen := map[string]bool{}
	for i := d.h1 + 1; i < len(d.lines); i++ {
		l := strings.TrimRight(d.lines[i], "\r\n")
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			break
		}
		if t == "" {
			continue
		}
		if key, val, ok := extraComment(t); ok {
			if e.Get(key) == "" {
				e.Set(key, val)
			}
			d.extras = append(d.extras, fdExtra{line: i, key: key})
			d.fieldsEnd = i + 1
			continue
		}
		m := matchField(l)
		if m == nil {
			break
		}
		key := strings.ToLower(strings.TrimSpace(l[m[2]:m[3]]))
		canon, known := fieldKeys[key]
		if !known {
			break
		}
		f := fdField{line: i, canon: canon, label: [2]int{m[2], m[3]}, value: [2]int{m[4], m[5]}}
		val := l[m[4]:m[5]]
		if strings.HasSuffix(val, "**") || strings.HasSuffix(val, "__") {
			val = strings.TrimSpace(val[:len(val)-2])
			f.value[1] = m[4] + len(val)
		}
		r, _ := utf8.DecodeRuneInString(val)
		f.capital = unicode.IsUpper(r)
		f.template = l[:f.label[0]] + "\x00" + l[f.label[1]:f.value[0]] + "\x01" + l[f.value[1]:]
		// The first line of a field counts; a repeated one is left as it is.
		if canon != "" && !seen[canon] {
			seen[canon] = true
			src.lines[canon] = i + 1
			switch {
			case canon == "status":
				f.encodes = applyStatus(e, val)
			case canon == "superseded_by":
				for _, id := range supersededIDs(val) {
					if !slices.Contains(e.SupersededBy, id) {
						e.SupersededBy = append(e.SupersededBy, id)
					}
				}
			case isListField(canon):
				setField(e, canon, splitInlineList(strings.ReplaceAll(val, "`", "")))
			default:
				setField(e, canon, val)
			}
		} else {
			f.canon = ""
		}
		d.fields = append(d.fields, f)
		d.fieldsEnd = i + 1
	}
	d.bodyStart = skipBlank(d.lines, d.fieldsEnd)
	e.Body = strings.Join(d.lines[d.bodyStart:], "")
	src.lines["body"] = d.bodyStart + 1
	if e.Status == "" {
		d.findStatusSection(e, src)
	}
	return d
}

// findStatusSection reads a status written as a section (adr-tools:
// "## Status\n\nAccepted"; some teams write "# Status").
func (d *fieldsDoc) findStatusSection(e *Entry, src *source) {
	fence := false
	for i := d.bodyStart; i < len(d.lines); i++ {
		t := strings.TrimSpace(d.lines[i])
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if fence {
			continue
		}
		if l, h := heading(t); l >= 1 && strings.EqualFold(h, "status") {
			j := skipBlank(d.lines, i+1)
			if j >= len(d.lines) {
				return
			}
			v := strings.TrimSpace(d.lines[j])
			if v == "" || strings.HasPrefix(v, "#") {
				return
			}
			r, _ := utf8.DecodeRuneInString(v)
			d.status = &statusPara{line: j, capital: unicode.IsUpper(r)}
			d.status.encodes = applyStatus(e, v)
			src.lines["status"] = j + 1
			return
		}
	}
}

func skipBlank(lines []string, i int) int {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	return i
}

// patch writes the ADR with the fields that differ from old changed, each
// in place, new ones after the existing field lines in their look.
func (d *fieldsDoc) patch(e, old *Entry) string {
	lines := append([]string(nil), d.lines...)
	if d.h1 < 0 {
		return renderFields(e)
	}
	var inserts []string
	removed := map[int]bool{}
	fieldAt := func(canon string) *fdField {
		for i := range d.fields {
			if d.fields[i].canon == canon {
				return &d.fields[i]
			}
		}
		return nil
	}
	setLine := func(f *fdField, value string) {
		l := lines[f.line]
		eol := l[len(strings.TrimRight(l, "\r\n")):]
		body := strings.TrimRight(l, "\r\n")
		lines[f.line] = body[:f.value[0]] + value + body[f.value[1]:] + eol
	}
	linkInStatus := fieldAt("superseded_by") == nil
	statusText := func(capital bool, encodes bool) string {
		s := e.Status
		if e.Status == StatusSuperseded && len(e.SupersededBy) > 0 && (encodes || linkInStatus) {
			s = "superseded by " + strings.Join(e.SupersededBy, ", ")
		}
		if capital {
			r, n := utf8.DecodeRuneInString(s)
			s = string(unicode.ToUpper(r)) + s[n:]
		}
		return s
	}
	statusChanged := e.Status != old.Status || (linkInStatus && !slices.Equal(e.SupersededBy, old.SupersededBy))

	if e.Title != old.Title {
		l := lines[d.h1]
		lines[d.h1] = l[:d.titleAt[0]] + strings.ReplaceAll(e.Title, "\n", " ") + l[d.titleAt[1]:]
	}
	for _, c := range canonOrder {
		label, writable := fieldLabels[c]
		if !writable {
			continue
		}
		nv, ov := fieldValue(e, c), fieldValue(old, c)
		if c == "status" {
			if !statusChanged {
				continue
			}
		} else if c == "superseded_by" && linkInStatus {
			continue
		} else if equalAny(nv, ov) {
			continue
		}
		text := fieldText(c, nv)
		f := fieldAt(c)
		if c == "status" {
			switch {
			case f != nil:
				text = statusText(f.capital, f.encodes)
			case d.status != nil:
				l := lines[d.status.line]
				eol := l[len(strings.TrimRight(l, "\r\n")):]
				indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
				lines[d.status.line] = indent + statusText(d.status.capital, d.status.encodes) + eol
				continue
			default:
				text = statusText(true, true)
			}
		}
		if f != nil {
			if text == "" {
				removed[f.line] = true
				continue
			}
			setLine(f, text)
			continue
		}
		if text == "" {
			continue
		}
		tmpl := "**\x00:** \x01"
		if len(d.fields) > 0 {
			tmpl = d.fields[0].template
		}
		line := strings.Replace(strings.Replace(tmpl, "\x00", label, 1), "\x01", text, 1)
		inserts = append(inserts, line+d.eol)
	}
	for _, f := range e.Extra {
		text := valueString(f.Value)
		at := slices.IndexFunc(d.extras, func(x fdExtra) bool { return x.key == f.Key })
		switch {
		case at >= 0 && text == old.Get(f.Key):
		case at >= 0 && text == "":
			removed[d.extras[at].line] = true
		case at >= 0:
			lines[d.extras[at].line] = extraLine(f.Key, text) + d.eol
		case text != "":
			inserts = append(inserts, extraLine(f.Key, text)+d.eol)
		}
	}
	for _, x := range d.extras {
		if !slices.ContainsFunc(e.Extra, func(f Field) bool { return f.Key == x.key }) {
			removed[x.line] = true
		}
	}
	var out strings.Builder
	bodyChanged := e.Body != old.Body
	for i, l := range lines {
		if i == d.fieldsEnd && len(inserts) > 0 {
			if len(d.fields) == 0 && len(d.extras) == 0 {
				// No field lines yet: a blank line after the title, then the fields.
				if i < len(lines) && strings.TrimSpace(lines[i]) == "" {
					out.WriteString(l)
					if !strings.HasSuffix(l, "\n") { // a last line without its end ("\r" alone)
						out.WriteString(d.eol)
					}
					out.WriteString(strings.Join(inserts, ""))
					if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
						out.WriteString(d.eol)
					}
					inserts = nil
					continue
				}
				out.WriteString(d.eol)
			}
			out.WriteString(strings.Join(inserts, ""))
			if i < len(lines) && strings.TrimSpace(l) != "" {
				out.WriteString(d.eol)
			}
			inserts = nil
		}
		if i == d.bodyStart && bodyChanged {
			break
		}
		if !removed[i] {
			out.WriteString(l)
		}
	}
	if len(inserts) > 0 {
		if !strings.HasSuffix(out.String(), "\n") {
			out.WriteString(d.eol)
		}
		if len(d.fields) == 0 && len(d.extras) == 0 {
			out.WriteString(d.eol)
		}
		out.WriteString(strings.Join(inserts, ""))
	}
	if bodyChanged {
		if d.bodyStart >= len(lines) && e.Body != "" {
			s := out.String()
			if !strings.HasSuffix(s, "\n") {
				out.WriteString(d.eol)
			}
			if !strings.HasSuffix(s, "\n\n") && !strings.HasSuffix(s, "\r\n\r\n") {
				out.WriteString(d.eol)
			}
		}
		out.WriteString(ensureEOL(e.Body, d.eol))
	}
	return out.String()
}

func equalAny(a, b any) bool {
	as, aok := a.([]string)
	bs, bok := b.([]string)
	if aok || bok {
		return slices.Equal(as, bs)
	}
	return a == b
}

// renderFields writes a new ADR the way the original does: the number and
// title, the fields in bold, then the body.
func renderFields(e *Entry) string {
	var b strings.Builder
	if short := e.ShortID(); short != e.ID {
		b.WriteString("# " + short + " — " + e.Title + "\n\n")
	} else {
		b.WriteString("# " + e.Title + "\n\n")
	}
	for _, c := range []string{"status", "date", "summary", "tags", "paths", "supersedes", "superseded_by", "commits", "author"} {
		if v := fieldText(c, fieldValue(e, c)); v != "" {
			b.WriteString("**" + fieldLabels[c] + ":** " + strings.ReplaceAll(v, "\n", " ") + "\n")
		}
	}
	for _, f := range e.Extra {
		if v := valueString(f.Value); v != "" {
			b.WriteString(extraLine(f.Key, v) + "\n")
		}
	}
	b.WriteString("\n")
	b.WriteString(ensureEOL(strings.TrimLeft(e.Body, "\r\n"), "\n"))
	return b.String()
}

// matchField recognises a field line: an optional list bullet, the key
// (bold or not), a colon, and the value (bold markers around the key and
// after the colon allowed): `**Status:** accepted`, `* Status: Accepted`,
// `Status: accepted`. It returns the byte offsets [0, len, keyStart,
// keyEnd, valueStart, valueEnd], or nil.
func matchField(l string) []int {
	i := 0
	skipSpace := func() {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
	}
	emphasis := func() {
		if strings.HasPrefix(l[i:], "**") || strings.HasPrefix(l[i:], "__") {
			i += 2
		}
	}
	skipSpace()
	if i+1 < len(l) && (l[i] == '-' || l[i] == '*' || l[i] == '+') && (l[i+1] == ' ' || l[i+1] == '\t') {
		i++
		skipSpace()
	}
	emphasis()
	ks := i
	if i >= len(l) || !isASCIILetter(l[i]) {
		return nil
	}
	for i < len(l) && i-ks < 31 && (isASCIILetter(l[i]) || l[i] == ' ' || l[i] == '_' || l[i] == '-') {
		i++
	}
	ke := i
	for ke > ks && l[ke-1] == ' ' {
		ke--
	}
	if strings.HasSuffix(l[ks:ke], "__") {
		ke -= 2
	}
	emphasis()
	skipSpace()
	if i >= len(l) || l[i] != ':' {
		return nil
	}
	i++
	skipSpace()
	emphasis()
	skipSpace()
	ve := len(l)
	for ve > i && (l[ve-1] == ' ' || l[ve-1] == '\t') {
		ve--
	}
	return []int{0, len(l), ks, ke, i, ve}
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
