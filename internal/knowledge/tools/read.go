package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"unicode/utf8"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/index"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/secrets"
	"github.com/kontext-dev/kontext/internal/textclip"
)

// Read levels and the sizes they are held to.
const (
	levelLine     = 0
	levelOverview = 1
	levelWhole    = 2
	overviewChars = 4000
	wholeChars    = 80000
)

func (h *Handlers) CtxRead(ctx context.Context, in *spec.CtxReadInput) (*mcp.ToolResult, error) {
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	uri := strings.TrimSpace(in.URI)
	// A URI an adapter's read op owns is read there; every other one
	// locally.
	if scheme, _, ok := strings.Cut(uri, ":"); ok && !localScheme[scheme] && len(scheme) > 1 {
		if m, _ := h.svc.Adapters(ctx); m != nil {
			if name, text, owned, err := m.Read(ctx, uri, int(in.Level)); owned {
				if err != nil {
					return nil, err
				}
				return mcp.TextResult(clipRead(text, int(in.Level), name)), nil
			}
		}
	}
	text, err := readURI(ctx, o, uri, int(in.Level))
	if err != nil {
		return nil, err
	}
	return mcp.TextResult(text), nil
}

// localScheme are the URI schemes kontext reads itself.
var localScheme = map[string]bool{"kx": true, "inbox": true, "file": true, "git": true}

