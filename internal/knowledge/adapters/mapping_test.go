package adapters

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/knowledge/index"
	"github.com/kontext-dev/kontext/internal/mcp"
)

func TestTemplates(t *testing.T) {
	sec := &secrets{}
	r := &renderer{getenv: func(k string) string {
		if k == "TOKEN" {
			return "s3cr3t-value"
		}
		return ""
	}, secrets: sec}
	sc := scope{"query": "Order Total", "limit": 5, "tags": []any{"a", "b"}, "uri": "notes://x/7", "repo": map[string]any{"slug": "github.com-acme-shop"}}
	for tpl, want := range map[string]string{
		"{{query|urlencode}}":               "Order+Total",
		"{{ query | lower | slug }}":        "order-total",
		"{{tags|join:; }}":                  "a; b",
		"{{tags}}":                          "a, b",
		"{{uri|after:notes://}}":            "x/7",
		"{{uri|before:/}}":                  "notes:",
		"{{missing|default:http://h:1933}}": "http://h:1933",
		"{{env.URL|default:http://h}}":      "http://h",
		"{{'text'|upper}}":                  "TEXT",
		"{{query|truncate:5}}":              "Order",
		"/n/{{repo.slug}}/{{limit}}":        "/n/github.com-acme-shop/5",
		"Bearer ${env:TOKEN}":               "Bearer s3cr3t-value",
		"{{tags|json}}":                     `["a","b"]`,
		"{{query|first_line}}":              "Order Total",
	} {
		got, err := r.String(tpl, sc)
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", tpl, got, err, want)
		}
	}
	v, err := r.Value(map[string]any{"n": "{{limit}}", "tags": "{{tags}}", "gone": "{{nothing}}", "s": "q={{limit}}", "i": "{{'42'|int}}"}, sc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 5, "tags": []any{"a", "b"}, "s": "q=5", "i": int64(42)}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("Value = %#v, want %#v", v, want)
	}
	if _, err := r.String("${env:UNSET}", sc); err == nil || !strings.Contains(err.Error(), "UNSET is not set") {
		t.Fatalf("a missing ${env:} is %v", err)
	}
	if got := sec.Redact("header was Bearer s3cr3t-value, again s3cr3t-value"); strings.Contains(got, "s3cr3t") {
		t.Fatalf("Redact left the secret: %s", got)
	}
	for _, bad := range []string{"{{", "{{}}", "{{x|nope}}", "${env:", "${env:1A}", "{{x|truncate:z}}"} {
		if checkTemplate(bad) == nil {
			t.Errorf("%q parses", bad)
		}
	}
}

