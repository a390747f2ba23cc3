// Package secrets keeps secrets out of shared knowledge: it recognises
// files that must never be read (IsSecretFile) and finds, or redacts,
// secret-looking values in text (Scan, Redact) with the rules of the
// original kontext.
package secrets

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// Severity says how sure a rule is that it found a real secret. High
// findings block a commit; medium ones are warnings.
type Severity int

const (
	// Medium is a value that looks like a secret (a JWT, a `*_TOKEN=`
	// assignment, a random string after "secret is").
	Medium Severity = iota + 1
	// High is a value whose shape leaves little doubt (a private key, a
	// provider token with its fixed prefix).
	High
)

func (s Severity) String() string {
	switch s {
	case High:
		return "high"
	case Medium:
		return "medium"
	}
	return "unknown"
}

// AllowMarker on a line makes every rule ignore that line.
const AllowMarker = "kontext:allow-secret"

// otherAllowMarkers are the other scanners' marks of a known false
// positive (detect-secrets, gitleaks): a team that uses one has marked its
// lines already.
var otherAllowMarkers = []string{"pragma: allowlist secret", "gitleaks:allow"}

// CustomRule names findings of the patterns configured in secrets.redact.
const CustomRule = "custom"

// Finding is one secret-looking value.
type Finding struct {
	Rule     string
	Severity Severity
	// Line and Col locate the value (1-based; Col counts characters).
	Line, Col int
	// Start and End are the value's byte offsets in the scanned text.
	Start, End int
	// Excerpt is the value masked: its first characters and its length.
	Excerpt string
}

func (f Finding) String() string {
	return fmt.Sprintf("%d:%d: %s secret (%s): %s", f.Line, f.Col, f.Severity, f.Rule, f.Excerpt)
}

type rule struct {
	name     string
	severity Severity
	re       *regexp.Regexp
	group    int // the capture group that holds the value; 0 = the whole match
	valid    func(value string) bool
	find     func(text string) [][2]int // instead of re
	// hints are lower-case literals one of which every match contains:
	// without one in the text the rule does not run. nil runs it always.
	hints []string
	// line says that a match never spans lines, so the rule runs only on
	// the lines that hold a hint.
	line bool
	// needs are bytes one of which every match's line holds (an
	// assignment's "=" or ":", a sentence's space): a line without runs no
	// expression.
	needs string
	// notNamed, when set, rejects a match whose text before the value (an
	// assignment's name) it matches: hashed_secret, public_key.
	notNamed *regexp.Regexp
}