// clipRead holds an adapter's answer to the level's size.
func clipRead(text string, level int, adapter string) string {
	limit := overviewChars
	switch level {
	case levelLine:
		line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		return line
	case levelWhole:
		limit = wholeChars
	}
	if len(text) <= limit {
		return text
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + fmt.Sprintf("\n\n(cut at %d characters: %s answered more)", cut, adapter)
}

// readURI reads what a URI names at a level.
func readURI(ctx context.Context, o *knowledge.Opened, uri string, level int) (string, error) {
	v := knowledge.VoiceOf(ctx)
	scheme, rest, hasScheme := strings.Cut(uri, ":")
	if !hasScheme || len(scheme) == 1 { // a plain path (or a Windows drive letter)
		return readFile(o, v, uri, "", level)
	}
	switch scheme {
	case "kx":
		entries, err := o.Entries()
		if err != nil && len(entries) == 0 {
			return "", err
		}
		e, err := store.Find(entries, rest)
		if err != nil {
			return "", fmt.Errorf("%v (%s or %s list the entries)", err, v.Tool("ctx_search"), v.Tool("ctx_log"))
		}
		return entryText(e, level, v), nil
	case "inbox":
		c, err := o.State.Show(ctx, rest)
		if err != nil {
			return "", failure(err, v)
		}
		return entryText(c.Entry, level, v), nil
	case "file":
		path, section, _ := strings.Cut(rest, "#")
		return readFile(o, v, path, section, level)
	case "git":
		return readCommit(ctx, o, v, rest, level)
	}
	if len(o.Config.Adapters) > 0 {
		return "", fmt.Errorf("no source reads %s: URIs (kx:, file:, git: and inbox: are local; no adapter's read op owns it)", scheme)
	}
	return "", fmt.Errorf("no source reads %s: URIs (kx:, file:, git: and inbox: are local; no adapter is configured)", scheme)
}

// entryText is an entry at a level: one line, the overview, or the file.
func entryText(e *store.Entry, level int, v knowledge.Voice) string {
	meta := []string{e.Kind}
	for _, s := range []string{e.Status, e.Date} {
		if s != "" {
			meta = append(meta, s)
		}
	}
	line := fmt.Sprintf("%s [%s] %s", e.ID, strings.Join(meta, " · "), e.Title)
	if s := e.SummaryText(200); s != "" {
		line += " — " + s
	}
	switch level {
	case levelLine:
		return line
	case levelOverview:
		var b strings.Builder
		b.WriteString(line + "\n")
		if len(e.Paths) > 0 {
			b.WriteString("Paths: " + strings.Join(e.Paths, ", ") + "\n")
		}
		if len(e.Supersedes) > 0 {
			b.WriteString("Supersedes: " + strings.Join(e.Supersedes, ", ") + "\n")
		}
		if len(e.SupersededBy) > 0 {
			b.WriteString("Superseded by: " + strings.Join(e.SupersededBy, ", ") + "\n")
		}
		b.WriteString("\n" + strings.TrimSpace(e.Body))
		return clip(b.String(), overviewChars, v.Call("ctx_read", "level", 2)+" for the whole entry")
	}
	return clip(string(store.Marshal(e)), wholeChars, "the entry is longer than a read returns")
}

// readFile reads a file under the root, or one section of a Markdown file.
func readFile(o *knowledge.Opened, v knowledge.Voice, path, section string, level int) (string, error) {
	rel, err := o.Root.Rel(path)
	if err != nil {
		return "", err
	}
	if secrets.IsSecretFile(path) || secrets.IsSecretFile(rel) {
		return "", fmt.Errorf("%s may hold secrets: kontext never reads it", rel)
	}
	data, err := o.Root.ReadFile(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("no file %s in the repository", rel)
		}
		return "", err
	}
	if rule := secrets.SecretContent(rel, data); rule != "" {
		return "", fmt.Errorf("%s holds a credential (%s): kontext never shows it", rel, rule)
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%s is not text", rel)
	}
	text := string(data)
	title := rel
	if strings.HasSuffix(strings.ToLower(rel), ".md") {
		docs := index.SplitMarkdown(rel, data)
		want := "file:" + rel
		if section != "" {
			want += "#" + section
		}
		found := false
		for _, d := range docs {
			if d.URI == want {
				text, title, found = d.Body, d.Title, true
				break
			}
		}
		if section != "" && !found {
			var names []string
			for _, d := range docs {
				if _, s, ok := strings.Cut(d.URI, "#"); ok {
					names = append(names, s)
				}
			}
			return "", fmt.Errorf("%s has no section %q (its sections: %s)", rel, section, strings.Join(names, ", "))
		}
		if section == "" {
			text = string(data)
		}
	} else if section != "" {
		return "", fmt.Errorf("%s is not Markdown: it has no sections", rel)
	}
	switch level {
	case levelLine:
		return title + " — " + firstLine(text), nil
	case levelOverview:
		return clip(title+"\n\n"+strings.TrimSpace(text), overviewChars, v.Call("ctx_read", "level", 2)+" for the whole text"), nil
	}
	return clip(text, wholeChars, "the file is longer than a read returns"), nil
}

// readCommit reads a commit: its subject, its message and stat, or its
// diff. Secret files are left out of the stat and the diff (by path, and
// by what the diff of a file holds), and the answer says which.
func readCommit(ctx context.Context, o *knowledge.Opened, v knowledge.Voice, rev string, level int) (string, error) {
	sha, err := o.Git.ResolveCommit(ctx, rev)
	if err != nil {
		return "", fmt.Errorf("no commit %q in this repository", rev)
	}
	if level == levelLine {
		out, err := o.Git.Run(ctx, "show", "-s", "--format=%h %s (%an, %as)", sha)
		return strings.TrimSpace(string(out)), err
	}
	leftOut, err := commitSecretPaths(ctx, o, sha)
	if err != nil {
		return "", err
	}
	header, err := o.Git.Run(ctx, "show", "-s", "--format=commit %H%nAuthor: %an <%ae>%nDate:   %aI%n%n%B", sha)
	if err != nil {
		return "", err
	}
	text := string(header)
	// A pathspec that leaves out every file the commit touched would make
	// git show print nothing, the message included: the message is read
	// on its own above, the changes here.
	args := []string{"show", "--format="}
	switch {
	case len(leftOut) > maxExcludedPaths:
		// More exclusions than a command line holds: the message alone.
		args = nil
	case level == levelOverview:
		args = append(args, "--stat=120")
	default:
		args = append(args, "--patch")
	}
	if args != nil {
		args = append(args, sha)
		if len(leftOut) > 0 {
			args = append(args, "--", ".")
			for _, p := range leftOut {
				args = append(args, ":(top,exclude,literal)"+p)
			}
		}
		out, err := o.Git.Run(ctx, args...)
		if err != nil {
			return "", err
		}
		text = strings.TrimRight(text, "\n") + "\n\n" + strings.TrimLeft(string(out), "\n")
	}
	if level == levelOverview {
		text = strings.TrimSpace(text)
	} else {
		var byContent []string
		text, byContent = dropSecretPatches(text)
		leftOut = append(leftOut, byContent...)
	}
	if note := secrets.LeftOut(leftOut); note != "" {
		text = strings.TrimRight(text, "\n") + "\n\n" + note + "\n"
	}
	if level == levelOverview {
		return clip(strings.TrimSpace(text), overviewChars, v.Call("ctx_read", "level", 2)+" for the diff"), nil
	}
	return clip(text, wholeChars, "the diff is longer than a read returns"), nil
}

