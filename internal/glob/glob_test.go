package glob

import "testing"

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"src/billing/**", "src/billing/invoice.go", true},
		{"src/billing/**", "src/billing/tax/vat.go", true},
		{"src/billing/**", "src/billingx/a.go", false},
		{"src/api", "src/api/routes.go", true},
		{"src/api", "src/api", true},
		{"src/api", "src/apix/routes.go", false},
		{"README.md", "README.md", true},
		{"README.md", "docs/README.md", true},
		{"/README.md", "docs/README.md", false},
		{"/*.md", "CHANGELOG.md", true},
		{"/*.md", "docs/x.md", false},
		{"**/AGENTS.md", "AGENTS.md", true},
		{"**/AGENTS.md", "a/b/AGENTS.md", true},
		{"docs/**/*.md", "docs/a.md", true},
		{"docs/**/*.md", "docs/x/y/a.md", true},
		{"docs/**/*.md", "docs/x/y/a.txt", false},
		{"*.sql", "db/migrations/001.sql", true},
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/x/a.go", false},
		{"src/{api,web}/**", "src/web/index.ts", true},
		{"src/{api,web}/**", "src/cli/index.ts", false},
		{"src/a?.go", "src/ab.go", true},
		{"src/[ab].go", "src/b.go", true},
		{"src/[!ab].go", "src/b.go", false},
		{"./src/api/", "src/api/x", true},
		{"", "x", false},
		{"[", "[", true},
		{"a{b", "ab", true},
	}
	for _, c := range cases {
		if got := Match(c.pattern, c.path); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v (regexp %s)", c.pattern, c.path, got, c.want, translate(c.pattern))
		}
	}
}

func TestMatchAny(t *testing.T) {
	if !MatchAny([]string{"x/**", "src/**"}, "src/a") || MatchAny(nil, "a") {
		t.Fatal("MatchAny")
	}
}

func TestPrefixPathsAgreeWithTheRegexp(t *testing.T) {
	patterns := []string{"src/api", "src/api/", "src/api/**", "/src/api", "/src/api/**", "./src/api/**", "api", "api/**", "*.go", "src/*/x.go", "src/{api,web}/**", "**/README.md", "src/a[pb]i/**", "**"}
	files := []string{"src/api", "src/api/a.go", "src/api/v1/b.go", "src/apix/a.go", "lib/api/a.go", "api/x.go", "src/web/app.js", "README.md", "docs/README.md", "src/abi/c.go", "src/q/x.go"}
	for _, p := range patterns {
		m, re := Matcher(p), compile(p)
		for _, f := range files {
			if got, want := m(f), re != nil && re.MatchString(f); got != want {
				t.Errorf("Matcher(%q)(%q) = %v, the regexp says %v", p, f, got, want)
			}
		}
	}
}
