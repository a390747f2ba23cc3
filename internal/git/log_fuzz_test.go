package git

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// gitLogOutput renders commits as `git log -z --format=<logFormat>`
// prints them, with --name-status when files is set (checked against a
// real git in TestLogParserReadsWhatGitPrints).
func gitLogOutput(commits []Commit, files bool) []byte {
	var b bytes.Buffer
	for _, c := range commits {
		for _, field := range []string{c.SHA, strings.Join(c.Parents, " "), c.AuthorName, c.AuthorEmail,
			strconv.FormatInt(c.AuthorTime.Unix(), 10), c.Subject, c.Body} {
			b.WriteString(field + "\x00")
		}
		b.WriteString("\x00")
		if files && len(c.Files) > 0 {
			b.WriteString("\n")
			for _, f := range c.Files {
				b.WriteString(string(f.Status) + "\x00" + f.Path + "\x00")
			}
		}
	}
	return b.Bytes()
}

func parseLogOutput(out []byte) ([]Commit, error) {
	p := newLogParser(bytes.NewReader(out))
	var commits []Commit
	for {
		c, ok, err := p.next()
		if err != nil || !ok {
			return commits, err
		}
		commits = append(commits, c)
	}
}

// FuzzLogStream: any bytes where git's output should be are read without
// a panic, as commits or an error.
func FuzzLogStream(f *testing.F) {
	f.Add(gitLogOutput([]Commit{{SHA: strings.Repeat("a", 40), Subject: "s", Files: []FileChange{{Status: 'M', Path: "a"}}}}, true))
	f.Add([]byte(strings.Repeat("b", 40) + "\x00\x00n\x00e\x00x\x00s\x00b\x00"))
	f.Add([]byte("not a sha\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		commits, _ := parseLogOutput(data)
		for _, c := range commits {
			if !isSHA(c.SHA) {
				t.Fatalf("a commit without a sha: %+v", c)
			}
			for _, fc := range c.Files {
				if !strings.ContainsRune("ACDMRTUXB", rune(fc.Status)) {
					t.Fatalf("file status %q", fc.Status)
				}
			}
		}
	})
}

// FuzzLogRoundTrip: whatever a commit's message, names and paths hold
// (git forbids only NUL in them), the parser reads back what git printed.
func FuzzLogRoundTrip(f *testing.F) {
	f.Add("Ada Lovelace", "ada@example.com", "Replace the parser", "Because it was slow.\n\nDecision: x", "src/a.go", "docs/b.md", int64(1767225600))
	f.Add("", "", "", "", "a", "b", int64(0))
	f.Fuzz(func(t *testing.T, name, email, subject, body, path1, path2 string, secs int64) {
		clean := func(s string) string { return strings.ReplaceAll(s, "\x00", "") }
		oneLine := func(s string) string { return strings.ReplaceAll(clean(s), "\n", " ") }
		name, email, subject = oneLine(name), oneLine(email), oneLine(subject)
		body = strings.TrimSpace(clean(body))
		path1, path2 = clean(path1), clean(path2)
		if path1 == "" || path2 == "" || secs < 0 {
			return
		}
		want := []Commit{
			{SHA: strings.Repeat("a", 40), Parents: []string{strings.Repeat("b", 40)}, AuthorName: name, AuthorEmail: email,
				AuthorTime: time.Unix(secs, 0).UTC(), Subject: subject, Body: body,
				Files: []FileChange{{Status: 'M', Path: path1}, {Status: 'A', Path: path2}}},
			{SHA: strings.Repeat("b", 40), AuthorName: name, AuthorEmail: email, AuthorTime: time.Unix(secs, 0).UTC(), Subject: subject,
				Files: []FileChange{{Status: 'A', Path: path2}}},
		}
		got, err := parseLogOutput(gitLogOutput(want, true))
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d commits read back, want %d", len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.SHA != w.SHA || strings.Join(g.Parents, " ") != strings.Join(w.Parents, " ") || g.AuthorName != w.AuthorName ||
				g.AuthorEmail != w.AuthorEmail || !g.AuthorTime.Equal(w.AuthorTime) || g.Subject != w.Subject || g.Body != w.Body ||
				len(g.Files) != len(w.Files) {
				t.Fatalf("commit %d read back as %+v, want %+v", i, g, w)
			}
			for j := range w.Files {
				if g.Files[j] != w.Files[j] {
					t.Fatalf("commit %d file %d read back as %+v, want %+v", i, j, g.Files[j], w.Files[j])
				}
			}
		}
	})
}

// A commit message or a path holding a record or unit separator (0x1e,
// 0x1f) broke the whole history: kontext analyze and kontext why failed
// with "git log: malformed record". Real git, real bytes.
func TestLogParserReadsWhatGitPrints(t *testing.T) {
	dir := initRepo(t)
	run := func(args ...string) {
		t.Helper()
		gittest.Run(t, dir, append(gittest.Ada(), gittest.At("2026-01-02T03:04:05Z")...), args...)
	}
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package a\n")
	run("add", ".")
	run("commit", "-q", "-m", "Root")
	write("rec\x1esep.go", "package a\n")
	write("line\nbreak.md", "x\n")
	write("a.go", "package a // changed\n")
	run("add", ".")
	msg := filepath.Join(t.TempDir(), "msg")
	if err := os.WriteFile(msg, []byte("Subject with \x1e and \x1f\n\nBody \x1f with\x1e separators\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("commit", "-q", "-F", msg)
	run("commit", "-q", "--allow-empty", "-m", "Empty")
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	commits, err := r.Log(context.Background(), LogOptions{Files: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(commits) != 3 {
		t.Fatalf("%d commits", len(commits))
	}
	empty, odd, root := commits[0], commits[1], commits[2]
	if empty.Subject != "Empty" || len(empty.Files) != 0 || len(empty.Parents) != 1 {
		t.Errorf("empty commit %+v", empty)
	}
	if odd.Subject != "Subject with \x1e and \x1f" || odd.Body != "Body \x1f with\x1e separators" || odd.AuthorName != "Ada" {
		t.Errorf("subject %q, body %q, author %q", odd.Subject, odd.Body, odd.AuthorName)
	}
	var paths []string
	for _, f := range odd.Files {
		paths = append(paths, string(f.Status)+" "+f.Path)
	}
	if got := strings.Join(paths, "|"); got != "M a.go|A line\nbreak.md|A rec\x1esep.go" {
		t.Errorf("files %q", got)
	}
	if root.Subject != "Root" || len(root.Parents) != 0 || len(root.Files) != 1 || root.AuthorTime.Unix() != 1767323045 {
		t.Errorf("root commit %+v", root)
	}
	// The same through Revs (stdin) and without files.
	again, err := r.Log(context.Background(), LogOptions{Revs: []string{odd.SHA, root.SHA}})
	if err != nil || len(again) != 2 || again[0].Body != odd.Body || again[1].SHA != root.SHA || len(again[0].Files) != 0 {
		t.Fatalf("by revs: %v %+v", err, again)
	}
}