func TestPaths(t *testing.T) {
	var doc any
	_ = json.Unmarshal([]byte(`{"result":{"a":[1,2],"b":[3]},"data":[{"attributes":{"x":1}},{"attributes":{"x":2}}],"results":[{"title":"t0"}]}`), &doc)
	for path, want := range map[string]string{
		"result.*[*]":        "[1,2,3]",
		"data[*].attributes": `[{"x":1},{"x":2}]`,
		"results[0].title":   `["t0"]`,
		"$":                  "",
		"nothing.here":       "null",
	} {
		p, err := parsePath(path)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(p.eval(doc))
		if want != "" && string(got) != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	for _, bad := range []string{"a..b", "a[", "a[x]", "a[-1]"} {
		if _, err := parsePath(bad); err == nil {
			t.Errorf("%q parses", bad)
		}
	}
}

// @modelcontextprotocol/server-memory's search_nodes answers
// {"entities":[…],"relations":[…]} as text: with no mapping at all, its
// entities are hits.
func TestMemoryServerShapeNeedsNoMapping(t *testing.T) {
	text := `{"entities":[{"type":"entity","name":"Billing","entityType":"service","observations":["moved to Postgres in 2024","owns invoices"]},{"name":"Ada","entityType":"person","observations":[]}],"relations":[{"from":"Ada","to":"Billing","relationType":"owns"}]}`
	res := &mcp.ToolResult{Content: []json.RawMessage{mcp.TextBlock(text)}}
	hits := mapHits("memory", toolPayload(res), nil, &renderer{}, scope{})
	if len(hits) != 2 {
		t.Fatalf("hits = %+v", hits)
	}
	if h := hits[0]; h.Title != "Billing" || h.Snippet != "moved to Postgres in 2024, owns invoices" || h.Kind != "entity" || h.Rank != 1 || h.Adapter != "memory" {
		t.Fatalf("first hit %+v", h)
	}
	// structuredContent wins over the text.
	res.Structured = json.RawMessage(`{"nodes":[{"title":"N","summary":"s"}]}`)
	hits = mapHits("g", toolPayload(res), nil, &renderer{}, scope{})
	if len(hits) != 1 || hits[0].Title != "N" || hits[0].Snippet != "s" {
		t.Fatalf("structured hits %+v", hits)
	}
}

func TestMappingOptions(t *testing.T) {
	// ripgrep --json, as the original's walkthrough maps it.
	out := `{"type":"begin","data":{"path":{"text":"a.md"}}}
{"type":"match","data":{"path":{"text":"a.md"},"lines":{"text":"we meet on tuesdays\n"}}}
{"type":"end","data":{}}`
	op := &Op{Where: map[string]any{"type": "match"}, Map: map[string]string{
		"title": "data.path.text", "snippet": "data.lines.text", "uri": "tpl:wiki://{{data.path.text}}", "kind": "=note",
	}}
	hits := mapHits("wiki", parsePayload(out, "jsonl"), op, &renderer{}, scope{})
	if len(hits) != 1 || hits[0].Title != "a.md" || hits[0].Snippet != "we meet on tuesdays" || hits[0].URI != "wiki://a.md" || hits[0].Kind != "note" {
		t.Fatalf("rg hits %+v", hits)
	}
	// split, re: and alternatives.
	text := "log line\n### First\nbody one id=17\n### Second\nbody two"
	op = &Op{Split: "### ", Map: map[string]string{"uri": "re:id=(\\d+)", "snippet": "missing|text"}}
	hits = mapHits("s", parsePayload(text, "text"), op, &renderer{}, scope{})
	if len(hits) != 2 || hits[0].Title != "First" || hits[0].URI != "17" || hits[0].Snippet != "body one id=17" || hits[1].URI != "" {
		t.Fatalf("split hits %+v", hits)
	}
	// items with a wildcard, and log lines before the JSON.
	payload := parsePayload("warming up\n{\"result\":{\"docs\":[{\"name\":\"d1\",\"score\":0.7}],\"more\":[{\"name\":\"d2\"}]}}", "auto")
	hits = mapHits("x", payload, &Op{Items: "result.*[*]"}, &renderer{}, scope{})
	if len(hits) != 2 || hits[0].Title != "d1" || hits[0].Score != 0.7 || hits[1].Rank != 2 {
		t.Fatalf("items hits %+v", hits)
	}
	// lines, and items without title or snippet dropped.
	if hits := mapHits("l", parsePayload("one\n\ntwo\n", "lines"), nil, &renderer{}, scope{}); len(hits) != 2 || hits[1].Title != "two" {
		t.Fatalf("lines hits %+v", hits)
	}
	if hits := mapHits("e", []any{map[string]any{"score": 1.0}}, nil, &renderer{}, scope{}); len(hits) != 0 {
		t.Fatalf("an item with neither title nor snippet made %+v", hits)
	}
	if got := textOf(map[string]any{"result": map[string]any{"text": "hello"}}, &Op{Text: "result.text"}); got != "hello" {
		t.Fatalf("text = %q", got)
	}
}

// No input makes the mapping panic.
func FuzzMapping(f *testing.F) {
	f.Add(`{"entities":[{"name":"a"}]}`, "items[*]", "re:(")
	f.Add(`[1,"x",null,{"title":{"a":[]}}]`, "", "tpl:{{a")
	f.Fuzz(func(t *testing.T, text, items, mapv string) {
		op := &Op{Map: map[string]string{"title": mapv}}
		if _, err := parsePath(items); err == nil {
			op.Items = items
		}
		_ = mapHits("f", parsePayload(text, "auto"), op, &renderer{}, scope{})
		_ = mapHits("f", parsePayload(text, "jsonl"), &Op{Split: items}, &renderer{}, scope{})
		_, _ = (&renderer{}).String(text, scope{})
	})
}

func TestBindArgs(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"search_query":{"type":"string"},"max_results":{"type":"integer"},"projectPath":{"type":"string"},"space":{"type":"string"},"mode":{"type":"string"}},"required":["search_query","mode"]}`)
	sc := scope{"query": "billing", "limit": 5, "repo": map[string]any{"root": "/r"}}
	got := bindArgs(OpSearch, schema, sc, map[string]any{"space": "eng", "max_results": "3"})
	want := map[string]any{"search_query": "billing", "max_results": int64(3), "projectPath": "/r", "space": "eng", "mode": "billing"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bound %#v, want %#v", got, want)
	}
	hist := bindArgs(OpHistory, json.RawMessage(`{"properties":{"file_path":{"type":"string"},"k":{"type":"number"}}}`), scope{"target": "a.go:3", "limit": 2}, nil)
	if !reflect.DeepEqual(hist, map[string]any{"file_path": "a.go:3", "k": 2}) {
		t.Fatalf("history bound %#v", hist)
	}
}

func TestFuseByWeightedReciprocalRank(t *testing.T) {
	local := []index.Hit{
		{Doc: index.Doc{URI: "kx:2026-01-01-postgres", Source: "local", Title: "Orders live in Postgres"}, Snippet: "never Redis"},
		{Doc: index.Doc{URI: "file:README.md#Setup", Source: "local", Title: "Setup"}, Snippet: "make"},
	}
	mem := AsIndexHits([]Hit{
		{Adapter: "memory", Title: "Billing", Snippet: "moved to Postgres", URI: "memory://billing"},
		{Adapter: "memory", Title: "copy", Snippet: "of the local entry", URI: "notes://team/2026-01-01-postgres"},
		{Adapter: "memory", Title: "Orders live in Postgres", Snippet: "never Redis", URI: "memory://dup"},
		{Adapter: "memory", Title: "Setup", Snippet: "make", URI: ""},
		{Adapter: "memory", Title: "Ada", Snippet: "owns billing"},
	})
	got := Fuse(10, Ranked{"local", LocalWeight, local}, Ranked{"memory", 0.9, mem})
	var titles []string
	for _, h := range got {
		titles = append(titles, h.Source+":"+h.Title)
	}
	// 1/9 (local 0) > 0.9/9 (memory 0) > 1/10 (local 1)? 0.1 = 0.1: the
	// earlier list wins the tie.
	want := "local:Orders live in Postgres,local:Setup,memory:Billing,memory:Ada"
	if strings.Join(titles, ",") != want {
		t.Fatalf("fused %s\nwant  %s", strings.Join(titles, ","), want)
	}
	if got[0].Score <= got[1].Score || got[1].Score < got[2].Score {
		t.Fatalf("scores not descending: %+v", got)
	}
	// A heavier adapter outranks local results.
	got = Fuse(1, Ranked{"local", LocalWeight, local}, Ranked{"memory", 2, mem})
	if len(got) != 1 || got[0].Source != "memory" {
		t.Fatalf("weight 2: %+v", got)
	}
}
