package clients

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// codexServer is one [mcp_servers.<name>] table of Codex's config.toml.
type codexServer struct {
	Command string   `toml:"command"`
	Args    []string `toml:"args"`
}

// codexRender prints the [mcp_servers.<name>] table. TOML has no value to
// paste under a key, so the table is both the snippet and a whole file.
func codexRender(s Spec) ([]byte, error) {
	var body bytes.Buffer
	if err := toml.NewEncoder(&body).Encode(codexServer{Command: s.Command, Args: s.argv()}); err != nil {
		return nil, err
	}
	return append([]byte(codexHeader(s.name())+"\n"), body.Bytes()...), nil
}

// codexHeader is the table's header; the name is a bare key (CheckName).
func codexHeader(name string) string { return "[mcp_servers." + name + "]" }

// codexMerge sets [mcp_servers.<name>] in a config.toml. BurntSushi/toml
// decodes but cannot re-encode a file with its comments, so the table is
// replaced as text: every other line of the file stays as it was, and only
// comments inside the old kontext table (and its sub-tables) are lost. An
// entry written another way (an inline table, dotted keys) is refused
// rather than rewritten. The result is decoded again and must equal the
// old file plus the entry.
func codexMerge(existing []byte, s Spec) ([]byte, error) {
	table, err := codexRender(s)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(existing)) == 0 {
		return table, nil
	}
	var was map[string]any
	if _, err := toml.Decode(string(existing), &was); err != nil {
		return nil, describeTOMLError(err)
	}
	lines := scanTOML(existing)
	name := s.name()
	for _, l := range lines {
		if !l.header && len(l.key) == 1 && l.key[0] == "mcp_servers" {
			// An inline table cannot be extended by a [table] header, and
			// rewriting it would lose its layout.
			return nil, fmt.Errorf("mcp_servers is written as one inline value (mcp_servers = …), which no [mcp_servers.%s] table can extend; add the output of `kontext config codex` to it by hand; left the file as it was", name)
		}
	}
	start, end := -1, -1
	for i, l := range lines {
		if !l.header {
			continue
		}
		ours := len(l.key) >= 2 && l.key[0] == "mcp_servers" && l.key[1] == name
		switch {
		case start < 0 && ours && len(l.key) == 2 && !l.array:
			start = i
		case start >= 0 && end < 0 && !ours:
			end = i
		}
	}
	var out []byte
	switch {
	case start >= 0:
		if end < 0 {
			end = len(lines)
		}
		// Comments and blank lines right before the next table are that
		// table's; they stay.
		for end > start+1 && lines[end-1].blankOrComment {
			end--
		}
		out = append(out, existing[:lines[start].start]...)
		out = append(out, table...)
		if end < len(lines) {
			out = append(out, existing[lines[end].start:]...)
		}
	case hasCodexEntry(was, name):
		return nil, fmt.Errorf("mcp_servers.%s is written as an inline table or dotted keys, which kontext cannot replace without rewriting the file; make it a %s table, or add the output of `kontext config codex` by hand; left the file as it was", name, codexHeader(name))
	default:
		out = insertCodexTable(existing, lines, table)
	}
	if err := checkCodexMerge(was, out, name, table); err != nil {
		return nil, err
	}
	return out, nil
}

// insertCodexTable puts a new table after the last mcp_servers table, so
// the servers stay together, or at the end of the file when there is none.
func insertCodexTable(existing []byte, lines []tomlLine, table []byte) []byte {
	after := -1 // the line that ends the last mcp_servers table
	for i, l := range lines {
		if !l.header {
			continue
		}
		if len(l.key) > 0 && l.key[0] == "mcp_servers" {
			after = len(lines)
		} else if after == len(lines) {
			after = i
		}
	}
	if after < 0 || after == len(lines) {
		out := withNewline(existing)
		if !bytes.HasSuffix(out, []byte("\n\n")) {
			out = append(out, '\n')
		}
		return append(out, table...)
	}
	// The comments and blank lines before the next table stay with it.
	for after > 0 && lines[after-1].blankOrComment {
		after--
	}
	at := lines[after].start
	out := append([]byte(nil), existing[:at]...)
	out = append(withNewline(out), '\n')
	out = append(out, table...)
	return append(out, existing[at:]...)
}

func hasCodexEntry(config map[string]any, name string) bool {
	servers, _ := config["mcp_servers"].(map[string]any)
	_, ok := servers[name]
	return ok
}

