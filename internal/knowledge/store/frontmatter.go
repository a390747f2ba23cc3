package store

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// fmDoc is a front-matter file cut into pieces that are written back as
// they were unless their value changed.
type fmDoc struct {
	head   string    // optional BOM and the opening --- line
	blocks []fmBlock // the front matter, one block per key (the first may be a keyless lead)
	close  string    // the closing --- line
	after  string    // everything after it
	eol    string
	bodyAt int // 1-based line where the body starts
}

type fmBlock struct {
	text    string // the key's lines, with their line endings
	key     string // as written; "" for the lead
	canon   string // the canonical field it sets ("" for an extra key)
	value   any
	encodes bool // a status that said "superseded by …"
}

func parseFrontMatter(text string) (*fmDoc, bool) {
	t := strings.TrimPrefix(text, "\ufeff")
	bom := text[:len(text)-len(t)]
	var open string
	switch {
	case strings.HasPrefix(t, "---\n"):
		open = "---\n"
	case strings.HasPrefix(t, "---\r\n"):
		open = "---\r\n"
	default:
		return nil, false
	}
	rest := t[len(open):]
	d := &fmDoc{head: bom + open, eol: lineEnding(t)}
	off := 0
	line := 2
	var blocks []fmBlock
	var starts []int // each block's offset in rest
	for off < len(rest) {
		end := strings.IndexByte(rest[off:], '\n')
		var l string
		if end < 0 {
			l = rest[off:]
		} else {
			l = rest[off : off+end+1]
		}
		if tr := strings.TrimRight(l, " \t\r\n"); tr == "---" || tr == "..." {
			for i := range blocks {
				stop := off
				if i+1 < len(blocks) {
					stop = starts[i+1]
				}
				blocks[i].text = rest[starts[i]:stop]
			}
			d.close = l
			d.after = rest[off+len(l):]
			d.bodyAt = line + 1
			d.blocks = blocks
			return d, true
		}
		if key, ok := keyOf(l); ok || len(blocks) == 0 {
			blocks = append(blocks, fmBlock{key: key, canon: ""})
			starts = append(starts, off)
			if ok {
				blocks[len(blocks)-1].value = line // the key's line, until decoded
			}
		}
		off += len(l)
		line++
	}
	return nil, false // no closing line: not front matter
}

var keyLine = lazyregexp.New(`^([A-Za-z0-9_][^:#\s"'\[\]{}]*(?: [^:#\s"'\[\]{}]+)*|"[^"]*"|'[^']*')[ \t]*:(?:[ \t]|\r?\n|$)`)

// keyOf recognises a line that starts a top-level key.
func keyOf(line string) (string, bool) {
	m := keyLine.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return strings.Trim(m[1], `"'`), true
}

var canonKeys = map[string]string{
	"id": "id", "kind": "kind", "type": "kind", "title": "title", "status": "status",
	"date": "date", "decided": "date", "created": "date", "summary": "summary", "description": "summary",
	"tags": "tags", "paths": "paths", "supersedes": "supersedes",
	"superseded_by": "superseded_by", "superseded by": "superseded_by", "superseded-by": "superseded_by",
	"commits": "commits", "author": "author", "authors": "author", "deciders": "author", "owner": "author",
	"visibility": "visibility", "origin": "origin",
}

// apply decodes every key into the entry.
func (d *fmDoc) apply(e *Entry, src *source) {
	seen := map[string]bool{}
	for i := range d.blocks {
		b := &d.blocks[i]
		if b.key == "" {
			continue
		}
		line, _ := b.value.(int)
		b.value = decodeBlock(b.text)
		c := canonKeys[strings.ToLower(b.key)]
		if c == "" && strings.ToLower(b.key) == "scope" {
			if _, isList := b.value.([]string); isList {
				c = "paths"
			}
		}
		// The first date and author win (a file may carry created and
		// decided, or author and deciders); for the rest the last key wins.
		if (c == "date" || c == "author") && seen[c] {
			c = ""
			e.Extra = append(e.Extra, Field{Key: b.key, Value: b.value})
			continue
		}
		if c == "" {
			e.Extra = append(e.Extra, Field{Key: b.key, Value: b.value})
			continue
		}
		// A key that an earlier one already set leaves the earlier block
		// as an unmanaged copy.
		for j := range d.blocks[:i] {
			if d.blocks[j].canon == c {
				d.blocks[j].canon = ""
			}
		}
		b.canon = c
		seen[c] = true
		src.lines[c] = line
		if c == "status" {
			b.encodes = applyStatus(e, valueString(b.value))
			continue
		}
		if c == "superseded_by" {
			for _, id := range valueList(b.value) {
				if !slices.Contains(e.SupersededBy, id) {
					e.SupersededBy = append(e.SupersededBy, id)
				}
			}
			continue
		}
		setField(e, c, b.value)
	}
	lead := d.after[:len(d.after)-len(strings.TrimLeft(d.after, "\r\n"))]
	e.Body = d.after[len(lead):]
	src.lines["body"] = d.bodyAt + strings.Count(lead, "\n")
}

