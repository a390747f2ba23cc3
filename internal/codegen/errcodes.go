package codegen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// errcodesFile generates gen/errcodes from errors.yaml.
func errcodesFile(tree *Tree) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Package errcodes holds the JSON-RPC error codes kontext uses and documents.\n")
	b.WriteString("package errcodes\n\n")
	b.WriteString("// The error codes of schema/errors.yaml.\nconst (\n")
	for _, e := range tree.Errors {
		when := e.When.EN
		if !e.Emitted {
			when = "(never sent) " + when
		}
		fmt.Fprintf(&b, "\t// %s: %s\n\t%s int64 = %d\n", e.Name, wrapComment(when), e.Name, e.Code)
	}
	b.WriteString(")\n\n")
	b.WriteString(`// Info describes one error code.
type Info struct {
	Name    string
	Code    int64
	Message string // sent on the wire
	When    map[string]string // by language: "en", "sk"
	Data    map[string]string // what data carries, by language; empty when nothing
	Emitted bool              // false for a code documented but never sent
}

// All lists every code in the order of schema/errors.yaml.
var All = []Info{
`)
	for _, e := range tree.Errors {
		data := "nil"
		if e.Data != nil {
			data = fmt.Sprintf("map[string]string{\"en\": %s, \"sk\": %s}", strconv.Quote(e.Data.EN), strconv.Quote(e.Data.SK))
		}
		fmt.Fprintf(&b, "\t{Name: %q, Code: %d, Message: %q, When: map[string]string{\"en\": %s, \"sk\": %s}, Data: %s, Emitted: %t},\n",
			e.Name, e.Code, e.Message, strconv.Quote(e.When.EN), strconv.Quote(e.When.SK), data, e.Emitted)
	}
	b.WriteString("}\n\n")
	b.WriteString("// Message returns the standard message of a code.\nfunc Message(code int64) string {\n\tswitch code {\n")
	for _, e := range tree.Errors {
		fmt.Fprintf(&b, "\tcase %s:\n\t\treturn %q\n", e.Name, e.Message)
	}
	b.WriteString("\t}\n\treturn \"Server error\"\n}\n")
	return goFile(tree.sourcesOf("errors.yaml"), b.Bytes())
}

func wrapComment(s string) string {
	words := strings.Fields(s)
	var lines []string
	line := ""
	for _, w := range words {
		if len(line)+len(w)+1 > 72 && line != "" {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n\t// ")
}

// sourcesOf returns the source lines of the named files of the tree.
func (t *Tree) sourcesOf(names ...string) []string {
	var out []string
	for _, s := range t.sources {
		file := strings.SplitN(s, " ", 2)[0]
		for _, n := range names {
			if file == t.Dir+"/"+n {
				out = append(out, s)
			}
		}
	}
	return out
}
