package adapters

import (
	"bufio"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/knowledge/index"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Hit is one result of an adapter's search, history or code op.
type Hit struct {
	Adapter string
	Title   string
	Snippet string
	URI     string
	Kind    string
	Date    string
	// Score is the adapter's own (0 when it gave none); it ranks nothing
	// across sources: fusion uses Rank.
	Score float64
	// Rank is the hit's place in the adapter's answer, from 1.
	Rank int
}

// listKeys are where an answer's list of items is looked for when no
// items path is configured: the original's names, plus entities and nodes
// (the knowledge-graph servers', @modelcontextprotocol/server-memory's
// search_nodes among them).
var listKeys = []string{"results", "items", "hits", "data", "matches", "entries", "memories", "documents", "entities", "nodes"}

// Fallback keys per hit field, when map does not name one.
var fallbacks = map[string][]string{
	"title":   {"title", "name", "subject", "heading", "uri", "path", "id"},
	"snippet": {"snippet", "abstract", "summary", "content", "text", "description", "body", "overview", "observations"},
	"uri":     {"uri", "url", "path", "file", "id"},
	"score":   {"score", "relevance", "similarity", "rank"},
	"kind":    {"kind", "type", "context_type", "category", "entityType"},
	"date":    {"date", "created_at", "updated_at", "time", "timestamp"},
}

func checkMapValue(v string) error {
	switch {
	case strings.HasPrefix(v, "re:"):
		if _, err := regexp.Compile(v[3:]); err != nil {
			return fmt.Errorf("%q is not a regular expression: %v", v[3:], err)
		}
	case strings.HasPrefix(v, "tpl:"):
		return checkTemplate(v[4:])
	case strings.HasPrefix(v, "="):
	default:
		for _, alt := range strings.Split(v, "|") {
			if _, err := parsePath(alt); err != nil {
				return err
			}
		}
	}
	return nil
}

// toolPayload is what an MCP tool's answer means: its structuredContent,
// else its text parsed as JSON when it is JSON, else the text.
func toolPayload(res *mcp.ToolResult) any {
	if res.Structured != nil {
		var raw []byte
		switch s := res.Structured.(type) {
		case json.RawMessage:
			raw = s
		default:
			raw, _ = json.Marshal(s)
		}
		var v any
		if json.Unmarshal(raw, &v) == nil && v != nil {
			return v
		}
	}
	text := resultText(res)
	return parsePayload(text, "auto")
}

// resultText joins a tool result's text blocks.
func resultText(res *mcp.ToolResult) string {
	var parts []string
	for _, c := range res.Content {
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &block) == nil && block.Type == "text" {
			parts = append(parts, block.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// parsePayload reads program or HTTP output per format.
func parsePayload(text, format string) any {
	switch format {
	case "text":
		return text
	case "json":
		var v any
		if json.Unmarshal([]byte(text), &v) != nil {
			return nil
		}
		return v
	case "jsonl":
		var out []any
		sc := bufio.NewScanner(strings.NewReader(text))
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			var v any
			if line := strings.TrimSpace(sc.Text()); line != "" && json.Unmarshal([]byte(line), &v) == nil {
				out = append(out, v)
			}
		}
		return out
	case "lines":
		var out []any
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	// auto: JSON when it parses, also after log lines before it.
	trimmed := strings.TrimSpace(text)
	var v any
	if json.Unmarshal([]byte(trimmed), &v) == nil {
		return v
	}
	for i := 0; i < len(trimmed); i++ {
		if (trimmed[i] == '{' || trimmed[i] == '[') && (i == 0 || trimmed[i-1] == '\n') {
			if json.Unmarshal([]byte(trimmed[i:]), &v) == nil {
				return v
			}
		}
	}
	return text
}

// items selects the list of an answer: the items path, the split text, a
// top-level array, the first array under one of listKeys, or the whole
// payload as one item; where then keeps the items whose fields match.
func items(payload any, op *Op) []any {
	var list []any
	switch {
	case op != nil && op.Items != "":
		p, _ := parsePath(op.Items)
		got := p.eval(payload)
		if len(got) == 1 && !p.spread {
			if a, ok := got[0].([]any); ok {
				got = a
			}
		}
		list = got
	case op != nil && op.Split != "":
		text, ok := payload.(string)
		if !ok {
			b, _ := json.Marshal(payload)
			text = string(b)
		}
		list = splitText(text, op.Split)
	default:
		list = defaultList(payload)
	}
	if op == nil || len(op.Where) == 0 {
		return list
	}
	kept := list[:0:0]
	for _, it := range list {
		if matches(it, op.Where) {
			kept = append(kept, it)
		}
	}
	return kept
}

func defaultList(payload any) []any {
	switch p := payload.(type) {
	case nil:
		return nil
	case []any:
		return p
	case map[string]any:
		for _, k := range listKeys {
			if a, ok := p[k].([]any); ok {
				return a
			}
		}
		return []any{p}
	case string:
		if strings.TrimSpace(p) == "" {
			return nil
		}
	}
	return []any{payload}
}

// splitText cuts text at the lines that start with prefix; each piece is
// {title, text, raw}.
func splitText(text, prefix string) []any {
	var out []any
	var cur []string
	flush := func() {
		if len(cur) == 0 {
			return
		}
		raw := strings.Join(cur, "\n")
		title := strings.TrimSpace(strings.TrimPrefix(cur[0], prefix))
		body := strings.TrimSpace(strings.Join(cur[1:], "\n"))
		out = append(out, map[string]any{"title": title, "text": body, "raw": raw})
		cur = nil
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			flush()
		}
		if len(cur) > 0 || strings.HasPrefix(line, prefix) {
			cur = append(cur, line)
		}
	}
	flush()
	return out
}

func matches(item any, where map[string]any) bool {
	for path, want := range where {
		got := first(item, path)
		if got == nil || !sameValue(got, want) {
			return false
		}
	}
	return true
}

func sameValue(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	return toText(normalizeNumber(a)) == toText(normalizeNumber(b))
}

func normalizeNumber(v any) any {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	return v
}

// mapHits turns an answer into hits. Items with neither title nor snippet
// are dropped.
func mapHits(adapter string, payload any, op *Op, r *renderer, sc scope) []Hit {
	var hits []Hit
	for _, it := range items(payload, op) {
		h := Hit{Adapter: adapter}
		get := func(field string) any {
			if op != nil {
				if spec, ok := op.Map[field]; ok {
					return mapValue(it, spec, r, sc)
				}
			}
			obj, ok := it.(map[string]any)
			if !ok {
				if field == "title" || field == "snippet" {
					return it
				}
				return nil
			}
			for _, k := range fallbacks[field] {
				if v, ok := obj[k]; ok && v != nil && toText(v) != "" {
					return v
				}
			}
			return nil
		}
		h.Title = clean(toText(get("title")), index.MaxTitle)
		h.Snippet = clean(toText(get("snippet")), index.MaxSnippet)
		if h.Snippet == h.Title {
			if _, isText := it.(string); isText {
				h.Title = clean(firstLine(h.Title), index.MaxTitle)
			}
		}
		if h.Title == "" && h.Snippet == "" {
			continue
		}
		if h.Title == "" {
			h.Title = clean(h.Snippet, 80)
		}
		h.URI = strings.TrimSpace(toText(get("uri")))
		h.Kind = clean(toText(get("kind")), 40)
		h.Date = clean(toText(get("date")), 40)
		switch s := get("score").(type) {
		case float64:
			h.Score = s
		case string:
			h.Score, _ = strconv.ParseFloat(strings.TrimSpace(s), 64)
		}
		hits = append(hits, h)
		h2 := &hits[len(hits)-1]
		h2.Rank = len(hits)
	}
	return hits
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// mapValue evaluates one map value against an item.
func mapValue(item any, spec string, r *renderer, sc scope) any {
	switch {
	case strings.HasPrefix(spec, "="):
		return spec[1:]
	case strings.HasPrefix(spec, "re:"):
		re, err := regexp.Compile(spec[3:])
		if err != nil {
			return nil
		}
		m := re.FindStringSubmatch(itemText(item))
		switch {
		case m == nil:
			return nil
		case len(m) > 1:
			return m[1]
		}
		return m[0]
	case strings.HasPrefix(spec, "tpl:"):
		local := scope{}
		for k, v := range sc {
			local[k] = v
		}
		if obj, ok := item.(map[string]any); ok {
			for k, v := range obj {
				local[k] = v
			}
		}
		local["item"] = item
		s, err := r.String(spec[4:], local)
		if err != nil {
			return nil
		}
		return s
	}
	for _, alt := range strings.Split(spec, "|") {
		if v := first(item, alt); v != nil && toText(v) != "" {
			return v
		}
	}
	return nil
}

func itemText(item any) string {
	switch x := item.(type) {
	case string:
		return x
	case map[string]any:
		if raw, ok := x["raw"].(string); ok {
			return raw
		}
	}
	b, _ := json.Marshal(item)
	return string(b)
}

// textOf is a text answer: the text path of the payload, or the payload
// itself (JSON as indented text).
func textOf(payload any, op *Op) string {
	if op != nil && op.Text != "" {
		payload = first(payload, op.Text)
	}
	switch p := payload.(type) {
	case nil:
		return ""
	case string:
		return p
	}
	b, err := json.MarshalIndent(payload, "", "  ")
	if err != nil {
		return toText(payload)
	}
	return string(b)
}

// clean makes a value one line of at most n characters.
func clean(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if utf8.RuneCountInString(out) > n {
		out = strings.TrimRight(string([]rune(out)[:n-1]), " ") + "…"
	}
	return out
}
