package secrets

// Redactor cleans every value of one capture or submission the same way:
// the body, the title and the summary, and the tags, paths, supersedes,
// commits and the other short values too, which are written to the same
// file. With Refuse (capture.redact = false) values are kept as they are
// and Refused reports a capture that must not be written.
type Redactor struct {
	Scanner *Scanner
	Refuse  bool
	// Findings are what was redacted, or what Refused weighs, over every
	// value cleaned so far, in order.
	Findings []Finding
}

// NewRedactor returns a redactor over s (the built-in rules when nil).
func NewRedactor(s *Scanner, refuse bool) *Redactor {
	if s == nil {
		s = defaultScanner()
	}
	return &Redactor{Scanner: s, Refuse: refuse}
}

// Text cleans one value.
func (r *Redactor) Text(text string) string {
	if r.Refuse {
		r.Findings = append(r.Findings, r.Scanner.Scan(text)...)
		return text
	}
	out, fs := r.Scanner.Redact(text)
	r.Findings = append(r.Findings, fs...)
	return out
}

// List cleans every value of a list (a new list; nil stays nil).
func (r *Redactor) List(values []string) []string {
	if values == nil {
		return nil
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = r.Text(v)
	}
	return out
}

// Refused reports, when redaction is off, the high-severity findings that
// forbid writing the capture (nil when it may be written). A medium one
// (a JWT-shaped value) is kept, as the body's are.
func (r *Redactor) Refused() []Finding {
	if !r.Refuse || !HasHigh(r.Findings) {
		return nil
	}
	return r.Findings
}

// Redacted is what was replaced by [redacted:<rule>]: nothing when
// redaction is off.
func (r *Redactor) Redacted() []Finding {
	if r.Refuse {
		return nil
	}
	return r.Findings
}