// builtinRules compiles the rules on first use: every run of the binary
// (each git hook among them) would otherwise pay for them at start.
var builtinRules = sync.OnceValue(func() []rule {
	return []rule{
		{name: "gcp-service-account", severity: High, re: regexp.MustCompile(`"private_key"[ \t]*:[ \t]*"(-----BEGIN[^"]*)"`), group: 1, hints: []string{`"private_key"`}},
		{name: "gcp-service-account", severity: High, re: regexp.MustCompile(`"private_key_id"[ \t]*:[ \t]*"([0-9a-f]{40})"`), group: 1, hints: []string{`"private_key_id"`}},
		{name: "private-key", severity: High, find: findPrivateKeys, hints: []string{"private key"}},
		{name: "aws-access-key", severity: High, re: regexp.MustCompile(`\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b`), group: 1, valid: func(v string) bool {
			return notPlaceholder(v) && entropy(v[4:]) >= 2.5 // not AKIATESTTESTTESTTEST
		}, hints: []string{"akia", "asia", "abia", "acca"}},
		{name: "aws-secret-key", severity: High, re: regexp.MustCompile(`(?i)\baws_?secret_?(?:access_?)?key["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`), group: 1, valid: func(v string) bool { return notPlaceholder(v) && mixed(v) >= 2 }, hints: []string{"aws"}, line: true, needs: ":="},
		{name: "github-token", severity: High, re: regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{36,255})\b`), group: 1, hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}},
		{name: "github-pat", severity: High, re: regexp.MustCompile(`\b(github_pat_[A-Za-z0-9_]{50,255})\b`), group: 1, hints: []string{"github_pat_"}},
		{name: "gitlab-token", severity: High, re: regexp.MustCompile(`\b(gl(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{20,})`), group: 1, valid: notPlaceholder, hints: []string{"glpat-", "gldt-", "glptt-", "glrt-"}},
		{name: "slack-token", severity: High, re: regexp.MustCompile(`\b(xox[abposr]-[A-Za-z0-9-]{10,})`), group: 1, valid: notPlaceholder, hints: []string{"xox"}},
		{name: "slack-webhook", severity: High, re: regexp.MustCompile(`(https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,})`), group: 1, hints: []string{"hooks.slack.com/"}},
		{name: "stripe-key", severity: High, re: regexp.MustCompile(`\b((?:sk|rk)_live_[0-9A-Za-z]{20,})`), group: 1, valid: notPlaceholder, hints: []string{"k_live_"}},
		{name: "anthropic-key", severity: High, re: regexp.MustCompile(`\b(sk-ant-[A-Za-z0-9_-]{20,})`), group: 1, valid: notPlaceholder, hints: []string{"sk-ant-"}},
		{name: "openai-key", severity: High, re: regexp.MustCompile(`\b(sk-(?:proj-|svcacct-|admin-)?([A-Za-z0-9_-]{32,}))`), group: 1, valid: func(v string) bool {
			return notPlaceholder(v) && !strings.HasPrefix(v, "sk-ant-") && hasDigit(v) && mixed(v) >= 3
		}, hints: []string{"sk-"}},
		{name: "npm-token", severity: High, re: regexp.MustCompile(`\b(npm_[A-Za-z0-9]{36})\b`), group: 1, valid: func(v string) bool { return notPlaceholder(v) && hasDigit(v) }, hints: []string{"npm_"}},
		{name: "pypi-token", severity: High, re: regexp.MustCompile(`\b(pypi-AgE[A-Za-z0-9_-]{50,})`), group: 1, hints: []string{"pypi-age"}},
		{name: "dotenv-vault", severity: High, re: regexp.MustCompile(`(dotenv://:key_[0-9a-f]{32,}@[^\s"'` + "`" + `]+)`), group: 1, hints: []string{"dotenv://"}},
		{name: "bearer-token", severity: High, re: regexp.MustCompile(`(?i)\bauthorization["']?[ \t]*[:=][ \t]*["']?bearer[ \t]+([A-Za-z0-9._~+/=-]{16,})`), group: 1, valid: notPlaceholder, hints: []string{"bearer"}, line: true, needs: " \t"},
		{name: "url-credentials", severity: High, re: regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"'` + "`" + `]{1,64}:([^/\s:@"'` + "`" + `]{6,128})@[^\s/"'` + "`" + `]+`), group: 1, valid: notPlaceholder, hints: []string{"://"}, line: true, needs: "@"},
		{name: "google-api-key", severity: Medium, re: regexp.MustCompile(`\b(AIza[0-9A-Za-z_-]{35})`), group: 1, valid: notPlaceholder, hints: []string{"aiza"}},
		{name: "jwt", severity: Medium, re: regexp.MustCompile(`\b(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})`), group: 1, hints: []string{"eyj"}},
		{name: "assigned-secret", severity: Medium, re: regexp.MustCompile(`(?i)\b[A-Za-z0-9_.-]*(?:api[_-]?key|secret|token|passw(?:or)?d|pwd|access[_-]?key|auth[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_.-]*["']?[ \t]*(?::|=|:=)[ \t]*["']?([^\s"'` + "`" + `,;]{12,})`), group: 1, valid: assignedValue,
			hints: []string{"key", "secret", "token", "passw", "pwd", "credential"}, line: true, needs: ":=", notNamed: notSecretName.Regexp()},
		// A bare key= holds a secret when its value is random: key="ToCynx5Se4e2…".
		{name: "assigned-secret", severity: Medium, re: regexp.MustCompile(`(?i)\b(?:[A-Za-z0-9_.-]*[_.-])?key["']?[ \t]*(?::|=|:=)[ \t]*["']?([A-Za-z0-9_-]{20,})(?:[^A-Za-z0-9_/+=-]|$)`), group: 1, valid: func(v string) bool {
			return notPlaceholder(v) && !reference(v) && looksRandom(v)
		}, hints: []string{"key"}, line: true, needs: ":=", notNamed: notSecretName.Regexp()},
		// Notes put secrets into sentences: "the secret is …", "rotate the api key …".
		{name: "secret-in-text", severity: Medium, re: regexp.MustCompile(`(?i)\b(?:secret|token|password|passwd|passphrase|api[ _-]?key|access[ _-]?key|private[ _-]?key|credentials?)\b(?:[ \t]+(?:is|was|of|for|value|key|now|to|became|:|=)){0,3}[ \t]+["'` + "`" + `]?([A-Za-z0-9/+_=-]{20,})`), group: 1, valid: func(v string) bool {
			return notPlaceholder(v) && !reference(v) && (looksRandom(v) || hexToken(v))
		}, hints: []string{"secret", "token", "passw", "passphrase", "key", "credential"}, line: true, needs: " \t"},
		// People's passwords are short and made of words: "the password is
		// hunter2-staging", "pwd = Tr0ub4dor&3".
		{name: "password-in-text", severity: Medium, re: regexp.MustCompile(`(?i)\b(?:password|passwd|passphrase|passcode|pwd)\b(?:[ \t]+(?:is|was|now|became|remains|still|set[ \t]+to|=|:))*[ \t]*[:=]?[ \t]+["'` + "`" + `]?([^\s"'` + "`" + `]{8,64})`), group: 1, valid: humanPassword,
			hints: []string{"passw", "passphrase", "passcode", "pwd"}, line: true, needs: " \t:="},
	}
})

// notSecretName matches the assignments whose name says the value is not
// a secret: a hash or fingerprint of one, a public key, an identifier.
var notSecretName = lazyregexp.New(`(?i:hash|digest|fingerprint|checksum|public|publishable)|(?:_id|_ID|-id|\.id|[a-z]Id)["']?[ \t]*(?::|=|:=)[ \t]*["']?$`)

var (
	pemHeader = lazyregexp.New(`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`)
	pemFooter = lazyregexp.New(`-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`)
	base64Run = lazyregexp.New(`[A-Za-z0-9+/=]{40,}`)
)

// findPrivateKeys finds PEM, OpenSSH and PGP private key blocks. A header
// alone, or one followed by "…" in documentation, is not a key: a block
// counts only when key material follows its header.
func findPrivateKeys(text string) [][2]int {
	var out [][2]int
	for _, h := range pemHeader.Regexp().FindAllStringIndex(text, -1) {
		rest := text[h[1]:]
		limit := len(rest)
		footer := pemFooter.Regexp().FindStringIndex(rest)
		if footer != nil {
			limit = footer[1]
		} else if limit > 8192 {
			limit = 8192
		}
		body := rest[:limit]
		// The material is base64; in JSON the line breaks are "\n" escapes.
		body = strings.ReplaceAll(body, `\n`, "\n")
		if !base64Run.MatchString(body) {
			continue
		}
		end := h[1] + limit
		if footer == nil {
			// No footer: cover the material lines that follow.
			end = h[1]
			for _, line := range strings.SplitAfter(rest[:limit], "\n") {
				t := strings.TrimSpace(line)
				if t != "" && !base64Run.MatchString(t) && !strings.Contains(t, ":") {
					break
				}
				end += len(line)
			}
		}
		out = append(out, [2]int{h[0], end})
	}
	return out
}

// Scanner finds secrets with the built-in rules, ignoring lines that carry
// AllowMarker or match a configured allow pattern, and adding configured
// redact patterns.
type Scanner struct {
	allow []*regexp.Regexp
	rules []rule
}

var defaultScanner = sync.OnceValue(func() *Scanner { return &Scanner{rules: builtinRules()} })

// New returns a scanner for the configuration's secrets.allow (patterns of
// lines to ignore) and secrets.redact (extra patterns whose matches are
// findings of rule "custom").
func New(allow, redact []string) (*Scanner, error) {
	s := &Scanner{rules: builtinRules()}
	for _, a := range allow {
		re, err := regexp.Compile(a)
		if err != nil {
			return nil, fmt.Errorf("secrets.allow: %q: %w", a, err)
		}
		s.allow = append(s.allow, re)
	}
	if len(redact) > 0 {
		s.rules = append([]rule(nil), builtinRules()...)
		for _, r := range redact {
			re, err := regexp.Compile(r)
			if err != nil {
				return nil, fmt.Errorf("secrets.redact: %q: %w", r, err)
			}
			cr := rule{name: CustomRule, severity: Medium, re: re}
			// A literal every match starts with lets the rule be skipped
			// in text without it (and the output filter's fast path stay).
			if prefix, _ := re.LiteralPrefix(); len(prefix) >= 2 {
				cr.hints = []string{asciiLower(prefix)}
			}
			s.rules = append(s.rules, cr)
		}
	}
	return s, nil
}

// Scan finds secrets with the built-in rules only.
func Scan(text string) []Finding { return defaultScanner().Scan(text) }

// Redact replaces secrets found by the built-in rules only.
func Redact(text string) (string, []Finding) { return defaultScanner().Redact(text) }

// Scan returns the secret-looking values in text, in order. Overlapping
// matches of several rules are one finding (the more severe rule names it).
func (s *Scanner) Scan(text string) []Finding {
	if text == "" {
		return nil
	}
	lines := lineStarts(text)
	allowed := map[int]bool{}
	isAllowed := func(line int) bool {
		if v, ok := allowed[line]; ok {
			return v
		}
		l := lineText(text, lines, line)
		v := strings.Contains(l, AllowMarker) || containsAny(l, otherAllowMarkers)
		for _, a := range s.allow {
			if v {
				break
			}
			v = a.MatchString(l)
		}
		allowed[line] = v
		return v
	}
	type cand struct {
		start, end int
		prio       int
	}
	var cands []cand
	lower := asciiLower(text)
	for i, r := range s.rules {
		if r.hints != nil && !containsAny(lower, r.hints) {
			continue
		}
		var spans [][2]int
		switch {
		case r.find != nil:
			spans = r.find(text)
		case r.line && r.hints != nil:
			for _, l := range hintLines(lower, r.hints) {
				if line := text[l[0]:l[1]]; r.needs == "" || strings.ContainsAny(line, r.needs) {
					spans = r.match(line, l[0], spans)
				}
			}
		default:
			spans = r.match(text, 0, spans)
		}
		for _, sp := range spans {
			if isAllowed(lineOf(lines, sp[0])) {
				continue
			}
			cands = append(cands, cand{sp[0], sp[1], i})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.start != b.start {
			return a.start < b.start
		}
		sa, sb := s.rules[a.prio].severity, s.rules[b.prio].severity
		if sa != sb {
			return sa > sb
		}
		return a.prio < b.prio
	})
	var out []Finding
	for _, c := range cands {
		r := s.rules[c.prio]
		if n := len(out); n > 0 && c.start < out[n-1].End {
			last := &out[n-1]
			if c.end > last.End {
				last.End = c.end
			}
			if r.severity > last.Severity {
				last.Rule, last.Severity = r.name, r.severity
			}
			continue
		}
		out = append(out, Finding{Rule: r.name, Severity: r.severity, Start: c.start, End: c.end})
	}
	for i := range out {
		f := &out[i]
		line := lineOf(lines, f.Start)
		f.Line = line + 1
		f.Col = utf8.RuneCountInString(text[lines[line]:f.Start]) + 1
		f.Excerpt = mask(text[f.Start:f.End])
	}
	return out
}

// match appends the spans of the rule's values in text, which starts at
// offset off of the scanned text.
func (r *rule) match(text string, off int, spans [][2]int) [][2]int {
	for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
		a, b := m[0], m[1]
		if r.group > 0 && 2*r.group+1 < len(m) && m[2*r.group] >= 0 {
			a, b = m[2*r.group], m[2*r.group+1]
		}
		if a == b {
			continue
		}
		if r.valid != nil && !r.valid(text[a:b]) {
			continue
		}
		if r.notNamed != nil && r.notNamed.MatchString(text[m[0]:a]) {
			continue
		}
		spans = append(spans, [2]int{off + a, off + b})
	}
	return spans
}

