package store

import (
	"strings"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// Section returns the text under the Markdown heading named name (any level
// from 2 down, case-insensitive), up to the next heading of the same or a
// higher level, trimmed. Headings inside code fences do not count.
func Section(body, name string) string {
	lines := strings.SplitAfter(body, "\n")
	want := strings.ToLower(strings.TrimSpace(name))
	level := 0
	var out strings.Builder
	fence := false
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence {
			if l, text := heading(t); l > 0 {
				if level > 0 && l <= level {
					break
				}
				if level == 0 && l >= 2 && strings.ToLower(text) == want {
					level = l
					continue
				}
			}
		}
		if level > 0 {
			out.WriteString(line)
		}
	}
	return strings.TrimSpace(out.String())
}

// heading returns the level and text of an ATX heading line, or 0.
func heading(t string) (int, string) {
	l := 0
	for l < len(t) && t[l] == '#' {
		l++
	}
	if l == 0 || l > 6 || (l < len(t) && t[l] != ' ' && t[l] != '\t') {
		return 0, ""
	}
	text := strings.TrimSpace(t[l:])
	text = strings.TrimSpace(strings.TrimRight(text, "#"))
	return l, text
}

var mdLink = lazyregexp.New(`\[([^\]]*)\]\([^)]*\)`)

// firstParagraph returns the first prose paragraph of Markdown as one line
// of plain text; headings, HTML, badges, tables, code and ADR field lines
// are skipped. It stops there: the summary of every entry of a store is
// worked out this way, and the rest of a body is not needed.
func firstParagraph(md string) string {
	var para []string
	fence := false
	for len(md) > 0 {
		line, rest, _ := strings.Cut(md, "\n")
		md = rest
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if len(para) > 0 {
				break
			}
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		skip := strings.HasPrefix(t, "#") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "[![") ||
			strings.HasPrefix(t, "![") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "---") ||
			strings.HasPrefix(t, "**Status") || strings.HasPrefix(t, "**Date")
		if t == "" || skip {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
	}
	if len(para) == 0 {
		return ""
	}
	return stripMarkdown(strings.Join(para, " "))
}

func stripMarkdown(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = emphasisReplacer.Replace(s)
	s = strings.TrimLeft(s, "> ")
	if strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") {
		s = s[2:]
	}
	return oneLine(s)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// truncate cuts s to max characters, ending with "…" when cut (0: no limit).
func truncate(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// emphasisReplacer drops Markdown emphasis. Built once: building a Replacer
// costs more than using it.
var emphasisReplacer = strings.NewReplacer("**", "", "__", "", "`", "")
