package clients

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/kontext-dev/kontext/internal/safeyaml"
)

// continueServer is one item of Continue's mcpServers list, keys in the
// order of the config.yaml reference.
type continueServer struct {
	Name    string   `yaml:"name"`
	Command string   `yaml:"command"`
	Args    []string `yaml:"args"`
}

func continueEntry(s Spec) continueServer {
	return continueServer{Name: s.name(), Command: s.Command, Args: s.argv()}
}

// yamlStyle matches the config.yaml reference, whose lists are indented
// under their key.
var yamlStyle = []yaml.EncodeOption{yaml.IndentSequence(true)}

// continueRender prints the mcpServers list with its one item. The item is
// encoded as a mapping and turned into a list item by hand, because the
// encoder indents a top-level list by two spaces, which would not paste
// cleanly under `mcpServers:`.
func continueRender(s Spec) ([]byte, error) {
	body, err := yaml.MarshalWithOptions(continueEntry(s), yamlStyle...)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for i, line := range strings.SplitAfter(string(body), "\n") {
		switch {
		case line == "":
		case i == 0:
			out.WriteString("- " + line)
		case line == "\n":
			out.WriteString(line)
		default:
			out.WriteString("  " + line)
		}
	}
	return out.Bytes(), nil
}

// continueNewFile is what --write creates when there is no file yet.
// Continue refuses a config.yaml, and a block file in .continue/mcpServers,
// without name, version and schema, so they are written too: for
// config.yaml with the values Continue itself puts in the file it
// creates, for a block file with those of the documentation's example.
func continueNewFile(s Spec) ([]byte, error) {
	list, err := continueRender(s)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if s.Scope == Project {
		fmt.Fprintf(&out, "name: %s\nversion: 0.0.1\nschema: v1\nmcpServers:\n", s.name())
	} else {
		out.WriteString("name: Local Config\nversion: 1.0.0\nschema: v1\nmcpServers:\n")
	}
	for _, line := range strings.SplitAfter(string(list), "\n") {
		if line != "" {
			out.WriteString("  " + line)
		}
	}
	return out.Bytes(), nil
}

// continueMerge sets the item named kontext in the mcpServers list of a
// config.yaml. It edits the parsed document rather than decoding and
// re-encoding it, so comments, anchors, key order and the layout of the
// rest of the file survive. Because the library's printer is not perfect
// with edited trees, the result is decoded again and compared with what
// the edit should have produced; on any difference kontext refuses rather
// than write a file that says something else.
func continueMerge(existing []byte, s Spec) ([]byte, error) {
	if len(bytes.TrimSpace(existing)) == 0 {
		return continueNewFile(s)
	}
	file, err := parser.ParseBytes(existing, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("not valid YAML: %s; kontext left the file as it was", yaml.FormatError(err, false, false))
	}
	doc, err := contentDocument(file)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		// Only comments: keep them, and start the configuration after them.
		fresh, err := continueNewFile(s)
		if err != nil {
			return nil, err
		}
		return append(withNewline(existing), fresh...), nil
	}
	root, ok := doc.Body.(*ast.MappingNode)
	if !ok {
		return nil, fmt.Errorf("the top level is a YAML %s, not a mapping; kontext left the file as it was", nodeKind(doc.Body))
	}
	if err := setContinueEntry(root, continueEntry(s)); err != nil {
		return nil, err
	}
	out := withNewline([]byte(file.String()))
	if err := checkContinueMerge(existing, out, continueEntry(s)); err != nil {
		return nil, err
	}
	return out, nil
}

// contentDocument returns the one document that holds the configuration;
// a %YAML directive parses as a document of its own, and a file of only
// comments has none.
func contentDocument(file *ast.File) (*ast.DocumentNode, error) {
	var found *ast.DocumentNode
	for _, doc := range file.Docs {
		switch doc.Body.(type) {
		case nil, *ast.DirectiveNode, *ast.CommentGroupNode:
			continue
		}
		if found != nil {
			return nil, errors.New("the file holds more than one YAML document; kontext left it as it was")
		}
		found = doc
	}
	return found, nil
}

