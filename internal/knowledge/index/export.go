package index

import "strings"

// SplitMarkdown cuts a Markdown file into the documents the index holds for
// it (file:<path> for what precedes the first "##" section, then
// file:<path>#<slug> for each section), so ctx_read resolves exactly the
// URIs search returns.
func SplitMarkdown(path string, src []byte) []Doc { return splitMarkdown(path, src, "local") }

// Words returns the lower-cased words of text, identifiers split as the
// index splits them (orderTotal → order, total), so a caller ranks by the
// same words search matches.
func Words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		out = append(out, splitWords(w)...)
	}
	return out
}