// decodeBlock decodes one key's lines with the YAML parser, and the lenient
// way the original reads front matter when they are not valid YAML on their
// own ("title: Use X: fast").
func decodeBlock(text string) (v any) {
	if v, ok := simpleValue(text); ok {
		return v
	}
	defer func() {
		if recover() != nil {
			v = lenientValue(text)
		}
	}()
	mv := parseOneKey(text)
	if mv == nil {
		return lenientValue(text)
	}
	val, ok := nodeValue(mv.Value)
	if !ok {
		return lenientValue(text)
	}
	return val
}

// parseOneKey parses a YAML document of one key and returns that key's
// mapping, or nil when the document is not valid YAML or holds anything
// else.
func parseOneKey(doc string) *ast.MappingValueNode {
	f, err := parser.ParseBytes([]byte(doc), 0)
	if err != nil || len(f.Docs) != 1 || f.Docs[0] == nil {
		return nil
	}
	switch b := f.Docs[0].Body.(type) {
	case *ast.MappingValueNode:
		return b
	case *ast.MappingNode:
		if len(b.Values) == 1 {
			return b.Values[0]
		}
	}
	return nil
}

// nodeValue converts a YAML node: scalars keep their source text ("0007"
// stays "0007"), lists of scalars become []string, anything else what YAML
// decodes it to.
func nodeValue(n ast.Node) (any, bool) {
	switch x := n.(type) {
	case nil:
		return "", true
	case *ast.NullNode:
		return "", true
	case *ast.StringNode:
		return x.Value, true
	case *ast.LiteralNode:
		if x.Value == nil {
			return "", true
		}
		return strings.TrimRight(x.Value.Value, "\n"), true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return n.GetToken().Value, true
	case *ast.TagNode:
		return nodeValue(x.Value)
	case *ast.AnchorNode:
		return nodeValue(x.Value)
	case *ast.SequenceNode:
		items := make([]string, 0, len(x.Values))
		for _, it := range x.Values {
			s, ok := nodeValue(it)
			str, isStr := s.(string)
			if !ok || !isStr {
				return decodeAny(n)
			}
			items = append(items, str)
		}
		return items, true
	}
	return decodeAny(n)
}

func decodeAny(n ast.Node) (any, bool) {
	var v any
	if err := yaml.NodeToValue(n, &v); err != nil {
		return nil, false
	}
	return v, true
}

// lenientValue reads "key: value" the way the original's small parser
// does: inline or dashed lists, block scalars, plain text otherwise.
func lenientValue(text string) any {
	lines := strings.Split(strings.TrimRight(text, "\r\n"), "\n")
	first := strings.TrimRight(lines[0], "\r")
	_, rest, _ := strings.Cut(first, ":")
	rest = strings.TrimSpace(rest)
	switch {
	case strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]"):
		return splitInlineList(rest[1 : len(rest)-1])
	case rest == "" || rest == "|" || rest == "|-" || rest == ">" || rest == ">-":
		var items []string
		var parts []string
		sep := " "
		if strings.HasPrefix(rest, "|") {
			sep = "\n"
		}
		for _, l := range lines[1:] {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if rest == "" && (t == "-" || strings.HasPrefix(t, "- ")) {
				items = append(items, unquote(strings.TrimSpace(strings.TrimPrefix(t, "-"))))
				continue
			}
			parts = append(parts, t)
		}
		if len(items) > 0 {
			return items
		}
		return strings.Join(parts, sep)
	}
	return unquote(rest)
}

