package mcp

// Tool names kontext makes at run time (the apps broker's typed tools,
// adapters' exposed tools) keep to one character set and length budget.
// The seed caps a name at 128 characters; clients that prefix a server's
// name (mcp__kontext__, 14 characters) and cap the whole at 64 still
// accept 48.
const (
	ToolNameBudget = 48
	MaxToolName    = 128
)

// IsToolName reports whether name is made of [A-Za-z0-9_-] only and fits
// within budget characters.
func IsToolName(name string, budget int) bool {
	if name == "" || len(name) > budget {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !IsToolNameByte(name[i]) {
			return false
		}
	}
	return true
}

// IsToolNameByte reports whether c may be part of a tool name.
func IsToolNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
