package analyze

import (
	"strings"
	"unicode"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// mdDoc is what the decision detectors need from a markdown document:
// its flat front matter, its headings (outside code fences) and its lines.
// The parser is total: any bytes give a document, possibly empty.
type mdDoc struct {
	Front     map[string]string   // lower-cased keys → scalar (lists joined with ", ")
	FrontList map[string][]string // keys whose value is a list
	FrontLine map[string]int      // 1-based line of each front-matter key
	Lines     []string
	BodyStart int // index of the first line after the front matter
	Headings  []mdHeading
	inFence   []bool // per line: inside a fenced code block
}

type mdHeading struct {
	Level int
	Title string
	Line  int // 1-based
}

const (
	maxFrontLines = 200
	maxHeadings   = 4000
)

var reATX = lazyregexp.New(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)

func parseMarkdown(data []byte) *mdDoc {
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	text = strings.TrimPrefix(text, "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	d := &mdDoc{
		Front:     map[string]string{},
		FrontList: map[string][]string{},
		FrontLine: map[string]int{},
		Lines:     strings.Split(text, "\n"),
	}
	d.parseFront()
	d.parseHeadings()
	return d
}

// parseFront reads a flat YAML front matter by hand rather than with a
// YAML library: a library rejects the whole block for one odd line (an
// unquoted colon, a tab), and losing the status for that is worse than
// reading the lines it understands.
func (d *mdDoc) parseFront() {
	if len(d.Lines) == 0 || strings.TrimRight(d.Lines[0], " \t") != "---" {
		return
	}
	end := -1
	for i := 1; i < len(d.Lines) && i <= maxFrontLines; i++ {
		t := strings.TrimRight(d.Lines[i], " \t")
		if t == "---" || t == "..." {
			end = i
			break
		}
	}
	if end < 0 {
		return
	}
	d.BodyStart = end + 1
	lastKey := ""
	for i := 1; i < end; i++ {
		line := d.Lines[i]
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasPrefix(t, "- ") || t == "-" {
			if lastKey != "" && len(line) > 0 && (line[0] == ' ' || line[0] == '\t' || line[0] == '-') {
				d.FrontList[lastKey] = append(d.FrontList[lastKey], unquote(strings.TrimSpace(strings.TrimPrefix(t, "-"))))
				d.Front[lastKey] = strings.Join(d.FrontList[lastKey], ", ")
			}
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue // nested mappings are not part of the flat format
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" || strings.ContainsAny(k, " \t\"'") {
			continue
		}
		v = strings.TrimSpace(v)
		lastKey = k
		d.FrontLine[k] = i + 1
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			var items []string
			for _, it := range strings.Split(v[1:len(v)-1], ",") {
				if it = unquote(strings.TrimSpace(it)); it != "" {
					items = append(items, it)
				}
			}
			d.FrontList[k] = items
			d.Front[k] = strings.Join(items, ", ")
			continue
		}
		d.Front[k] = unquote(stripYAMLComment(v))
	}
}

func stripYAMLComment(v string) string {
	if strings.HasPrefix(v, `"`) || strings.HasPrefix(v, `'`) {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[:end+2] // the quoted scalar; what follows is a comment
		}
		return v
	}
	if i := strings.Index(v, " #"); i >= 0 {
		return strings.TrimSpace(v[:i])
	}
	return v
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

func (d *mdDoc) parseHeadings() {
	d.inFence = make([]bool, len(d.Lines))
	fence := ""
	for i := d.BodyStart; i < len(d.Lines); i++ {
		line := d.Lines[i]
		t := strings.TrimSpace(line)
		if fence != "" {
			d.inFence[i] = true
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			n := 0
			for n < len(t) && t[n] == t[0] {
				n++
			}
			fence = t[:n]
			d.inFence[i] = true
			continue
		}
		if len(d.Headings) >= maxHeadings {
			continue
		}
		if m := reATX.FindStringSubmatch(line); m != nil {
			title := strings.TrimSpace(strings.TrimRight(m[2], "#"))
			d.Headings = append(d.Headings, mdHeading{Level: len(m[1]), Title: title, Line: i + 1})
			continue
		}
		// Setext: a paragraph line underlined with === or ---.
		if i > d.BodyStart && t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "" && len(t) >= 2) {
			prev := strings.TrimSpace(d.Lines[i-1])
			if prev != "" && !d.inFence[i-1] && !reATX.MatchString(d.Lines[i-1]) && !strings.HasPrefix(prev, "-") && !strings.HasPrefix(prev, "|") {
				level := 1
				if t[0] == '-' {
					level = 2
				}
				d.Headings = append(d.Headings, mdHeading{Level: level, Title: prev, Line: i})
			}
		}
	}
}

// title is the first level-1 heading, else the first heading.
func (d *mdDoc) title() (mdHeading, bool) {
	for _, h := range d.Headings {
		if h.Level == 1 {
			return h, true
		}
	}
	if len(d.Headings) > 0 {
		return d.Headings[0], true
	}
	return mdHeading{}, false
}

