package clients

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/kontext-dev/kontext/internal/safeyaml"
)

// gooseExtension is one of Goose's extensions, keys in the order of its
// configuration guide.
type gooseExtension struct {
	Type    string            `yaml:"type"`
	Name    string            `yaml:"name"`
	Enabled bool              `yaml:"enabled"`
	Cmd     string            `yaml:"cmd"`
	Args    []string          `yaml:"args"`
	EnvKeys []string          `yaml:"env_keys"`
	Envs    map[string]string `yaml:"envs"`
	Timeout int               `yaml:"timeout"`
}

// gooseTimeout is the timeout, in seconds, of the guide's examples.
const gooseTimeout = 300

func gooseEntry(s Spec) gooseExtension {
	return gooseExtension{
		Type: "stdio", Name: s.name(), Enabled: true, Cmd: s.Command, Args: s.argv(),
		EnvKeys: []string{}, Envs: map[string]string{}, Timeout: gooseTimeout,
	}
}

// gooseRender prints the value of extensions: the one mapping entry.
func gooseRender(s Spec) ([]byte, error) {
	return yaml.MarshalWithOptions(yaml.MapSlice{{Key: s.name(), Value: gooseEntry(s)}}, yamlStyle...)
}

func gooseNewFile(s Spec) ([]byte, error) {
	return yaml.MarshalWithOptions(yaml.MapSlice{{Key: "extensions", Value: yaml.MapSlice{{Key: s.name(), Value: gooseEntry(s)}}}}, yamlStyle...)
}

// gooseMerge sets extensions.<name> in Goose's config.yaml. Like
// continueMerge it edits the parsed document, so comments and the layout
// of the rest of the file survive, and it checks the result decodes to
// exactly the old file plus the entry before anyone writes it.
func gooseMerge(existing []byte, s Spec) ([]byte, error) {
	if len(bytes.TrimSpace(existing)) == 0 {
		return gooseNewFile(s)
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
		fresh, err := gooseNewFile(s)
		if err != nil {
			return nil, err
		}
		return append(withNewline(existing), fresh...), nil
	}
	root, ok := doc.Body.(*ast.MappingNode)
	if !ok {
		return nil, fmt.Errorf("the top level is a YAML %s, not a mapping; kontext left the file as it was", nodeKind(doc.Body))
	}
	entry := gooseEntry(s)
	if err := setGooseEntry(root, s.name(), entry); err != nil {
		return nil, err
	}
	out := withNewline([]byte(file.String()))
	if err := checkGooseMerge(existing, out, s.name(), entry); err != nil {
		return nil, err
	}
	return out, nil
}

func setGooseEntry(root *ast.MappingNode, name string, entry gooseExtension) error {
	one := yaml.MapSlice{{Key: name, Value: entry}}
	for _, kv := range root.Values {
		if scalarValue(kv.Key) != "extensions" {
			continue
		}
		switch exts := kv.Value.(type) {
		case *ast.NullNode:
			node, err := yaml.ValueToNode(one, yamlStyle...)
			if err != nil {
				return err
			}
			kv.Value = indentUnder(kv, node)
			return nil
		case *ast.MappingNode:
			if exts.IsFlowStyle {
				return rebuildFlowMapping(kv, name, entry)
			}
			// Merge replaces an entry of the same name, or appends, and
			// moves the new nodes to the mapping's column.
			node, err := yaml.ValueToNode(one, yamlStyle...)
			if err != nil {
				return err
			}
			exts.Merge(node.(*ast.MappingNode))
			return nil
		default:
			return fmt.Errorf("extensions is a YAML %s, not a mapping; kontext left the file as it was", nodeKind(kv.Value))
		}
	}
	node, err := yaml.ValueToNode(yaml.MapSlice{{Key: "extensions", Value: one}}, yamlStyle...)
	if err != nil {
		return err
	}
	root.Merge(node.(*ast.MappingNode))
	return nil
}

// rebuildFlowMapping rewrites extensions written as { … } in block style,
// which the printer can insert a block mapping into.
func rebuildFlowMapping(kv *ast.MappingValueNode, name string, entry gooseExtension) error {
	var exts yaml.MapSlice
	if err := yaml.NodeToValue(kv.Value, &exts, yaml.UseOrderedMap()); err != nil {
		return err
	}
	replaced := false
	for i := range exts {
		if exts[i].Key == name {
			exts[i].Value = entry
			replaced = true
		}
	}
	if !replaced {
		exts = append(exts, yaml.MapItem{Key: name, Value: entry})
	}
	node, err := yaml.ValueToNode(exts, yamlStyle...)
	if err != nil {
		return err
	}
	kv.Value = indentUnder(kv, node)
	return nil
}

// indentUnder moves a new block node to the column under kv's key plus
// two, where the printer expects a block value of that key to start.
func indentUnder(kv *ast.MappingValueNode, node ast.Node) ast.Node {
	want := kv.Key.GetToken().Position.Column + 2
	if at := node.GetToken().Position.Column; at < want {
		node.AddColumn(want - at)
	}
	return node
}

func checkGooseMerge(before, after []byte, name string, entry gooseExtension) error {
	var was, now any
	if err := safeyaml.Unmarshal(before, &was); err != nil {
		return fmt.Errorf("not valid YAML: %s; kontext left the file as it was", yaml.FormatError(err, false, false))
	}
	if err := safeyaml.Unmarshal(after, &now); err != nil {
		return gooseRefused(err)
	}
	want, ok := was.(map[string]any)
	if !ok {
		return gooseRefused(errors.New("the top level did not decode as a mapping"))
	}
	var value any
	encoded, err := yaml.Marshal(entry)
	if err != nil {
		return err
	}
	if err := safeyaml.Unmarshal(encoded, &value); err != nil {
		return err
	}
	exts, _ := want["extensions"].(map[string]any)
	if exts == nil {
		exts = map[string]any{}
	}
	exts[name] = value
	want["extensions"] = exts
	if !reflect.DeepEqual(any(want), now) {
		return gooseRefused(errors.New("the edited file would decode differently"))
	}
	return nil
}

func gooseRefused(err error) error {
	return fmt.Errorf("kontext could not add its entry without changing the rest of the file (%s); left it as it was: add the output of `kontext config goose` under extensions by hand", yaml.FormatError(err, false, false))
}
