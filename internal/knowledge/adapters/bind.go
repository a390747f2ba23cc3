package adapters

import (
	"encoding/json"
	"strconv"
	"strings"
)

// MCP argument binding: when an op gives no args (or not all of them), the
// tool's input schema is read and its parameters are filled by name, as
// the original binds them.

type role struct {
	names []string
	input string // the op input it takes
}

var (
	roleQuery   = role{[]string{"query", "q", "search", "search_query", "text", "pattern", "substring_pattern", "keyword", "keywords", "term", "question", "topic", "name_path_pattern", "name_path", "symbol", "symbol_name", "name", "input", "prompt"}, "query"}
	roleTarget  = role{[]string{"target", "path", "file", "file_path", "filepath", "relative_path", "commit", "query", "q", "text"}, "target"}
	roleURI     = role{[]string{"uri", "url", "path", "id", "resource", "name"}, "uri"}
	roleContent = role{[]string{"content", "text", "memory", "body", "markdown", "message", "data", "note"}, "markdown"}
	roleTitle   = role{[]string{"title", "subject", "name", "key"}, "title"}
	roleTags    = role{[]string{"tags", "labels", "categories"}, "tags"}
	roleLimit   = role{[]string{"limit", "max_results", "top_k", "k", "n", "count", "max", "num_results", "size", "maxFiles"}, "limit"}
	roleProject = role{[]string{"projectPath", "project_path", "project", "repo", "repository", "cwd", "root", "workspace", "directory"}, "repo.root"}
	rolePrompt  = role{[]string{"prompt", "input", "message", "text", "query"}, "prompt"}
)

// rolesOf are the roles an op binds, the primary one first.
func rolesOf(op string) []role {
	switch op {
	case OpSearch, OpCode, OpBrief:
		return []role{roleQuery, roleLimit, roleProject}
	case OpHistory:
		return []role{roleTarget, roleLimit, roleProject}
	case OpRead:
		return []role{roleURI}
	case OpLLM:
		return []role{rolePrompt}
	case OpHealth:
		return nil
	}
	// store and the other event ops.
	return []role{roleContent, roleTitle, roleTags}
}

type schemaInfo struct {
	Properties map[string]struct {
		Type json.RawMessage `json:"type"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func (s schemaInfo) typeOf(name string) string {
	p, ok := s.Properties[name]
	if !ok {
		return ""
	}
	var t string
	if json.Unmarshal(p.Type, &t) == nil {
		return t
	}
	var ts []string
	if json.Unmarshal(p.Type, &ts) == nil {
		for _, x := range ts {
			if x != "null" {
				return x
			}
		}
	}
	return ""
}

// bindArgs fills the parameters of a tool's schema from the op's inputs:
// a declared tool's arguments by name, then each role's first parameter
// that exists and is not yet bound gets the input, a required
// string parameter left over gets the primary input, and the op's own
// args (rendered) are laid over the result.
func bindArgs(opName string, schema json.RawMessage, inputs scope, explicit map[string]any) map[string]any {
	var s schemaInfo
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	// A declared tool's arguments ("args") pass to the parameters of the
	// same name.
	if given, ok := inputs["args"].(map[string]any); ok {
		for name, v := range given {
			if _, ok := s.Properties[name]; !ok {
				continue
			}
			if cv, ok := convert(v, s.typeOf(name)); ok {
				args[name] = cv
			} else {
				args[name] = v
			}
		}
	}
	roles := rolesOf(opName)
	var primary any
	for i, r := range roles {
		v := lookupInput(inputs, r.input)
		if i == 0 {
			primary = v
		}
		if v == nil || toText(v) == "" {
			continue
		}
		for _, name := range r.names {
			if _, ok := s.Properties[name]; !ok {
				continue
			}
			if _, taken := args[name]; taken {
				continue
			}
			if _, given := explicit[name]; given {
				break
			}
			if cv, ok := convert(v, s.typeOf(name)); ok {
				args[name] = cv
			}
			break
		}
	}
	if primary != nil {
		for _, name := range s.Required {
			if _, ok := args[name]; ok {
				continue
			}
			if _, ok := explicit[name]; ok {
				continue
			}
			if s.typeOf(name) == "string" {
				args[name] = toText(primary)
			}
		}
	}
	for k, v := range explicit {
		if cv, ok := convert(v, s.typeOf(k)); ok {
			args[k] = cv
		} else {
			args[k] = v
		}
	}
	return args
}

func lookupInput(sc scope, key string) any {
	if k, ok := strings.CutPrefix(key, "repo."); ok {
		if repo, ok := sc["repo"].(map[string]any); ok {
			return repo[k]
		}
		return nil
	}
	return sc[key]
}

// convert gives a value the parameter's JSON type (when it has one).
func convert(v any, typ string) (any, bool) {
	switch typ {
	case "", "any":
		return v, true
	case "string":
		return toText(v), true
	case "integer", "number":
		switch x := v.(type) {
		case int:
			return x, true
		case int64:
			return x, true
		case float64:
			if typ == "integer" {
				return int64(x), true
			}
			return x, true
		case string:
			if n, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				if typ == "integer" {
					return int64(n), true
				}
				return n, true
			}
		}
		return nil, false
	case "boolean":
		switch x := v.(type) {
		case bool:
			return x, true
		case string:
			b, err := strconv.ParseBool(x)
			return b, err == nil
		}
		return nil, false
	case "array":
		switch x := v.(type) {
		case []any:
			return x, true
		case []string:
			out := make([]any, len(x))
			for i, s := range x {
				out[i] = s
			}
			return out, true
		case string:
			return []any{x}, true
		}
		return []any{v}, true
	}
	return v, true
}
