package store

import "strings"

// NormalizeKind maps what an agent or a person calls a kind to the kind
// itself: `adr` → decision, `pitfall`/`gotcha` → learning (tag "pitfall"),
// `note`/`lesson` → learning, `rule`/`guideline` → convention,
// `postmortem`/`outage` → incident, plurals to singulars. known reports
// whether a kind exists in the configuration (nil: the built-in kinds). ok
// is false for a kind that cannot be resolved.
func NormalizeKind(raw string, known func(string) bool) (kind, tag string, ok bool) {
	if known == nil {
		known = isBuiltinKind
	}
	k := strings.ToLower(strings.TrimSpace(raw))
	if k == "" {
		return "", "", false
	}
	if known(k) {
		return k, "", true
	}
	alias := map[string][2]string{
		"adr": {KindDecision}, "adrs": {KindDecision}, "decisions": {KindDecision},
		"pitfall": {KindLearning, "pitfall"}, "pitfalls": {KindLearning, "pitfall"},
		"gotcha": {KindLearning, "pitfall"}, "gotchas": {KindLearning, "pitfall"},
		"note": {KindLearning}, "notes": {KindLearning}, "lesson": {KindLearning}, "lessons": {KindLearning}, "learnings": {KindLearning},
		"rule": {KindConvention}, "rules": {KindConvention}, "guideline": {KindConvention}, "guidelines": {KindConvention}, "conventions": {KindConvention},
		"postmortem": {KindIncident}, "postmortems": {KindIncident}, "outage": {KindIncident}, "outages": {KindIncident}, "incidents": {KindIncident},
		"module": {KindArchitecture}, "modules": {KindArchitecture},
	}
	if a, found := alias[k]; found && known(a[0]) {
		return a[0], a[1], true
	}
	if s := strings.TrimSuffix(k, "s"); s != k && known(s) {
		return s, "", true
	}
	return "", "", false
}

func isBuiltinKind(k string) bool {
	switch k {
	case KindDecision, KindConvention, KindLearning, KindIncident, KindArchitecture:
		return true
	}
	return false
}

// Trailer returns the commit trailer key of a built-in kind ("Decision"
// for decision), or "" for architecture and unknown kinds. The
// configuration can rename it (store.kinds.<kind>.trailer).
func Trailer(kind string) string {
	switch kind {
	case KindDecision:
		return "Decision"
	case KindConvention:
		return "Convention"
	case KindLearning:
		return "Learning"
	case KindIncident:
		return "Incident"
	}
	return ""
}