// asciiLower lower-cases ASCII letters only, so that byte offsets in the
// result are offsets in s (strings.ToLower changes the length of some
// non-ASCII letters).
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !(s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// hintLines returns the [start, end) byte ranges of the lines of lower that
// hold one of the hints, in order, each once.
func hintLines(lower string, hints []string) [][2]int {
	var starts []int
	for _, h := range hints {
		for off := 0; ; {
			i := strings.Index(lower[off:], h)
			if i < 0 {
				break
			}
			at := off + i
			starts = append(starts, strings.LastIndexByte(lower[:at], '\n')+1)
			// The rest of this line holds no new line start.
			if nl := strings.IndexByte(lower[at:], '\n'); nl >= 0 {
				off = at + nl + 1
			} else {
				off = len(lower)
			}
		}
	}
	if len(starts) == 0 {
		return nil
	}
	sort.Ints(starts)
	var out [][2]int
	for i, st := range starts {
		if i > 0 && st == starts[i-1] {
			continue
		}
		end := len(lower)
		if nl := strings.IndexByte(lower[st:], '\n'); nl >= 0 {
			end = st + nl
		}
		out = append(out, [2]int{st, end})
	}
	return out
}

// Redact replaces every finding's value with `[redacted:<rule>]`, keeping
// what surrounds it (`DB_PASSWORD=[redacted:assigned-secret]`). The
// findings' offsets refer to the text before redaction.
func (s *Scanner) Redact(text string) (string, []Finding) {
	fs := s.Scan(text)
	if len(fs) == 0 {
		return text, nil
	}
	var b strings.Builder
	prev := 0
	for _, f := range fs {
		b.WriteString(text[prev:f.Start])
		b.WriteString("[redacted:" + f.Rule + "]")
		prev = f.End
	}
	b.WriteString(text[prev:])
	return b.String(), fs
}

// HasHigh reports whether any finding is of high severity.
func HasHigh(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == High {
			return true
		}
	}
	return false
}