// status finds a decision status: front matter, a "Status: x" line
// (plain, bold or a list item), or the first word under a Status heading.
// raw is as written; line is 1-based (0 when none).
func (d *mdDoc) status() (raw string, line int) {
	if v := strings.TrimSpace(d.Front["status"]); v != "" {
		return firstWord(v), d.FrontLine["status"]
	}
	for i := d.BodyStart; i < len(d.Lines); i++ {
		if d.inFence[i] {
			continue
		}
		if m := reStatusLine.FindStringSubmatch(d.Lines[i]); m != nil {
			return m[1], i + 1
		}
	}
	for hi, h := range d.Headings {
		if !strings.EqualFold(strings.Trim(h.Title, " *_:"), "status") {
			continue
		}
		end := len(d.Lines)
		if hi+1 < len(d.Headings) {
			end = d.Headings[hi+1].Line - 1
		}
		for i := h.Line; i < end && i < len(d.Lines); i++ {
			if w := firstWord(d.Lines[i]); w != "" {
				return w, i + 1
			}
		}
	}
	return "", 0
}

// date is an ISO date from the front matter or a "Date: …" line.
func (d *mdDoc) date() string {
	if v := strings.TrimSpace(d.Front["date"]); len(v) >= 10 && isISODate(v[:10]) {
		return v[:10]
	}
	for i := d.BodyStart; i < len(d.Lines) && i < d.BodyStart+60; i++ {
		if m := reDateLine.FindStringSubmatch(d.Lines[i]); m != nil {
			return m[1]
		}
	}
	return ""
}

func isISODate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// firstWord is the first run of letters of s, after list and emphasis marks.
func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t>*_-+[`")
	end := 0
	for end < len(s) {
		r := rune(s[end])
		if r >= 0x80 || !(unicode.IsLetter(r)) {
			break
		}
		end++
	}
	return s[:end]
}

// sectionText is the prose under heading hi, up to the next heading of
// the same or a higher level.
func (d *mdDoc) sectionText(hi int) string {
	if hi < 0 || hi >= len(d.Headings) {
		return ""
	}
	h := d.Headings[hi]
	end := len(d.Lines)
	for _, n := range d.Headings[hi+1:] {
		if n.Level <= h.Level {
			end = n.Line - 1
			break
		}
	}
	return d.paragraph(h.Line, end)
}

// paragraph joins the first prose paragraph in lines [from, to): not a
// heading, a fence, a status or date line, a table or an HTML comment.
func (d *mdDoc) paragraph(from, to int) string {
	if to > len(d.Lines) {
		to = len(d.Lines)
	}
	var parts []string
	size := 0
	for i := from; i < to; i++ {
		if i < 0 {
			continue
		}
		line := d.Lines[i]
		t := strings.TrimSpace(line)
		skip := d.inFence[i] || reATX.MatchString(line) || strings.HasPrefix(t, "<!--") || strings.HasPrefix(t, "|") ||
			reStatusLine.MatchString(line) || reDateLine.MatchString(line) || strings.Trim(t, "=-") == "" && t != ""
		if t == "" || skip {
			if len(parts) > 0 {
				break
			}
			continue
		}
		parts = append(parts, t)
		if size += len(t) + 1; size > 2*maxExcerpt {
			break // enough for an excerpt
		}
	}
	return strings.Join(parts, " ")
}

// bodyParagraph is the first paragraph after the title.
func (d *mdDoc) bodyParagraph() string {
	start := d.BodyStart
	if h, ok := d.title(); ok {
		start = h.Line
	}
	return d.paragraph(start, len(d.Lines))
}

var reSecrets = []*lazyregexp.Regexp{
	lazyregexp.New(`(?i)\b(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)(\s*[:=]\s*)\S+`),
	lazyregexp.New(`\bAKIA[0-9A-Z]{16}\b`),
	lazyregexp.New(`\bgh[pousr]_[A-Za-z0-9]{30,}\b`),
	lazyregexp.New(`\b(sk|pk|rk)-[A-Za-z0-9_-]{20,}\b`),
	lazyregexp.New(`\bxox[abprs]-[A-Za-z0-9-]{10,}\b`),
	lazyregexp.New(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`),
}

// excerpt makes text safe to show: secrets redacted, at most maxExcerpt bytes.
func excerpt(s string) string {
	// Redact only what can be shown: the regexps then run on a few
	// hundred bytes, whatever the document's size.
	s = clip(strings.Join(strings.Fields(clip(s, 8*maxExcerpt)), " "), 2*maxExcerpt)
	for i, re := range reSecrets {
		if i == 0 {
			s = re.ReplaceAllString(s, "$1$2[redacted]")
			continue
		}
		s = re.ReplaceAllString(s, "[redacted]")
	}
	return clip(s, maxExcerpt)
}
