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

// withoutSection returns body without the section under the heading named
// name, at any level: its heading and its text, up to the next heading
// (a "# Status" some ADRs write is no parent of the sections after it).
func withoutSection(body, name string) string {
	want := strings.ToLower(strings.TrimSpace(name))
	var out strings.Builder
	skipping := false
	fence := false
	for _, line := range strings.SplitAfter(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence {
			if l, text := heading(t); l > 0 {
				skipping = strings.ToLower(text) == want
			}
		}
		if !skipping {
			out.WriteString(line)
		}
	}
	return out.String()
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
// are skipped. A list reads as its items joined by "; ", and a lead-in
// that ends with a colon ("We decided the following:") is followed by what
// it leads in. It stops there: the summary of every entry of a store is
// worked out this way, and the rest of a body is not needed.
func firstParagraph(md string) string {
	var out string
	for {
		para, list, rest := nextBlock(md)
		md = rest
		switch {
		case para == "" && len(list) == 0:
			return out
		case len(list) > 0:
			for i, it := range list {
				list[i] = strings.TrimRight(it, ".;,")
			}
			para = strings.Join(list, "; ")
		}
		if out != "" {
			out += " "
		}
		out += para
		if !strings.HasSuffix(out, ":") {
			return out
		}
	}
}

// nextBlock reads the next prose block of md: a paragraph on one line, or
// the items of a list; rest is what follows it.
func nextBlock(md string) (para string, list []string, rest string) {
	var lines []string
	fence := false
	isItem := func(t string) (string, bool) {
		for _, p := range []string{"- ", "* ", "+ "} {
			if strings.HasPrefix(t, p) {
				return strings.TrimSpace(t[len(p):]), true
			}
		}
		if i := strings.IndexAny(t, ".)"); i > 0 && i <= 3 && strings.Trim(t[:i], "0123456789") == "" && len(t) > i+1 && t[i+1] == ' ' {
			return strings.TrimSpace(t[i+2:]), true
		}
		return "", false
	}
	for len(md) > 0 {
		line, next, _ := strings.Cut(md, "\n")
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if len(lines) > 0 || len(list) > 0 {
				break
			}
			md = next
			fence = !fence
			continue
		}
		if fence {
			md = next
			continue
		}
		skip := strings.HasPrefix(t, "#") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "[![") ||
			strings.HasPrefix(t, "![") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "---") ||
			strings.HasPrefix(t, "**Status") || strings.HasPrefix(t, "**Date")
		if t == "" || skip {
			if len(lines) > 0 || len(list) > 0 {
				break
			}
			md = next
			continue
		}
		if item, ok := isItem(t); ok {
			if len(lines) > 0 {
				break // a list interrupts a paragraph ("… modified to:\n1. …")
			}
			if item != "" {
				list = append(list, stripMarkdown(item))
			}
			md = next
			continue
		}
		if len(list) > 0 {
			if line != "" && (line[0] == ' ' || line[0] == '\t') {
				// An item's continuation line.
				list[len(list)-1] = oneLine(list[len(list)-1] + " " + stripMarkdown(t))
				md = next
				continue
			}
			break
		}
		lines = append(lines, t)
		md = next
	}
	if len(lines) > 0 {
		para = stripMarkdown(strings.Join(lines, " "))
	}
	return para, list, md
}

// firstSentences is the first sentence of text, and the ones after it
// while the whole stays within max characters: a summary that ends where
// a sentence does.
func firstSentences(text string, max int) string {
	end := 0
	for end < len(text) {
		next := sentenceEnd(text, end)
		if end > 0 && utf8.RuneCountInString(text[:next]) > max {
			break
		}
		end = next
	}
	return strings.TrimSpace(text[:end])
}

// sentenceEnd is the index after the sentence starting at i: its full
// stop, question or exclamation mark followed by a space and a capital
// letter or a digit, not an abbreviation (e.g., i.e., etc.) or a number.
func sentenceEnd(text string, i int) int {
	for j := i; j < len(text)-2; j++ {
		c := text[j]
		if c != '.' && c != '!' && c != '?' || text[j+1] != ' ' {
			continue
		}
		n := text[j+2]
		if !(n >= 'A' && n <= 'Z' || n >= '0' && n <= '9' || n == '"' || n == '(' || n >= 0x80) {
			continue
		}
		if c == '.' {
			word := text[i:j]
			if k := strings.LastIndexByte(word, ' '); k >= 0 {
				word = word[k+1:]
			}
			switch strings.ToLower(word) {
			case "e.g", "i.e", "etc", "vs", "cf", "mr", "mrs", "dr", "no", "approx", "incl":
				continue
			}
		}
		return j + 1
	}
	return len(text)
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
