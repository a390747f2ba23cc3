package config

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// defaultOrder ranks the dotted keys as defaultsTOML lists them. It is
// worked out on first use (Explain): decoding the defaults at package
// initialisation would cost every run of the binary, each git hook among
// them.
var defaultOrder = sync.OnceValue(func() map[string]int {
	order := map[string]int{}
	for i, k := range defaultsLayer().order {
		order[k] = i
	}
	return order
})

// Explain renders the effective configuration as TOML, each value followed
// by a comment naming the layer (and file:line) that set it, after a header
// listing the files consulted. The output is itself valid TOML.
func (c *Config) Explain() string {
	var b strings.Builder
	b.WriteString("# Effective kontext configuration. Layers apply in this order, later winning;\n")
	b.WriteString("# tables merge key by key, arrays replace.\n")
	b.WriteString("#   1. built-in defaults\n")
	n := 2
	for _, l := range c.Layers {
		state := "not found"
		if l.Loaded {
			state = "loaded"
		}
		fmt.Fprintf(&b, "#   %d. %-22s %s (%s)\n", n, l.Layer.String()+":", l.Path, state)
		n++
	}
	if c.Identity.ID != "" {
		fmt.Fprintf(&b, "# Repository: %s (user file repos/%s.toml)\n", c.Identity.ID, c.Identity.Slug)
	}
	c.explainTable(&b, c.merged, "")
	if len(c.Warnings) > 0 {
		b.WriteString("\n# Warnings:\n")
		for _, w := range c.Warnings {
			b.WriteString("#   " + w + "\n")
		}
	}
	return b.String()
}

func (c *Config) explainTable(b *strings.Builder, t map[string]any, prefix string) {
	keys := sortedKeys(t, prefix)
	var lines [][2]string
	for _, k := range keys {
		if _, ok := t[k].(map[string]any); ok {
			continue
		}
		full := join(prefix, k)
		lines = append(lines, [2]string{quoteKey(k) + " = " + tomlValue(t[k]), c.sourceOf(full).String()})
	}
	if len(lines) > 0 {
		if prefix != "" {
			b.WriteString("\n[" + headerKey(prefix) + "]\n")
		}
		width := 0
		for _, l := range lines {
			if w := utf8.RuneCountInString(l[0]); w > width && w <= 48 {
				width = w
			}
		}
		for _, l := range lines {
			pad := width - utf8.RuneCountInString(l[0])
			if pad < 0 {
				pad = 0
			}
			fmt.Fprintf(b, "%s%s  # %s\n", l[0], strings.Repeat(" ", pad), l[1])
		}
	}
	for _, k := range keys {
		if sub, ok := t[k].(map[string]any); ok {
			c.explainTable(b, sub, join(prefix, k))
		}
	}
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// sortedKeys orders a table's keys as the defaults list them, then the rest
// by name.
func sortedKeys(t map[string]any, prefix string) []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	order := defaultOrder()
	rank := func(k string) int {
		if r, ok := order[join(prefix, k)]; ok {
			return r
		}
		return math.MaxInt
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	return keys
}

var bareKey = lazyregexp.New(`^[A-Za-z0-9_-]+$`)

func quoteKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return tomlString(k)
}

func headerKey(dotted string) string {
	parts := strings.Split(dotted, ".")
	for i, p := range parts {
		parts[i] = quoteKey(p)
	}
	return strings.Join(parts, ".")
}

func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return tomlString(x)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x)
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []map[string]any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = quoteKey(k) + " = " + tomlValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return tomlString(fmt.Sprint(v))
}

func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