// maxExcludedPaths bounds the pathspecs one git show is given.
const maxExcludedPaths = 2000

// commitSecretPaths lists the secret files a commit touched (against each
// parent of a merge), renames' old names included.
func commitSecretPaths(ctx context.Context, o *knowledge.Opened, sha string) ([]string, error) {
	out, err := o.Git.Run(ctx, "diff-tree", "-r", "-z", "--root", "-m", "--name-only", "--no-commit-id", sha)
	if err != nil {
		return nil, err
	}
	var paths []string
	seen := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" && !seen[p] && secrets.IsSecretFile(p) {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths, nil
}

// dropSecretPatches removes from a `git show --patch` output the diff of
// every file whose added or removed lines are a credential (a private
// key in notes.txt), and returns the paths it removed.
func dropSecretPatches(text string) (string, []string) {
	const header = "\ndiff --git "
	first := strings.Index(text, header)
	if first < 0 {
		return text, nil
	}
	var b strings.Builder
	b.WriteString(text[:first+1])
	var dropped []string
	for rest := text[first+1:]; rest != ""; {
		end := strings.Index(rest, header)
		section := rest
		if end >= 0 {
			section, rest = rest[:end+1], rest[end+1:]
		} else {
			rest = ""
		}
		if secrets.SecretContent(patchPath(section), []byte(patchText(section))) != "" {
			dropped = append(dropped, patchPath(section))
			continue
		}
		b.WriteString(section)
	}
	return b.String(), dropped
}

// patchText is what a file's diff adds and removes, without the markers.
func patchText(section string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(section, "\n") {
		if strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") || strings.HasPrefix(l, " ") {
			b.WriteString(l[1:])
		}
	}
	return b.String()
}

// patchPath is the path a file's diff names ("diff --git a/x b/x").
func patchPath(section string) string {
	line, _, _ := strings.Cut(section, "\n")
	line = strings.TrimPrefix(line, "diff --git ")
	if i := strings.LastIndex(line, " b/"); i >= 0 {
		return line[i+3:]
	}
	return line
}

// clip cuts text to max characters at a line end, and says so.
func clip(text string, max int, hint string) string {
	if len(text) <= max {
		return text
	}
	cut := strings.LastIndexByte(text[:max], '\n')
	if cut < max/2 {
		cut = max
	}
	cut = len(textclip.Prefix(text, cut))
	return text[:cut] + fmt.Sprintf("\n… (%d more characters: %s)", len(text)-cut, hint)
}

func firstLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(strings.TrimLeft(line, "#")); line != "" {
			if len(line) > 200 {
				line = textclip.Prefix(line, 200) + "…"
			}
			return line
		}
	}
	return ""
}
