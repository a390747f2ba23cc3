package analyze

import (
	"strings"
	"testing"
)

func goModule(t *testing.T) *fixture {
	f := newFixture(t)
	f.write(map[string]string{
		"go.mod":        "module example.com/tool\n\ngo 1.22\n",
		"go.sum":        "",
		".golangci.yml": "linters:\n  enable: [errcheck]\n",
		"cmd/tool/main.go": `package main

import (
	"flag"
	"fmt"

	"example.com/tool/internal/server"
)

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	flag.Parse()
	fmt.Println(server.Serve(*addr))
}
`,
		"internal/store/store.go": `package store

import (
	"database/sql"
	"errors"
)

var ErrNotFound = errors.New("not found")

var ErrClosed = errors.New("closed")

// QueryError is a failed query.
type QueryError struct{ Query string }

func (e *QueryError) Error() string { return "query failed: " + e.Query }

type Store struct{ db *sql.DB }

const MaxRows = 100

const DefaultTimeout = 5

const RetryCount = 3

const BatchSize = 10

func Open(dsn string) (*Store, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, &QueryError{Query: dsn}
	}
	return &Store{db: db}, nil
}
`,
		"internal/store/store_test.go": "package store\n\nimport \"testing\"\n\nfunc TestOpen(t *testing.T) {}\n",
		"internal/server/server.go": `package server

import (
	"net/http"

	"example.com/tool/internal/store"
)

func Serve(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/items", func(w http.ResponseWriter, r *http.Request) { _, _ = store.Open("x") })
	return http.ListenAndServe(addr, mux)
}
`,
		"internal/server/server_test.go": "package server\n\nimport \"testing\"\n\nfunc TestServe(t *testing.T) {}\n",
		"internal/config/config.go":      "package config\n\nimport \"os\"\n\nfunc Addr() string { return os.Getenv(\"ADDR\") }\n",
	})
	f.commit("Go tool", "Ada Lovelace", day(2026, 2, 1))
	return f
}

func TestGoModule(t *testing.T) {
	f := goModule(t)
	g := runFixture(t, f)

	ep := findEntry(g, "cmd/tool/main.go", "cli")
	if ep == nil || ep.Confidence != confGoMain || ep.Evidence[0].Line != 10 || !strings.Contains(ep.Evidence[0].Detail, "command-line library") {
		t.Fatalf("Go main entry point = %s", dumpJSON(g.EntryPoints))
	}
	if findEntry(g, "internal/server/server.go", "http-routes") == nil {
		t.Errorf("server.go registers routes: %s", dumpJSON(g.EntryPoints))
	}

	roles := map[string]string{"internal/store": "repository", "internal/server": "controller", "cmd/tool": "cli", "internal/config": "configuration"}
	for id, want := range roles {
		top, ok := TopRole(findModule(g, id))
		if !ok || top.Role != want {
			t.Errorf("%s top role = %s, want %s (%s)", id, top.Role, want, dumpJSON(findModule(g, id).Roles))
		}
	}
	if top, _ := TopRole(findModule(g, "cmd/tool")); top.Confidence != 0.924 { // cmd 0.5, flag 0.6, cli entry 0.62
		t.Errorf("cmd/tool cli confidence = %v", top.Confidence)
	}
	if top, _ := TopRole(findModule(g, "internal/store")); top.Evidence[0].File != "internal/store/store.go" || top.Evidence[0].Line != 4 {
		t.Errorf("repository evidence should be the database/sql import: %s", dumpJSON(top.Evidence))
	}

	for statement, samples := range map[string]int{
		"Go tests are named *_test.go":                                           2,
		"Go sentinel errors are package-level ErrXxx variables":                  2,
		"Go packages not meant for import by other modules live under internal/": 3,
		"Exported Go const names use PascalCase":                                 4,
		"The code is written in Go":                                              6,
	} {
		if c := findConvention(g, statement); c == nil || c.Samples != samples {
			t.Errorf("%q = %s, want samples %d", statement, dumpJSON(c), samples)
		}
	}
	if c := findConvention(g, "Go code is linted with golangci-lint"); c == nil || c.Origin != "config" {
		t.Errorf("golangci-lint = %s", dumpJSON(c))
	}
	if c := findConvention(g, "Tests run with Go's testing package"); c == nil || c.Evidence[0].Line != 3 {
		t.Errorf("Go testing = %s", dumpJSON(c))
	}
	if d := findDecision(g, "INF-PACKAGE-MANAGER"); d == nil || d.Title != "Dependencies are managed with go modules" {
		t.Errorf("package manager = %s", dumpJSON(d))
	}
	if len(g.Cycles) != 0 || len(g.Violations) != 0 {
		t.Errorf("no cycles or violations expected: %s %s", dumpJSON(g.Cycles), dumpJSON(g.Violations))
	}

	// Go imports whole packages: a change to store.go reaches the server,
	// then the command, and store's own test.
	res, err := Impact(g, "internal/store/store.go", 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.DirectDependents, ",") != "internal/server" || strings.Join(res.TransitiveDependents, ",") != "cmd/tool" {
		t.Errorf("impact dependents = %v %v", res.DirectDependents, res.TransitiveDependents)
	}
	if len(res.Tests) == 0 || res.Tests[0].Path != "internal/store/store_test.go" || res.Tests[0].Reason != "named after internal/store/store.go" {
		t.Errorf("impact tests = %s", dumpJSON(res.Tests))
	}
}
