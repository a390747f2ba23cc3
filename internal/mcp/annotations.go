package mcp

// Bool returns a pointer to b, for annotations.
func Bool(b bool) *bool { return &b }