func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOf returns the 0-based line holding byte offset off.
func lineOf(starts []int, off int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
}

func lineText(text string, starts []int, line int) string {
	end := len(text)
	if line+1 < len(starts) {
		end = starts[line+1]
	}
	return text[starts[line]:end]
}

func mask(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= 10 {
		return strings.Repeat("*", n)
	}
	r := []rune(s)
	return fmt.Sprintf("%s…(%d chars)", string(r[:4]), n)
}

var placeholderWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "secret": true, "token": true, "changeit": true,
	"string": true, "required": true, "optional": true, "none": true, "null": true, "undefined": true,
	"true": true, "false": true, "pwd": true, "apikey": true, "api_key": true,
}

// notPlaceholder rejects the values documentation uses in place of a secret.
func notPlaceholder(v string) bool {
	l := strings.ToLower(strings.Trim(v, `"'`+"`"))
	if placeholderWords[l] {
		return false
	}
	for _, p := range []string{"xxx", "example", "changeme", "change_me", "change-me", "placeholder", "your_", "your-", "yourtoken", "yourkey", "dummy", "redacted", "sample", "<", ">", "${", "{{", "%s", "...", "…", "fake", "replace"} {
		if strings.Contains(l, p) {
			return false
		}
	}
	for _, p := range []string{"$", "process.env", "env.", "os.environ", "os.getenv", "secrets."} {
		if strings.HasPrefix(l, p) {
			return false
		}
	}
	return strings.Trim(l, "*x.-_0#") != ""
}