func setContinueEntry(root *ast.MappingNode, entry continueServer) error {
	entryNode, err := yaml.ValueToNode(entry, yamlStyle...)
	if err != nil {
		return err
	}
	for _, kv := range root.Values {
		if scalarValue(kv.Key) != "mcpServers" {
			continue
		}
		switch list := kv.Value.(type) {
		case *ast.NullNode:
			seq, err := yaml.ValueToNode([]continueServer{entry}, yamlStyle...)
			if err != nil {
				return err
			}
			kv.Value = seq
			return nil
		case *ast.SequenceNode:
			if list.IsFlowStyle {
				return rebuildFlowList(kv, entry)
			}
			replaced := false
			for i, item := range list.Values {
				if isNamedItem(item, entry.Name) {
					if err := list.Replace(i, entryNode); err != nil {
						return err
					}
					replaced = true
				}
			}
			if !replaced {
				seq, err := yaml.ValueToNode([]continueServer{entry}, yamlStyle...)
				if err != nil {
					return err
				}
				list.Merge(seq.(*ast.SequenceNode))
			}
			return nil
		default:
			return fmt.Errorf("mcpServers is a YAML %s, not a list; kontext left the file as it was", nodeKind(kv.Value))
		}
	}
	seq, err := yaml.ValueToNode(map[string][]continueServer{"mcpServers": {entry}}, yamlStyle...)
	if err != nil {
		return err
	}
	root.Merge(seq.(*ast.MappingNode))
	return nil
}

// rebuildFlowList rewrites an mcpServers written as [ … ] as a block list:
// the printer cannot insert a block mapping into a flow list. The other
// items keep their keys in order; only their flow layout is lost.
func rebuildFlowList(kv *ast.MappingValueNode, entry continueServer) error {
	var items []any
	if err := yaml.NodeToValue(kv.Value, &items, yaml.UseOrderedMap()); err != nil {
		return err
	}
	replaced := false
	for i, item := range items {
		if m, ok := item.(yaml.MapSlice); ok && m.ToMap()["name"] == entry.Name {
			items[i] = entry
			replaced = true
		}
	}
	if !replaced {
		items = append(items, entry)
	}
	seq, err := yaml.ValueToNode(items, yamlStyle...)
	if err != nil {
		return err
	}
	kv.Value = seq
	return nil
}

func isNamedItem(item ast.Node, name string) bool {
	m, ok := item.(*ast.MappingNode)
	if !ok {
		return false
	}
	for _, kv := range m.Values {
		if scalarValue(kv.Key) == "name" {
			return scalarValue(kv.Value) == name
		}
	}
	return false
}

// scalarValue is the value of a scalar node as text, without the quotes
// String would keep; empty for anything else.
func scalarValue(n ast.Node) string {
	s, ok := n.(ast.ScalarNode)
	if !ok {
		return ""
	}
	v, ok := s.GetValue().(string)
	if !ok {
		return ""
	}
	return v
}

func nodeKind(n ast.Node) string {
	switch n.(type) {
	case *ast.SequenceNode:
		return "list"
	case *ast.MappingNode:
		return "mapping"
	default:
		return "scalar"
	}
}

// checkContinueMerge decodes the file before and after and checks that
// the only difference is the kontext item of mcpServers.
func checkContinueMerge(before, after []byte, entry continueServer) error {
	var was, now any
	if err := safeyaml.Unmarshal(before, &was); err != nil {
		return fmt.Errorf("not valid YAML: %s; kontext left the file as it was", yaml.FormatError(err, false, false))
	}
	if err := safeyaml.Unmarshal(after, &now); err != nil {
		return mergeRefused(err)
	}
	want, ok := was.(map[string]any)
	if !ok {
		return mergeRefused(errors.New("the top level did not decode as a mapping"))
	}
	var entryValue any
	encoded, err := yaml.Marshal(entry)
	if err != nil {
		return err
	}
	if err := safeyaml.Unmarshal(encoded, &entryValue); err != nil {
		return err
	}
	list, _ := want["mcpServers"].([]any)
	list = append([]any(nil), list...)
	replaced := false
	for i, item := range list {
		if m, ok := item.(map[string]any); ok && m["name"] == entry.Name {
			list[i] = entryValue
			replaced = true
		}
	}
	if !replaced {
		list = append(list, entryValue)
	}
	want["mcpServers"] = list
	if !reflect.DeepEqual(any(want), now) {
		return mergeRefused(errors.New("the edited file would decode differently"))
	}
	return nil
}

func mergeRefused(err error) error {
	return fmt.Errorf("kontext could not add its entry without changing the rest of the file (%s); left it as it was: add the output of `kontext config continue` under mcpServers by hand", yaml.FormatError(err, false, false))
}

// withNewline returns a copy of b that ends in a newline.
func withNewline(b []byte) []byte {
	out := append([]byte(nil), b...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}
