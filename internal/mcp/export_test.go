package mcp

// SetRequestStateKey seals requestState with key from now on, so that
// transcripts show the same states in every run.
func SetRequestStateKey(key []byte) { stateKey = key }