// patch writes the document with the fields that differ from old changed.
func (d *fmDoc) patch(e, old *Entry) string {
	blocks := slices.Clone(d.blocks)
	index := func(canon string) int {
		for i, b := range blocks {
			if b.canon == canon {
				return i
			}
		}
		return -1
	}
	statusEncodes := false
	if i := index("status"); i >= 0 && blocks[i].encodes && index("superseded_by") < 0 {
		statusEncodes = true
	}
	for _, c := range canonOrder {
		nv, ov := fieldValue(e, c), fieldValue(old, c)
		if c == "superseded_by" && statusEncodes {
			if !reflect.DeepEqual(nv, ov) {
				// The status line carries the link: rewrite it instead.
				if i := index("status"); i >= 0 {
					blocks[i].text = replaceValue(blocks[i], statusValue(e, true))
				}
			}
			continue
		}
		if reflect.DeepEqual(nv, ov) {
			continue
		}
		var value any = nv
		if c == "status" {
			value = statusValue(e, statusEncodes)
		}
		if i := index(c); i >= 0 {
			if empty(value) {
				blocks = slices.Delete(blocks, i, i+1)
				continue
			}
			blocks[i].text = replaceValue(blocks[i], value)
			continue
		}
		if empty(value) {
			continue
		}
		nb := fmBlock{key: c, canon: c, text: renderKey(c, value, d.eol)}
		at := 0
		for i, b := range blocks {
			if b.key == "" && i == 0 {
				at = 1
			}
			if b.canon != "" && canonRank(b.canon) < canonRank(c) {
				at = i + 1
			}
		}
		blocks = slices.Insert(blocks, at, nb)
	}
	// Extra keys: changed in place, new ones at the end, removed ones dropped.
	blockOf := map[string]int{}
	for i, b := range blocks {
		if _, ok := blockOf[b.key]; !ok && b.canon == "" && b.key != "" {
			blockOf[b.key] = i
		}
	}
	oldValue := map[string]any{}
	for _, o := range old.Extra {
		if _, ok := oldValue[o.Key]; !ok {
			oldValue[o.Key] = o.Value
		}
	}
	current := map[string]bool{}
	for _, f := range e.Extra {
		current[f.Key] = true
		i, inFile := blockOf[f.Key]
		ov, wasThere := oldValue[f.Key]
		switch {
		case inFile && wasThere && reflect.DeepEqual(ov, f.Value):
		case inFile:
			blocks[i].text = replaceValue(blocks[i], f.Value)
		default:
			blockOf[f.Key] = len(blocks)
			blocks = append(blocks, fmBlock{key: f.Key, text: renderKey(f.Key, f.Value, d.eol)})
		}
	}
	removed := false
	for _, o := range old.Extra {
		if !current[o.Key] {
			removed = true
		}
	}
	if removed {
		blocks = slices.DeleteFunc(blocks, func(b fmBlock) bool {
			_, wasThere := oldValue[b.key]
			return b.canon == "" && b.key != "" && wasThere && !current[b.key]
		})
	}
	var out strings.Builder
	out.WriteString(d.head)
	for _, b := range blocks {
		out.WriteString(b.text)
	}
	out.WriteString(d.close)
	if e.Body == old.Body {
		out.WriteString(d.after)
	} else {
		lead := d.after[:len(d.after)-len(strings.TrimLeft(d.after, "\r\n"))]
		if lead == "" {
			lead = d.eol
		}
		out.WriteString(lead)
		out.WriteString(ensureEOL(e.Body, d.eol))
	}
	return out.String()
}

func statusValue(e *Entry, encodes bool) any {
	if encodes && e.Status == StatusSuperseded && len(e.SupersededBy) > 0 {
		return "superseded by " + strings.Join(e.SupersededBy, ", ")
	}
	return e.Status
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []string:
		return len(x) == 0
	}
	return false
}

func ensureEOL(s, eol string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + eol
}

// replaceValue re-renders a block's value, keeping its key as written, an
// inline comment after a one-line value, and the comment or blank lines
// that trail it.
func replaceValue(b fmBlock, value any) string {
	lines := strings.SplitAfter(b.text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	tail := len(lines)
	for tail > 1 {
		t := strings.TrimSpace(lines[tail-1])
		if t != "" && !strings.HasPrefix(lines[tail-1], "#") {
			break
		}
		tail--
	}
	eol := "\n"
	if strings.HasSuffix(lines[0], "\r\n") {
		eol = "\r\n"
	} else if !strings.HasSuffix(lines[0], "\n") {
		eol = ""
	}
	rendered := renderKey(b.key, value, eol)
	if tail == 1 && !strings.Contains(strings.TrimSuffix(rendered, eol), "\n") {
		if c := inlineComment(strings.TrimRight(lines[0], "\r\n")); c != "" {
			rendered = strings.TrimSuffix(rendered, eol) + c + eol
		}
	}
	if rendered != "" && !strings.HasSuffix(rendered, "\n") && tail < len(lines) {
		rendered += "\n"
	}
	return rendered + strings.Join(lines[tail:], "")
}

// inlineComment returns the " # …" comment after a one-line value (with
// the spaces before it), or "".
func inlineComment(line string) string {
	_, rest, ok := strings.Cut(line, ":")
	if !ok {
		return ""
	}
	base := len(line) - len(rest)
	quote := byte(0)
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && i > 0 && (rest[i-1] == ' ' || rest[i-1] == '\t'):
			j := i
			for j > 0 && (rest[j-1] == ' ' || rest[j-1] == '\t') {
				j--
			}
			return line[base+j:]
		}
	}
	return ""
}

