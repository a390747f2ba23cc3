package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kontext-dev/kontext/internal/shell"
	"github.com/kontext-dev/kontext/internal/textclip"
)

// Voice words what an answer tells its reader to do next. An agent reads
// tool calls (ctx_prepare_commit promote: ["<id>"]); a person who ran
// `kontext prepare-commit` in a shell reads commands (kontext
// prepare-commit --promote <id>).
type Voice struct{ Shell bool }

// VoiceOf is the voice of a call: a person's when it came from the shell.
func VoiceOf(ctx context.Context) Voice { return Voice{Shell: shell.From(ctx)} }

// ToolVerbs maps the knowledge tools that have a command of their own to
// that command (kontext <verb>); the others are run as kontext call <tool>.
// The verbs internal/inventory declares agree with it (a test there checks).
var ToolVerbs = map[string]string{
	"ctx_brief":          "brief",
	"ctx_search":         "search",
	"ctx_read":           "read",
	"ctx_why":            "why",
	"ctx_log":            "log",
	"ctx_capture":        "capture",
	"ctx_inbox":          "inbox",
	"ctx_prepare_commit": "prepare-commit",
}

// ToolVerbArgs are the parameters a verb takes as its first argument
// (kontext read git:abc1234), as internal/inventory declares them.
var ToolVerbArgs = map[string]string{"ctx_search": "query", "ctx_read": "uri", "ctx_why": "target"}

// Tool names a tool the way the reader runs it.
func (v Voice) Tool(name string) string {
	if !v.Shell {
		return name
	}
	if verb, ok := ToolVerbs[name]; ok {
		return "kontext " + verb
	}
	return "kontext call " + name
}

// Call names a tool with arguments, given as name, value pairs; a value
// is a string, a bool, an int or a []string.
func (v Voice) Call(name string, args ...any) string {
	var b strings.Builder
	b.WriteString(v.Tool(name))
	for i := 0; i+1 < len(args); i += 2 {
		key, _ := args[i].(string)
		if v.Shell {
			if s, ok := args[i+1].(string); ok && key == ToolVerbArgs[name] {
				b.WriteString(" " + shellWord(s))
			} else {
				b.WriteString(" " + shellArg(key, args[i+1]))
			}
			continue
		}
		raw, _ := json.Marshal(args[i+1])
		value := string(raw)
		if s, ok := args[i+1].(string); ok && !strings.ContainsAny(s, " ,:\"") {
			value = s // a word reads better unquoted: kind: convention
		}
		fmt.Fprintf(&b, " %s: %s", key, value)
	}
	return b.String()
}

func shellArg(key string, value any) string {
	flag := "--" + strings.ReplaceAll(key, "_", "-")
	switch val := value.(type) {
	case bool:
		if val {
			return flag
		}
		return flag + "=false"
	case []string:
		var parts []string
		for _, s := range val {
			parts = append(parts, flag+" "+shellWord(s))
		}
		return strings.Join(parts, " ")
	case string:
		return flag + " " + shellWord(val)
	}
	return fmt.Sprintf("%s %v", flag, value)
}

// shellWord quotes a value that a shell would split or expand; a
// placeholder such as <id> is left for the reader to replace.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"$`\\*?[]{}()<>;&|!#~") {
		return s
	}
	if strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") && !strings.ContainsAny(s, " '") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Plural counts n of a thing: 1 entry, 2 entries.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// OneParagraph is the first paragraph of text on one line, clipped.
func OneParagraph(text string, max int) string {
	para, _, _ := strings.Cut(strings.TrimSpace(text), "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	if len(para) > max {
		cut := strings.LastIndexByte(para[:max], ' ')
		if cut < max/2 {
			cut = max
		}
		para = textclip.Prefix(para, cut) + "…"
	}
	return para
}