// assignedValue accepts the value of a `*_TOKEN=` / `password:` assignment
// when it could be a credential rather than a reference, a type or a word.
func assignedValue(v string) bool {
	if !notPlaceholder(v) || strings.ContainsAny(v, "()[]{}") || reference(v) {
		return false
	}
	return hasDigit(v) || (len(v) >= 16 && mixed(v) >= 3 && entropy(v) >= 3.5)
}

// reference rejects a value that names a secret rather than being one:
// code's identifiers and fields (testP256PrivateKey,
// hs.clientHello.extendedMasterSecret, MarshalPKCS1PrivateKey) hold the
// word, a random value does not; and escape sequences (\u3299\ufe0f)
// spell characters, not a credential.
func reference(v string) bool {
	l := strings.ToLower(v)
	for _, w := range []string{"key", "secret", "token", "passw", "credential"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	if strings.Contains(v, `\u`) || strings.Contains(v, `\x`) {
		return true
	}
	// An expression's operand: 2*maxCompilerConcurrency.
	ident := strings.TrimLeft(v, "0123456789*+-/.")
	return ident != v && len(ident) >= 8 && wordLike(ident)
}

// hexToken accepts a long hexadecimal value (an API token, a signing key)
// where a sentence names it a secret or a token.
func hexToken(v string) bool {
	if len(v) < 32 || !hasDigit(v) {
		return false
	}
	letters := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letters = true
		default:
			return false
		}
	}
	return letters
}