func checkCodexMerge(was map[string]any, out []byte, name string, table []byte) error {
	var now, entry map[string]any
	if _, err := toml.Decode(string(out), &now); err != nil {
		return codexRefused(err)
	}
	if _, err := toml.Decode(string(table), &entry); err != nil {
		return err
	}
	want := map[string]any{}
	for k, v := range was {
		want[k] = v
	}
	servers := map[string]any{}
	if old, ok := want["mcp_servers"].(map[string]any); ok {
		for k, v := range old {
			servers[k] = v
		}
	} else if _, exists := want["mcp_servers"]; exists {
		return codexRefused(errors.New("mcp_servers is not a table"))
	}
	servers[name] = entry["mcp_servers"].(map[string]any)[name]
	want["mcp_servers"] = servers
	if !reflect.DeepEqual(want, now) {
		return codexRefused(errors.New("the edited file would decode differently"))
	}
	return nil
}

func codexRefused(err error) error {
	return fmt.Errorf("kontext could not add its entry without changing the rest of the file (%s); left it as it was: add the output of `kontext config codex` by hand", oneLineError(err))
}

func describeTOMLError(err error) error {
	var perr toml.ParseError
	if errors.As(err, &perr) {
		return fmt.Errorf("not valid TOML at line %d, column %d: %s; kontext left the file as it was", perr.Position.Line, perr.Position.Col, oneLineError(errors.New(perr.Message)))
	}
	return fmt.Errorf("not valid TOML: %s; kontext left the file as it was", oneLineError(err))
}

func oneLineError(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// tomlLine is one line of a TOML file, as far as finding tables goes.
type tomlLine struct {
	start          int      // offset of the line's first byte
	header         bool     // a [table] or [[array]] header
	array          bool     // [[array]]
	key            []string // the header's key, unquoted; or a top-level key/value line's key
	blankOrComment bool
}

// scanTOML splits a TOML file into lines and recognises table headers,
// knowing enough of the syntax not to mistake a line inside a multi-line
// string or a multi-line array for one.
func scanTOML(data []byte) []tomlLine {
	var lines []tomlLine
	var inString string // `"""` or `'''` while inside a multi-line string
	depth := 0          // open [ and { of a value spanning lines
	seenHeader := false // past the root table
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off + 1
		}
		text := string(data[off:end])
		l := tomlLine{start: off}
		trimmed := strings.TrimSpace(text)
		switch {
		case inString != "" || depth > 0:
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			l.blankOrComment = true
		case strings.HasPrefix(trimmed, "["):
			l.header = true
			l.array = strings.HasPrefix(trimmed, "[[")
			l.key = parseTOMLHeader(trimmed)
			seenHeader = true
		case !seenHeader:
			l.key = parseDottedKey(trimmed)
		}
		if !l.header {
			inString, depth = scanTOMLValue(text, inString, depth)
		}
		lines = append(lines, l)
		off = end
	}
	return lines
}

// scanTOMLValue follows strings, comments and brackets through one line
// and returns the state at its end.
func scanTOMLValue(line, inString string, depth int) (string, int) {
	for i := 0; i < len(line); i++ {
		if inString != "" {
			if inString == `"""` && line[i] == '\\' {
				i++
				continue
			}
			if strings.HasPrefix(line[i:], inString) {
				i += len(inString) - 1
				inString = ""
			}
			continue
		}
		switch c := line[i]; {
		case c == '#':
			return inString, depth
		case strings.HasPrefix(line[i:], `"""`), strings.HasPrefix(line[i:], `'''`):
			inString = line[i : i+3]
			i += 2
		case c == '"':
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' {
					i++
				}
			}
		case c == '\'':
			for i++; i < len(line) && line[i] != '\''; i++ {
			}
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth = max(0, depth-1)
		}
	}
	return inString, depth
}

// parseTOMLHeader returns the dotted key of a [table] or [[array]] line.
func parseTOMLHeader(line string) []string {
	return parseDottedKey(strings.TrimPrefix(strings.TrimPrefix(line, "["), "["))
}

// parseDottedKey reads the dotted key at the start of s, up to what
// follows it (], =, a comment).
func parseDottedKey(s string) []string {
	var key []string
	for {
		s = strings.TrimLeft(s, " \t")
		var part string
		switch {
		case strings.HasPrefix(s, `"`):
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return key
			}
			unquoted, err := strconv.Unquote(s[:end+1])
			if err != nil {
				unquoted = s[1:end]
			}
			part, s = unquoted, s[end+1:]
		case strings.HasPrefix(s, "'"):
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return key
			}
			part, s = s[1:end+1], s[end+2:]
		default:
			end := strings.IndexAny(s, " \t.]=")
			if end < 0 {
				return key
			}
			part, s = s[:end], s[end:]
		}
		key = append(key, part)
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return key
		}
		s = s[1:]
	}
}