// renderKey writes "key: value" the way the original does: plain scalars
// unless YAML needs quotes, lists inline ([a, b]).
func renderKey(key string, value any, eol string) string {
	k := key
	if needsQuotes(k) || strings.Contains(k, ":") {
		k = quote(k)
	}
	switch v := value.(type) {
	case string:
		return k + ": " + scalar(v) + eol
	case []string:
		items := make([]string, len(v))
		for i, it := range v {
			items[i] = listItem(it)
		}
		return k + ": [" + strings.Join(items, ", ") + "]" + eol
	}
	out, err := yaml.MarshalWithOptions(map[string]any{key: value}, yaml.IndentSequence(true))
	if err != nil {
		return k + ": " + scalar(fmt.Sprint(value)) + eol
	}
	s := strings.TrimRight(string(out), "\n")
	if eol != "\n" && eol != "" {
		s = strings.ReplaceAll(s, "\n", eol)
	}
	return s + eol
}

// YAMLScalar writes s as a front-matter value that reads back as the same
// string (quoted when YAML would read it otherwise: true, 1.0, a: b, …).
func YAMLScalar(s string) string { return scalar(s) }

// YAMLListItem writes s as an item of a block list that reads back as s.
func YAMLListItem(s string) string { return listItem(s) }

func scalar(s string) string {
	s = newlineReplacer.Replace(s)
	if needsQuotes(s) || !plainRoundTrips(s, false) {
		return quote(s)
	}
	return s
}

func listItem(s string) string {
	if needsQuotes(s) || strings.ContainsAny(s, ",[]{}\n\r") || !plainRoundTrips(s, true) {
		return quote(newlineReplacer.Replace(s))
	}
	return s
}

// needsQuotes is the original's rule for when a scalar must be quoted.
func needsQuotes(s string) bool {
	if s == "" || s != strings.TrimSpace(s) || strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return true
	}
	if strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") {
		return true
	}
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "~", "on", "off":
		return true
	}
	return strings.ContainsAny(s, "\t\x00") || !isPrintable(s)
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}

// plainRoundTrips reports whether YAML reads s back, unquoted, as the same
// text (as a scalar, or as a flow-list item).
func plainRoundTrips(s string, item bool) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	doc := "k: " + s
	if item {
		doc = "k: [" + s + "]"
	}
	mv := parseOneKey(doc)
	if mv == nil {
		return false
	}
	n := mv.Value
	if item {
		seq, isSeq := n.(*ast.SequenceNode)
		if !isSeq || len(seq.Values) != 1 {
			return false
		}
		n = seq.Values[0]
	}
	str, isStr := n.(*ast.StringNode)
	return isStr && str.Value == s
}

// quote writes a YAML double-quoted string that the original's reader
// also reads back (it undoes \" and \\).
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// renderFrontMatter writes a new entry the way the original does.
func renderFrontMatter(e *Entry) string {
	var b strings.Builder
	b.WriteString("---\n")
	for _, c := range canonOrder {
		v := fieldValue(e, c)
		if empty(v) {
			continue
		}
		b.WriteString(renderKey(c, v, "\n"))
	}
	for _, f := range e.Extra {
		if f.Value == nil {
			continue
		}
		b.WriteString(renderKey(f.Key, f.Value, "\n"))
	}
	b.WriteString("---\n\n")
	b.WriteString(ensureEOL(strings.TrimLeft(e.Body, "\r\n"), "\n"))
	return b.String()
}

// simpleValue decodes, without the YAML parser, the one-line keys most
// entries consist of: a plain scalar, or a flow list of plain scalars. ok
// is false for anything else, which the parser then reads.
func simpleValue(text string) (any, bool) {
	line := strings.TrimRight(text, "\r\n")
	if strings.ContainsAny(line, "\n\t#'\"") {
		return nil, false
	}
	_, rest, ok := strings.Cut(line, ":")
	if !ok {
		return nil, false
	}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]") {
		inner := strings.TrimSpace(rest[1 : len(rest)-1])
		items := []string{}
		if inner == "" {
			return items, true
		}
		for _, it := range strings.Split(inner, ",") {
			it = strings.TrimSpace(it)
			if !plainSafe(it) || strings.ContainsAny(it, "[]{}") {
				return nil, false
			}
			items = append(items, it)
		}
		return items, true
	}
	if rest == "" || !plainSafe(rest) {
		return nil, false
	}
	return rest, true
}

// plainSafe: a plain scalar YAML reads as exactly its text.
func plainSafe(s string) bool {
	if s == "" || strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`~") || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		return false
	}
	switch s {
	case "null", "Null", "NULL":
		return false
	}
	return isPrintable(s)
}

// newlineReplacer folds a value onto one line. Built once: building a
// Replacer costs more than using it.
var newlineReplacer = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")