// humanPassword accepts what follows "password is" / "pwd =" when it could
// be a password people chose: letters with digits (hunter2-staging,
// Tr0ub4dor&3), or a long passphrase of hyphenated words; not the words
// sentences about passwords use (hashed, required, argon2id-hashed).
func humanPassword(v string) bool {
	v = strings.TrimRight(v, ".,;:!?)]}'\"`")
	if len(v) < 8 || !notPlaceholder(v) || strings.ContainsAny(v, "()[]{}<>") {
		return false
	}
	l := strings.ToLower(v)
	for _, w := range []string{"hash", "bcrypt", "argon", "scrypt", "pbkdf", "sha1", "sha2", "sha3", "sha512", "md5", "salt",
		"http", "env", "config", "secret", "password", "passw", "length", "char", "digit", "min", "max", "field", "null"} {
		if strings.Contains(l, w) {
			return false
		}
	}
	letters := strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
	switch {
	case !letters:
		return false
	case hasDigit(v):
		return true
	}
	return len(v) >= 20 && strings.Count(v, "-") >= 3
}

// looksRandom: mixed case and digits with high entropy, and not a path made
// of words such as src/auth/TokenRefresh2.
func looksRandom(v string) bool {
	if strings.Contains(v, "/") {
		words := true
		for _, seg := range strings.Split(v, "/") {
			if !wordLike(seg) {
				words = false
				break
			}
		}
		if words {
			return false
		}
	}
	return hasDigit(v) && hasUpper(v) && hasLower(v) && entropy(v) >= 3.5
}

func wordLike(seg string) bool {
	if seg == "" {
		return true
	}
	c := seg[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return false
	}
	digits, upperRuns := 0, 0
	for i := 0; i < len(seg); i++ {
		if seg[i] >= '0' && seg[i] <= '9' {
			digits++
		}
		if i > 0 && isUpper(seg[i]) && isUpper(seg[i-1]) {
			upperRuns++
		}
	}
	return digits <= 1 && upperRuns == 0
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}
func hasUpper(s string) bool { return strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") }
func hasLower(s string) bool { return strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") }

// mixed counts the character classes in s: upper, lower, digit, other.
func mixed(s string) int {
	n := 0
	if hasUpper(s) {
		n++
	}
	if hasLower(s) {
		n++
	}
	if hasDigit(s) {
		n++
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) >= 0 {
		n++
	}
	return n
}

// entropy is Shannon entropy in bits per character.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	n := 0
	for _, r := range s {
		counts[r]++
		n++
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h
}
