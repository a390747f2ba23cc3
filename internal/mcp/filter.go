package mcp

import (
	"bytes"
	"encoding/json"
)

// OutputFilter keeps what must not leave the server (secrets) out of its
// answers. The server passes every answer a tool, a resource or a prompt
// gives through it once (Options.OutputFilter): each string of a tool
// result's content blocks and structured content, of a resource's text and
// of a prompt's messages. The runtime knows nothing of what is filtered;
// the binary's assembly chooses the rules. Both methods are called
// concurrently.
type OutputFilter interface {
	// Suspect reports whether Redact could change anything in text, which
	// may be a JSON document or one of its string literals as encoded. It
	// is the fast path that lets most answers through untouched, so it
	// must be cheap, and it must never say false where Redact would
	// change something.
	Suspect(text []byte) bool
	// Redact returns text with what must not leave the server replaced.
	// key is the name of the JSON object member text is the value of ("" for
	// any other text): a rule may need it, as "password": "hunter2…" or a
	// service account's "private_key_id" show; only text is changed.
	Redact(key, text string) string
}

// filterResult passes a tool result through f: its content blocks and its
// structured content, each still valid JSON. mirror is the block
// StructuredResult made of the structured content, if any.
func filterResult(f OutputFilter, content []json.RawMessage, structured, mirror json.RawMessage) ([]json.RawMessage, json.RawMessage) {
	filtered := filterJSON(f, structured)
	copied := false
	for i, block := range content {
		if len(block) > 0 && len(block) == len(mirror) && &block[0] == &mirror[0] && structured != nil {
			// The text block that carries the structured content for
			// clients that read text: filtered once, as the document.
			if filtered != nil {
				if !copied {
					content = append([]json.RawMessage(nil), content...)
					copied = true
				}
				content[i] = TextBlock(string(filtered))
			}
			continue
		}
		if out := filterJSON(f, block); out != nil {
			if !copied {
				content = append([]json.RawMessage(nil), content...) // a handler's slice is never changed
				copied = true
			}
			content[i] = out
		}
	}
	if filtered != nil {
		structured = filtered
	}
	return content, structured
}

// filterText passes a text (a resource's, a prompt message's) through f;
// a text that is a JSON document stays one.
func filterText(f OutputFilter, text string) string {
	if f == nil || !suspect(f, []byte(text)) {
		return text
	}
	if isJSONDocument(text) {
		if out := filterJSON(f, []byte(text)); out != nil {
			return string(out)
		}
		return text
	}
	return f.Redact("", text)
}

// filterJSON returns raw with every string value passed through f, or nil
// when nothing changed. Keys are left alone (changing one could make two
// equal), and so are base64 blobs under "data" or "blob" (images, audio,
// binary resources), which no secret rule reads. A string that is itself a
// JSON document (the text block that mirrors structured content) is
// filtered as one, so it stays valid JSON.
func filterJSON(f OutputFilter, raw []byte) []byte {
	if f == nil || len(raw) == 0 || !suspect(f, raw) {
		return nil
	}
	var out []byte
	last := 0
	key := ""
	// Members' names repeat ("path", "id"): each is asked about once.
	suspectKeys := map[string]bool{}
	keySuspect := func(k string) bool {
		if k == "" {
			return false
		}
		v, ok := suspectKeys[k]
		if !ok {
			v = f.Suspect([]byte(k))
			suspectKeys[k] = v
		}
		return v
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return nil // not JSON the runtime produced: leave it to the encoder's errors
		}
		lit := raw[i : end+1]
		j := end + 1
		for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
			j++
		}
		isKey := j < len(raw) && raw[j] == ':'
		prevKey := key
		key = ""
		if isKey {
			if !bytes.ContainsRune(lit, '\\') {
				key = string(lit[1 : len(lit)-1])
			}
			i = end
			continue
		}
		if (prevKey == "data" || prevKey == "blob") && isBase64(lit[1:len(lit)-1]) {
			i = end
			continue
		}
		if !suspect(f, lit) && !keySuspect(prevKey) {
			i = end
			continue
		}
		var s string
		if !bytes.ContainsRune(lit, '\\') {
			s = string(lit[1 : len(lit)-1])
		} else if err := json.Unmarshal(lit, &s); err != nil {
			return nil
		}
		next := ""
		if isJSONDocument(s) {
			inner := filterJSON(f, []byte(s))
			if inner == nil {
				i = end
				continue
			}
			next = string(inner)
		} else {
			next = f.Redact(prevKey, s)
		}
		if next != s {
			enc, err := json.Marshal(next)
			if err != nil {
				return nil
			}
			out = append(out, raw[last:i]...)
			out = append(out, enc...)
			last = end + 1
		}
		i = end
	}
	if out == nil {
		return nil
	}
	return append(out, raw[last:]...)
}

// suspect is f.Suspect, and true for text that spells a letter, a digit
// or a slash as an escape (encoding/json never does; a value hidden from
// a literal test would be).
func suspect(f OutputFilter, text []byte) bool {
	if f.Suspect(text) || bytes.Contains(text, []byte(`\/`)) {
		return true
	}
	for i := 0; ; {
		k := bytes.Index(text[i:], []byte(`\u`))
		if k < 0 || i+k+6 > len(text) {
			return false
		}
		i += k + 2
		var r rune
		for _, c := range text[i : i+4] {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				r = -1
			}
		}
		if r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_' || r == '-' || r == ':' || r == '/' {
			return true
		}
	}
}

// stringEnd returns the index of the quote that closes the JSON string
// opened at raw[start], or -1.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// isJSONDocument reports a string that holds a JSON object or array.
func isJSONDocument(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[':
			return json.Valid([]byte(s))
		}
		return false
	}
	return false
}

// isBase64 reports an encoded blob: long, and nothing but base64.
func isBase64(b []byte) bool {
	if len(b) < 64 {
		return false
	}
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}
