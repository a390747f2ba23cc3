package adapters

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Templates are the original's: {{path | filter | filter:arg}} over a scope
// of repository, vars, env, now and the op's inputs, plus ${env:NAME} for
// a secret taken from the environment. Every environment value a template
// reads is remembered by the renderer's secrets, so that no error or
// answer that quotes it shows it.

// scope is what templates read: nested maps, with env looked up lazily.
type scope map[string]any

// renderer expands templates; it records the environment values it reads.
type renderer struct {
	getenv  func(string) string
	secrets *secrets
}

// errMissingEnv is a ${env:NAME} whose variable is not set.
type errMissingEnv struct{ name string }

func (e errMissingEnv) Error() string {
	return fmt.Sprintf("the environment variable %s is not set", e.name)
}

// expr is one parsed {{…}}.
type expr struct {
	literal *string
	path    string
	filters []filter
}

type filter struct{ name, arg string }

var knownFilters = map[string]bool{
	"urlencode": true, "json": true, "lower": true, "upper": true, "trim": true, "slug": true,
	"first_line": true, "join": true, "truncate": true, "after": true, "before": true, "default": true, "int": true,
}

// piece is literal text or an expression of a template.
type piece struct {
	text string
	expr *expr
	env  string // ${env:NAME}
}

// parseTemplate splits a template into pieces.
func parseTemplate(s string) ([]piece, error) {
	var out []piece
	for s != "" {
		i := strings.Index(s, "{{")
		j := strings.Index(s, "${env:")
		if i < 0 && j < 0 {
			out = append(out, piece{text: s})
			break
		}
		if j >= 0 && (i < 0 || j < i) {
			end := strings.IndexByte(s[j:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%q: ${env: is not closed with }", s)
			}
			name := s[j+len("${env:") : j+end]
			if !envName(name) {
				return nil, fmt.Errorf("%q: %q is not an environment variable name", s, name)
			}
			if j > 0 {
				out = append(out, piece{text: s[:j]})
			}
			out = append(out, piece{env: name})
			s = s[j+end+1:]
			continue
		}
		end := strings.Index(s[i:], "}}")
		if end < 0 {
			return nil, fmt.Errorf("%q: {{ is not closed with }}", s)
		}
		e, err := parseExpr(s[i+2 : i+end])
		if err != nil {
			return nil, fmt.Errorf("%q: %v", s, err)
		}
		if i > 0 {
			out = append(out, piece{text: s[:i]})
		}
		out = append(out, piece{expr: e})
		s = s[i+end+2:]
	}
	return out, nil
}

func envName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r < utf8.RuneSelf && (unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

func parseExpr(s string) (*expr, error) {
	parts := splitOutsideQuotes(s, '|')
	head := strings.TrimSpace(parts[0])
	e := &expr{}
	switch {
	case head == "":
		return nil, errors.New("an expression is empty")
	case len(head) >= 2 && (head[0] == '\'' || head[0] == '"') && head[len(head)-1] == head[0]:
		lit := head[1 : len(head)-1]
		e.literal = &lit
	default:
		e.path = head
	}
	for _, p := range parts[1:] {
		name, arg, _ := strings.Cut(strings.TrimLeft(p, " "), ":")
		name = strings.TrimSpace(name)
		// A join separator is kept as written ("join:, "): its spaces
		// are the point.
		if name != "join" {
			arg = strings.TrimSpace(arg)
		}
		if !knownFilters[name] {
			return nil, fmt.Errorf("unknown filter %q", name)
		}
		if name == "truncate" {
			if n, err := strconv.Atoi(arg); err != nil || n <= 0 {
				return nil, fmt.Errorf("truncate needs a positive length, not %q", arg)
			}
		}
		e.filters = append(e.filters, filter{name, arg})
	}
	return e, nil
}

func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	quote := byte(0)
	start := 0
	for i := 0; i < len(s); i++ {
		switch {
		case quote != 0:
			if s[i] == quote {
				quote = 0
			}
		case s[i] == '\'' || s[i] == '"':
			quote = s[i]
		case s[i] == sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// checkTemplate reports a template that cannot be parsed.
func checkTemplate(s string) error {
	_, err := parseTemplate(s)
	return err
}

// String renders a template as text.
func (r *renderer) String(tpl string, sc scope) (string, error) {
	pieces, err := parseTemplate(tpl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range pieces {
		v, err := r.piece(p, sc)
		if err != nil {
			return "", err
		}
		b.WriteString(toText(v))
	}
	return b.String(), nil
}

// Value renders a JSON value: a string that is exactly one expression keeps
// the expression's type; object members that render to nil are dropped, so
// optional arguments disappear instead of being sent empty.
func (r *renderer) Value(v any, sc scope) (any, error) {
	switch x := v.(type) {
	case string:
		pieces, err := parseTemplate(x)
		if err != nil {
			return nil, err
		}
		if len(pieces) == 1 && pieces[0].text == "" {
			return r.piece(pieces[0], sc)
		}
		return r.String(x, sc)
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			rv, err := r.Value(val, sc)
			if err != nil {
				return nil, err
			}
			if rv != nil {
				out[k] = rv
			}
		}
		return out, nil
	case []any:
		out := make([]any, 0, len(x))
		for _, val := range x {
			rv, err := r.Value(val, sc)
			if err != nil {
				return nil, err
			}
			if rv != nil {
				out = append(out, rv)
			}
		}
		return out, nil
	}
	return v, nil
}

func (r *renderer) piece(p piece, sc scope) (any, error) {
	switch {
	case p.env != "":
		v := r.env(p.env)
		if v == "" {
			return nil, errMissingEnv{p.env}
		}
		return v, nil
	case p.expr != nil:
		return r.eval(p.expr, sc), nil
	}
	return p.text, nil
}

func (r *renderer) env(name string) string {
	if r.getenv == nil {
		return ""
	}
	v := r.getenv(name)
	r.secrets.add(v)
	return v
}

func (r *renderer) eval(e *expr, sc scope) any {
	var v any
	if e.literal != nil {
		v = *e.literal
	} else {
		v = r.lookup(sc, e.path)
	}
	for _, f := range e.filters {
		v = applyFilter(f, v)
	}
	return v
}

// lookup resolves a dotted path in the scope; env.NAME reads the
// environment.
func (r *renderer) lookup(sc scope, path string) any {
	if name, ok := strings.CutPrefix(path, "env."); ok {
		if v := r.env(name); v != "" {
			return v
		}
		return nil
	}
	var cur any = map[string]any(sc)
	for _, part := range strings.Split(path, ".") {
		switch m := cur.(type) {
		case map[string]any:
			cur = m[part]
		case scope:
			cur = m[part]
		case map[string]string:
			s, ok := m[part]
			if !ok {
				return nil
			}
			cur = s
		default:
			return nil
		}
		if cur == nil {
			return nil
		}
	}
	return cur
}

func applyFilter(f filter, v any) any {
	switch f.name {
	case "default":
		if v == nil || toText(v) == "" {
			return f.arg
		}
		return v
	case "json":
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(b)
	case "join":
		if list, ok := v.([]any); ok {
			parts := make([]string, len(list))
			for i, x := range list {
				parts[i] = toText(x)
			}
			return strings.Join(parts, f.arg)
		}
		if list, ok := v.([]string); ok {
			return strings.Join(list, f.arg)
		}
		return v
	case "int":
		switch x := v.(type) {
		case string:
			if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
				return n
			}
			return nil
		case float64:
			return int64(x)
		}
		return v
	}
	if v == nil {
		return nil
	}
	s := toText(v)
	switch f.name {
	case "urlencode":
		return url.QueryEscape(s)
	case "lower":
		return strings.ToLower(s)
	case "upper":
		return strings.ToUpper(s)
	case "trim":
		return strings.TrimSpace(s)
	case "slug":
		return slug(s)
	case "first_line":
		line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
		return strings.TrimSpace(line)
	case "truncate":
		n, _ := strconv.Atoi(f.arg)
		if utf8.RuneCountInString(s) > n {
			return string([]rune(s)[:n])
		}
		return s
	case "after":
		if _, after, ok := strings.Cut(s, f.arg); ok && f.arg != "" {
			return after
		}
		return s
	case "before":
		if before, _, ok := strings.Cut(s, f.arg); ok && f.arg != "" {
			return before
		}
		return s
	}
	return v
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// toText renders a value as template text: lists joined with ", ",
// objects as JSON, integral numbers without a fraction.
func toText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = toText(e)
		}
		return strings.Join(parts, ", ")
	case []string:
		return strings.Join(x, ", ")
	case map[string]any, scope:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// secrets are the values read from the environment; Redact takes them out
// of any text kontext shows or keeps.
type secrets struct {
	mu   sync.Mutex
	vals map[string]bool
}

// minSecret is the shortest value redacted: shorter ones ("1", "yes")
// are settings, and replacing them would garble every message.
const minSecret = 4

func (s *secrets) add(v string) {
	if s == nil || len(v) < minSecret {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vals == nil {
		s.vals = map[string]bool{}
	}
	s.vals[v] = true
	if q := url.QueryEscape(v); q != v {
		s.vals[q] = true
	}
}

// Redact replaces every secret in text with [redacted], longest first.
func (s *secrets) Redact(text string) string {
	if s == nil {
		return text
	}
	s.mu.Lock()
	vals := make([]string, 0, len(s.vals))
	for v := range s.vals {
		vals = append(vals, v)
	}
	s.mu.Unlock()
	if len(vals) == 0 {
		return text
	}
	sortByLengthDesc(vals)
	for _, v := range vals {
		text = strings.ReplaceAll(text, v, "[redacted]")
	}
	return text
}

func sortByLengthDesc(vals []string) {
	for i := 1; i < len(vals); i++ {
		for j := i; j > 0 && len(vals[j]) > len(vals[j-1]); j-- {
			vals[j], vals[j-1] = vals[j-1], vals[j]
		}
	}
}
