package index

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// splitMarkdown cuts a Markdown file into one Doc per "##" section, plus
// one for what precedes the first section. The title of a section is
// "<doc title> › <heading>", so that a hit says where it is; the doc
// title is the file's "#" heading, its front-matter title, or its path.
// HTML comments are not text (a reader never sees them), and a section
// with nothing in it, or only a generator's stub ("No modules.", as
// terraform-docs writes for an empty table), is not a document; a file
// left with none is one document, its title.
func splitMarkdown(path string, src []byte, source string) []Doc {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	fmTitle := ""
	text, fmTitle = stripFrontMatter(text)
	text = StripComments(text)

	type section struct {
		heading string
		lines   []string
	}
	var (
		docTitle string
		pre      []string
		sections []*section
		fence    string // the open code fence, "" outside one
	)
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
		} else if f := opensFence(line); f != "" {
			fence = f
		} else if level, heading := atxHeading(line); level == 2 {
			sections = append(sections, &section{heading: heading})
			continue
		} else if level == 1 && docTitle == "" && len(sections) == 0 {
			docTitle = heading
			continue
		} else if level > 2 {
			line = heading // the words of a subheading, without its #s
		} else if docTitle == "" && len(sections) == 0 && i > 0 && isSetextH1(line) && strings.TrimSpace(lines[i-1]) != "" && len(pre) > 0 {
			docTitle = strings.TrimSpace(pre[len(pre)-1])
			pre = pre[:len(pre)-1]
			continue
		}
		if len(sections) == 0 {
			pre = append(pre, line)
		} else {
			s := sections[len(sections)-1]
			s.lines = append(s.lines, line)
		}
	}
	if docTitle == "" {
		docTitle = fmTitle
	}
	if docTitle == "" {
		docTitle = path
	}
	docTitle = inlineText(docTitle)

	var docs []Doc
	body := strings.TrimSpace(strings.Join(pre, "\n"))
	if !isStub(body) {
		docs = append(docs, Doc{URI: "file:" + path, Kind: "doc", Source: source, Title: docTitle, Body: body, Paths: []string{path}})
	}
	slugs := map[string]int{}
	for _, s := range sections {
		heading := inlineText(s.heading)
		base := githubSlug(heading)
		if base == "" {
			base = "section"
		}
		// GitHub's rule: the second "Usage" is usage-1, the third usage-2,
		// skipping a suffixed slug a heading already has.
		slug := base
		for {
			if _, taken := slugs[slug]; !taken {
				break
			}
			slugs[base]++
			slug = base + "-" + strconv.Itoa(slugs[base])
		}
		slugs[slug] = 0
		body := strings.TrimSpace(strings.Join(s.lines, "\n"))
		if isStub(body) {
			continue // the slug stays taken: the next "Usage" is still usage-1
		}
		docs = append(docs, Doc{
			URI:    "file:" + path + "#" + slug,
			Kind:   "doc",
			Source: source,
			Title:  docTitle + " › " + heading,
			Body:   body,
			Paths:  []string{path},
		})
	}
	if len(docs) == 0 {
		docs = append(docs, Doc{URI: "file:" + path, Kind: "doc", Source: source, Title: docTitle, Paths: []string{path}})
	}
	return docs
}

// stubLine is what a generator writes in a section it has nothing for:
// "No modules.", "No inputs.", "None", "N/A", "TBD", "TODO".
var stubLine = lazyregexp.New(`^(?i)(?:no [a-z]+(?: [a-z]+)?|none|n/?a|tbd|to ?do|wip|coming soon|-+)\.?$`)

// isStub reports whether a section's text says nothing: empty, or one
// short stub line.
func isStub(body string) bool {
	body = strings.TrimSpace(body)
	return body == "" || len(body) <= 60 && !strings.Contains(body, "\n") && stubLine.MatchString(body)
}

// stripFrontMatter removes a leading YAML front matter block and returns
// its title, if any.
func stripFrontMatter(text string) (string, string) {
	if !strings.HasPrefix(text, "---\n") {
		return text, ""
	}
	rest := text[4:]
	title := ""
	for off := 0; off < len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		next := len(rest)
		if end >= 0 {
			line = rest[off : off+end]
			next = off + end + 1
		}
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			return rest[next:], title
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "title" {
			title = strings.Trim(strings.TrimSpace(v), `"'`)
		}
		off = next
	}
	return text, "" // no closing line: not front matter after all
}

// atxHeading returns the level and text of an ATX heading line ("## Foo ##"),
// or 0.
func atxHeading(line string) (int, string) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || !strings.HasPrefix(t, "#") {
		return 0, ""
	}
	level := 0
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
		return 0, ""
	}
	h := strings.TrimSpace(t[level:])
	// A closing sequence of #s is not part of the heading.
	if trimmed := strings.TrimRight(h, "#"); trimmed != h && (trimmed == "" || strings.HasSuffix(trimmed, " ") || strings.HasSuffix(trimmed, "\t")) {
		h = strings.TrimSpace(trimmed)
	}
	return level, h
}

func isSetextH1(line string) bool {
	t := strings.TrimSpace(line)
	return len(t) >= 3 && strings.Trim(t, "=") == ""
}

func opensFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 {
			if c == '`' && strings.ContainsRune(t[n:], '`') {
				return "" // ``` followed by a backtick is inline code
			}
			return t[:n]
		}
	}
	return ""
}

func closesFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

// inlineText reduces a heading's inline Markdown to the text GitHub
// renders: links and images to their text, HTML tags dropped.
func inlineText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			continue
		case c == '[':
			if close := strings.Index(s[i:], "]("); close > 0 {
				if end := strings.IndexByte(s[i+close:], ')'); end > 0 {
					b.WriteString(s[i+1 : i+close])
					i += close + end
					continue
				}
			}
		case c == '<':
			if end := strings.IndexByte(s[i:], '>'); end > 0 && end < 200 && i+1 < len(s) && (isASCIILetter(s[i+1]) || s[i+1] == '/') {
				i += end
				continue
			}
		}
		b.WriteByte(c)
	}
	return strings.TrimSpace(b.String())
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// githubSlug is the anchor GitHub gives a heading: lower case, spaces to
// hyphens, everything but letters, marks, numbers, "_" and "-" dropped.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// StripComments removes HTML comments (<!-- … -->, over several lines
// too) from Markdown, except inside code fences: nothing a reader of the
// rendered page sees, and the bootstrap's placeholders for sections an
// agent has yet to write are such comments. An unclosed comment runs to
// the end, as it does when rendered.
func StripComments(md string) string {
	if !strings.Contains(md, "<!--") {
		return md
	}
	var b strings.Builder
	b.Grow(len(md))
	fence := ""
	inComment := false
	for len(md) > 0 {
		line, rest, found := strings.Cut(md, "\n")
		md = rest
		if !inComment {
			if fence != "" {
				if closesFence(line, fence) {
					fence = ""
				}
				b.WriteString(line)
				if found {
					b.WriteByte('\n')
				}
				continue
			}
			if f := opensFence(line); f != "" {
				fence = f
				b.WriteString(line)
				if found {
					b.WriteByte('\n')
				}
				continue
			}
		}
		for line != "" {
			if inComment {
				end := strings.Index(line, "-->")
				if end < 0 {
					line = ""
					break
				}
				line = line[end+3:]
				inComment = false
				continue
			}
			start := strings.Index(line, "<!--")
			if start < 0 {
				b.WriteString(line)
				break
			}
			b.WriteString(line[:start])
			line = line[start+4:]
			inComment = true
		}
		if found {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
