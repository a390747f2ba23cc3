package config

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Refusal is a setting of the repository's shared file that kontext does
// not apply: one that would switch the secret scan or redaction off for
// everyone who clones the repository. Such a choice is personal (the
// user's files, the clone-local one) or made line by line.
type Refusal struct {
	Source Source
	Key    string
	Value  string
	Reason string
}

func (r Refusal) String() string {
	return fmt.Sprintf("%s: %s = %s is not applied: %s", r.Source.location(), r.Key, r.Value, r.Reason)
}

// personalHint says where a weakening setting may live instead.
const personalHint = "a team configuration cannot switch secret protection off for everyone; " +
	"set it in your personal configuration (~/.config/kontext/config.toml, or .git/kontext/config.toml for this clone)"

// restrictTeam removes from the repository's shared layer the settings that
// weaken secret protection for everyone: secrets.scan = "off",
// capture.redact = false, and secrets.allow patterns so broad that they
// would let ordinary secrets through. Each is recorded in c.Refusals and
// c.Warnings.
func (c *Config) restrictTeam(l layerData) {
	refuse := func(key, value, reason string) {
		r := Refusal{Source: Source{Layer: l.layer, File: l.file, Line: l.lines[key]}, Key: key, Value: value, Reason: reason}
		c.Refusals = append(c.Refusals, r)
		c.Warnings = append(c.Warnings, r.String())
	}
	if v, ok := lookup(l.values, "secrets.scan").(string); ok && v == "off" {
		deleteKey(l.values, "secrets.scan")
		refuse("secrets.scan", `"off"`, personalHint)
	}
	if v, ok := lookup(l.values, "capture.redact").(bool); ok && !v {
		deleteKey(l.values, "capture.redact")
		refuse("capture.redact", "false", personalHint)
	}
	list, ok := lookup(l.values, "secrets.allow").([]any)
	if !ok {
		return
	}
	var kept []any
	for _, v := range list {
		p, isString := v.(string)
		if !isString {
			kept = append(kept, v) // decoding reports the wrong type
			continue
		}
		if why := broadAllow(p); why != "" {
			refuse("secrets.allow", fmt.Sprintf("[%q]", p), why+"; "+personalHint+", or allow specific lines (a pattern of them, or "+allowMarker+" on the line)")
			continue
		}
		kept = append(kept, v)
	}
	if len(kept) == 0 {
		deleteKey(l.values, "secrets.allow")
		return
	}
	setKey(l.values, "secrets.allow", kept)
}

// allowMarker is secrets.AllowMarker (config does not depend on the
// scanner's package).
const allowMarker = "kontext:allow-secret"

// probe is a line the secret scan must find whatever the team allows: a
// shared allow pattern that matches one lets ordinary secrets through, not
// one known false positive.
type probe struct{ what, line string }

// probes are assembled from pieces so that this file does not itself look
// like a leak.
var probes = sync.OnceValue(func() []probe {
	j := func(parts ...string) string { return strings.Join(parts, "") }
	return []probe{
		{"an AWS secret key", j("AWS_SECRET_ACCESS_KEY=", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8kP2mNqL")},
		{"an AWS access key", j("aws_access_key_id = AKIA", "Q3EGRT5LZKDW7NPV")},
		{"a Stripe key", j("STRIPE_SECRET_KEY=sk", "_live_", "51Hq8ZkLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8")},
		{"a private key", j("-----BEGIN RSA ", "PRIVATE KEY-----")},
		{"a private key", j("MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun")},
		{"a GitHub token", j("token: ghp", "_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b")},
		{"a password", j("  password: ", "hunter2hunter2hunter2")},
		{"a bearer token", j("Authorization: Bearer ", "Zk39fLq2Rv81TbW7xNc5Hy4Mg6Dp")},
		{"a password in a URL", j("DATABASE_URL=postgres://app:", "Zk39fLq2Rv81", "@db.internal:5432/app")},
		{"an API key in a sentence", j("the api key is ", "3fA9kQ2mZx7LpR4sT8vW1yB6nC0dE5gH")},
		{"a service-account key", j(`  "private_key": "-----BEGIN `, `PRIVATE KEY-----\nMIIE"`)},
		{"an OpenAI key", j("OPENAI_API_KEY=sk", "-proj-", "T3BlbkFJq8Zk39fLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8Ue2Ka")},
		{"a Slack token", j("SLACK_BOT_TOKEN=xoxb", "-", "2848296491-4839201948-Zk39fLq2Rv81TbW7xNc5Hy4M")},
	}
})

// broadAllow says why an allow pattern is too broad for a shared file
// ("" when it is specific): it matches every line, or lines that hold
// ordinary secrets. An invalid pattern is left to validation.
func broadAllow(p string) string {
	re, err := regexp.Compile(p)
	if err != nil {
		return ""
	}
	every := re.MatchString("")
	if !every {
		every = true
		for _, l := range []string{"a", "Z9", " ", "-", "é", "}"} {
			every = every && re.MatchString(l)
		}
	}
	if every {
		return "it matches every line"
	}
	for _, pr := range probes() {
		if re.MatchString(pr.line) {
			return "it also matches ordinary secrets (a line holding " + pr.what + ")"
		}
	}
	return ""
}
