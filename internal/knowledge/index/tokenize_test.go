package index

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitWords(t *testing.T) {
	for in, want := range map[string]string{
		"orderTotal":     "order total",
		"OrderTotal":     "order total",
		"order_total":    "order total",
		"order-total":    "order total",
		"ABTest2":        "ab test 2",
		"HTTPServer":     "http server",
		"parseHTTP":      "parse http",
		"v2beta1":        "v 2 beta 1",
		"OAuth2Token":    "o auth 2 token",
		"userID":         "user id",
		"plain":          "plain",
		"ÉcoleNormale":   "école normale",
		"café_au_lait":   "café au lait",
		"naïve":          "naïve",
		"x__y":           "x y",
		"getHTTPRequest": "get http request",
	} {
		if got := strings.Join(splitWords(in), " "); got != want {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpand(t *testing.T) {
	got := expand("We compute orderTotal and order_total (and orderTotal again) with ABTest2; plain words, Capitalised Words, API and HTTP stay.")
	want := "order total\nordertotal\nab test 2"
	if got != want {
		t.Errorf("expand = %q, want %q", got, want)
	}
	if got := expand("internal/orders/orderTotal.go\ncmd/kontext-mcp/main.go"); got != "order total\nkontextmcp" {
		t.Errorf("paths: %q", got)
	}
}

func TestMatchExpr(t *testing.T) {
	for in, want := range map[string]string{
		"postgres":                `"postgres"`,
		"orderTotal":              `("ordertotal" OR "order total")`,
		"order_total":             `"order total"`,
		"use Postgres for orders": `"use" OR "postgres" OR "orders" OR "use postgres for orders"`,
		`title:"x" AND y*`:        `"title" OR "x" OR "y" OR "title x and y"`,
		"the of":                  `"the" OR "of" OR "the of"`,
		"  ** () ":                ``,
		`NEAR(a b)`:               `"near" OR "b" OR "near a b"`,
		`it's`:                    `"s" OR "it s"`,
	} {
		if got := matchExpr(in); got != want {
			t.Errorf("matchExpr(%q) = %s, want %s", in, got, want)
		}
	}
	long := strings.Repeat("word", 5000)
	if got := matchExpr(strings.Repeat(long+" ", 100)); len(got) > 2*maxQueryRunes+100 {
		t.Errorf("a huge query makes a %d-byte expression", len(got))
	}
}

func TestClip(t *testing.T) {
	if got := clip("short", 10); got != "short" {
		t.Error(got)
	}
	got := clip("one two three four five six seven", 16)
	if got != "one two three…" || utf8.RuneCountInString(got) > 16 {
		t.Errorf("%q", got)
	}
	if got := clip(strings.Repeat("é", 300), 240); utf8.RuneCountInString(got) != 240 {
		t.Errorf("%d", utf8.RuneCountInString(got))
	}
	if got := oneLine("  a\n\n b\t c  "); got != "a b c" {
		t.Errorf("%q", got)
	}
}

// FuzzTokenizer: the tokenizer never panics, compoundIdentifiers finds
// every identifier expand has something to say about, and clip keeps
// its bound.
func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{"orderTotal order_total", "ABTest2", "HTTPServer2x", "a1B_c-D", "getHTTPRequest", "É\u0301cole", "a-_-b", "x\u0301Y", "٣abc", "ǅungla", "\xff\xfe", "A\u0300B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flagged := map[string]bool{}
		compoundIdentifiers(s, func(id string) { flagged[id] = true })
		identifiers(s, func(id string) {
			words, plain := splitWords(id), plainWords(id)
			if !flagged[id] && ((len(words) > 1 && !slices.Equal(words, plain)) || len(plain) > 1) {
				t.Errorf("%q: identifier %q (%q, %q) not flagged", s, id, words, plain)
			}
			split, sp, joined, nw, nr := expandASCII(id, nil, nil, nil)
			if nw >= 0 && (string(split) != strings.Join(words, " ") || string(sp) != strings.Join(plain, " ") ||
				string(joined) != strings.Join(plain, "") || nw != len(words) || nr != len(plain)) {
				t.Errorf("expandASCII(%q) = %q %q %q %d %d; splitWords %q, plainWords %q", id, split, sp, joined, nw, nr, words, plain)
			}
		})
		expand(s)
		if n := utf8.RuneCountInString(clip(oneLine(s), 20)); n > 20 {
			t.Errorf("clip: %d", n)
		}
		splitMarkdown("f.md", []byte(s), "local")
		githubSlug(s)
		inlineText(s)
	})
}

// FuzzQuery runs what an agent could type against a real FTS5 table:
// whatever the text, the expression is never an FTS5 error.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{`"`, `a AND`, `NEAR(a b, 2)`, `title:x`, `x*`, `(`, `^a`, `-a`, `a OR`, "\x00", `""`, `'`, "ǅ", "\u0301", "Ⅻ", "x\u200dy", "a:b:c", "{a b}: c", "𝟘abc"} {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE fts USING fts5(title, expanded, body, paths, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`INSERT INTO fts VALUES ('Use Postgres', 'order total', 'We store orders in postgres.', 'a/b.go')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		expr := matchExpr(s)
		if expr == "" {
			return
		}
		rows, err := db.QueryContext(context.Background(), `SELECT bm25(fts), snippet(fts, 2, '', '', '…', 36) FROM fts WHERE fts MATCH ?`, expr)
		if err != nil {
			t.Fatalf("%q → %s: %v", s, expr, err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%q → %s: %v", s, expr, err)
		}
		rows.Close()
	})
}
