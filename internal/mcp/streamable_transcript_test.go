package mcp_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcptest"
)

// TestHTTPTranscripts replays the HTTP exchanges in testdata/http: each
// file's "client" section is a list of requests separated by "===" lines
// (a method line, header lines, a blank line and a body; $SESSION stands
// for the session id the server last assigned), and its "server" section
// is what came back, one response per request: the status, the headers
// that carry protocol meaning, and the body, byte for byte. The server
// serves the testkit behind an HTTPGuard with the token "secret" when the
// flags say token.
//
// go test ./internal/mcp -run TestHTTPTranscripts -update rewrites the
// server sections.
func TestHTTPTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/http/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no HTTP transcripts")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) { runHTTPTranscript(t, file) })
	}
}

// transcriptHeaders are the response headers a transcript shows.
var transcriptHeaders = []string{"Allow", "Cache-Control", "Content-Type", "Mcp-Session-Id", "Www-Authenticate"}

func runHTTPTranscript(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, f := range ar.Files {
		sections[f.Name] = string(f.Data)
	}
	root, err := fsroot.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kit := mcptest.New(root)
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Title: "kontext", Version: "test"}, mcp.Options{}, kit.Toolset())
	if err != nil {
		t.Fatal(err)
	}
	kit.Attach(srv)
	guard := mcp.HTTPGuard{MaxBody: 4096}
	if slices.Contains(strings.Fields(sections["flags"]), "token") {
		guard.Token = "secret"
	}
	endpoint := srv.NewStreamableHandler(mcp.StreamableOptions{})
	ts := httptest.NewServer(guard.Wrap(endpoint))
	defer ts.Close()
	defer endpoint.Close(t.Context())

	session := ""
	var got []string
	for _, block := range strings.Split(sections["client"], "\n===\n") {
		if strings.TrimSpace(block) == "" {
			continue
		}
		req := parseTranscriptRequest(t, ts.URL, strings.ReplaceAll(block, "$SESSION", session))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		var b strings.Builder
		b.WriteString(strconv.Itoa(resp.StatusCode) + "\n")
		for _, name := range transcriptHeaders {
			for _, v := range resp.Header.Values(name) {
				if name == "Mcp-Session-Id" {
					v = "$SESSION"
				}
				b.WriteString(name + ": " + v + "\n")
			}
		}
		b.WriteString("\n")
		body := readBody(t, resp)
		b.WriteString(body)
		text := strings.TrimRight(b.String(), "\n")
		if session != "" {
			text = strings.ReplaceAll(text, session, "$SESSION")
		}
		got = append(got, text)
	}
	gotText := strings.Join(got, "\n===\n") + "\n"
	if *update {
		var files []txtar.File
		for _, f := range ar.Files {
			if f.Name != "server" {
				files = append(files, f)
			}
		}
		ar.Files = append(files, txtar.File{Name: "server", Data: []byte(gotText)})
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := sections["server"]; gotText != want {
		t.Errorf("%s: the server answered something else (-update rewrites it)\n%s", file, lineDiff(want, gotText))
	}
}

func parseTranscriptRequest(t *testing.T, base, block string) *http.Request {
	t.Helper()
	head, body, _ := strings.Cut(strings.Trim(block, "\n"), "\n\n")
	lines := strings.Split(head, "\n")
	req, err := http.NewRequest(lines[0], base, strings.NewReader(strings.TrimSpace(body)))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range lines[1:] {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("not a header: %q", line)
		}
		if name == "Host" {
			req.Host = strings.TrimSpace(value)
			continue
		}
		req.Header.Add(name, strings.TrimSpace(value))
	}
	return req
}

// readBody reads a response body; an SSE body is read until the stream
// ends, which a POST's does once it is answered.
func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	done := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		done <- b.String()
	}()
	select {
	case body := <-done:
		return body
	case <-time.After(10 * time.Second):
		t.Fatal("the response did not end within 10 s")
		return ""
	}
}
