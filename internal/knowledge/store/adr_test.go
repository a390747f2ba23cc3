package store

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The statuses real ADR directories use parse into the five statuses, with
// what they say beyond the word kept as the note, and kontext check finds
// nothing to warn about in its own reading of them.
func TestADRStatusesParseWithTheirNote(t *testing.T) {
	adr := func(status string) []byte {
		return []byte("# 3. Networking outline\n\nDate: 2017-06-30\n\n## Status\n\n" + status + "\n\n## Context\n\nWe need ranges.\n\n## Decision\n\nOne VPC per environment.\n")
	}
	for _, c := range []struct {
		status, want, note string
		by                 []string
	}{
		{"Partly superseded by 0015", StatusSuperseded, "Partly superseded by 0015", []string{"0015"}},
		{"Partly superseded", StatusSuperseded, "Partly superseded", nil},
		{"Partially superseded by [ADR-0006](0006-local-tcp.md). The plugin part stands.", StatusSuperseded, "Partially superseded by [ADR-0006](0006-local-tcp.md). The plugin part stands.", []string{"0006-local-tcp"}},
		{"Superseded in part by 0012", StatusSuperseded, "Superseded in part by 0012", []string{"0012"}},
		{"Superseded by [DNS Infrastructure](0015-dns-infrastructure.md)", StatusSuperseded, "", []string{"0015-dns-infrastructure"}},
		{"Superceded by 0004", StatusSuperseded, "", []string{"0004"}},
		{"Replaced by 0009", StatusSuperseded, "", []string{"0009"}},
		{"Accepted (2021-03-01)", StatusAccepted, "Accepted (2021-03-01)", nil},
		{"Pending", StatusProposed, "Pending", nil},
		{"Approved", StatusAccepted, "Approved", nil},
		{"In progress", StatusProposed, "In progress", nil},
		{"Deprecated in favour of 0012", StatusDeprecated, "Deprecated in favour of 0012", nil},
		{"Accepted", StatusAccepted, "", nil},
	} {
		e := Parse("docs/architecture/decisions/0003-networking-outline.md", adr(c.status), KindDecision)
		if e.Status != c.want || e.StatusNote != c.note || !reflect.DeepEqual(e.SupersededBy, c.by) {
			t.Errorf("%q: status %q note %q superseded by %q", c.status, e.Status, e.StatusNote, e.SupersededBy)
		}
		for _, p := range Validate([]*Entry{e}, CheckOptions{NoSecrets: true}) {
			if strings.Contains(p.Message, "status") {
				t.Errorf("%q: check warns about kontext's own parse: %s", c.status, p)
			}
		}
		// Read back unchanged: the status line is the team's.
		if got := string(Marshal(e)); got != string(adr(c.status)) {
			t.Errorf("%q: not written back as read:\n%s", c.status, got)
		}
	}
	// A status under a first-level heading (manage.get.gov's 0028).
	e := Parse("docs/adr/0028-x.md", []byte("# 28. Portfolio session management\n\nDate: 2025-05-29\n\n# Status\n\nApproved\n\n## Context\n\nForms are static.\n"), KindDecision)
	if e.Status != StatusAccepted || e.SummaryText(0) != "Forms are static." {
		t.Errorf("# Status: status %q, summary %q", e.Status, e.SummaryText(0))
	}
	// A status kontext cannot read still gets its warning.
	e = Parse("docs/adr/0004-x.md", adr("Banana"), KindDecision)
	if ps := Validate([]*Entry{e}, CheckOptions{NoSecrets: true}); len(ps) != 1 || !strings.Contains(ps[0].Message, `unusual decision status "banana"`) {
		t.Errorf("an unknown status: %v", ps)
	}
}

// A summary is the Decision section's first sentence: never the Status
// line, never a lead-in that ends with a colon.
func TestADRSummaries(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"first sentence", "## Status\n\nAccepted\n\n## Decision\n\nWe run every service on EKS managed node groups, sized per environment by the platform team after a load test. Self-managed nodes are gone.\n",
			"We run every service on EKS managed node groups, sized per environment by the platform team after a load test."},
		{"short sentences stay together", "## Decision\n\nOne PostgreSQL database. Reporting reads a replica.\n", "One PostgreSQL database. Reporting reads a replica."},
		{"abbreviations are no sentence end", "## Decision\n\nWe use managed queues, e.g. SQS for jobs and SNS for events, and never run a broker of our own because nobody on call knows one well enough.\n",
			"We use managed queues, e.g. SQS for jobs and SNS for events, and never run a broker of our own because nobody on call knows one well enough."},
		{"a lead-in and its list", "## Status\n\nAccepted\n\n## Decision\n\nWe will do the following:\n\n * 1 VPC per environment\n * 3 public subnets, spread across availability zones\n",
			"We will do the following: 1 VPC per environment; 3 public subnets, spread across availability zones"},
		{"a list right after its lead-in", "## Decision\n\nThe load balancer was modified to:\n1. Add a listener on port 80.\n2. Redirect it to 443.\n", "The load balancer was modified to: Add a listener on port 80; Redirect it to 443"},
		{"a list alone", "## Decision\n\n- Terraform state lives in S3\n- Locks live in DynamoDB\n", "Terraform state lives in S3; Locks live in DynamoDB"},
		{"MADR's Decision Outcome", "## Context and Problem Statement\n\nWhich format?\n\n## Decision Outcome\n\nChosen option: \"MADR 3.0.0\", because it is lean. It also has tooling.\n",
			"Chosen option: \"MADR 3.0.0\", because it is lean. It also has tooling."},
		{"no Decision section: not the status", "## Status\n\nAccepted\n\n## Context\n\nThe old hosts are end of life.\n", "The old hosts are end of life."},
	} {
		e := Parse("docs/adr/0001-x.md", []byte("# 1. X\n\nDate: 2020-01-01\n\n"+c.body), KindDecision)
		if got := e.SummaryText(0); got != c.want {
			t.Errorf("%s: summary %q, want %q", c.name, got, c.want)
		}
	}
}

// A new decision in a directory of the team's own ADRs is written the way
// they are, read from the newest of them; it reads back with every field.
func TestNewDecisionsFollowTheDirectorysADRFormat(t *testing.T) {
	const body = "## Context\n\nDates drifted.\n\n## Decision\n\nDates are handled with date-fns.\n\n## Consequences\n\nmoment goes.\n"
	for _, c := range []struct {
		name, config string
		existing     map[string]string
		want         string
	}{
		{"adr-tools", `path = "doc/adr"` + "\nstyle = \"fields\"\nnumbering = \"sequential\"\n",
			map[string]string{
				"doc/adr/0001-record-architecture-decisions.md": "# 1. Record architecture decisions\n\nDate: 2017-11-14\n\n## Status\n\nAccepted\n\n## Context\n\nWe need to record decisions.\n\n## Decision\n\nWe will use ADRs.\n\n## Consequences\n\nSee Nygard.\n",
				"doc/adr/0012-use-express.md":                   "# 12. Use Express\n\nDate: 2018-01-02\n\n## Status\n\nAccepted\n\n## Context\n\nA server.\n\n## Decision\n\nExpress.\n\n## Consequences\n\nMiddleware.\n",
			},
			"# 13. Use date-fns\n\nDate: 2026-09-28\nPaths: `src/dates/**`\n<!-- kontext:init_task dec:src -->\n\n## Status\n\nAccepted\n\n" + body},
		{"MADR 3", `path = "docs/decisions"` + "\nstyle = \"frontmatter\"\nnumbering = \"sequential\"\n",
			map[string]string{
				"docs/decisions/0001-use-markdown-architectural-decision-records.md": "---\nstatus: accepted\ndate: 2023-05-01\ndeciders: Ada, Ben\n---\n# Use Markdown Architectural Decision Records\n\n## Context and Problem Statement\n\nWhich format?\n\n## Decision Outcome\n\nChosen option: \"MADR\", because it is lean.\n\n### Consequences\n\n* Good, because lean.\n",
			},
			"---\nstatus: accepted\ndate: 2026-09-28\npaths: [src/dates/**]\ninit_task: dec:src\n---\n\n# Use date-fns\n\n## Context and Problem Statement\n\nDates drifted.\n\n## Decision Outcome\n\nDates are handled with date-fns.\n\n### Consequences\n\nmoment goes.\n"},
		{"MADR 2", `path = "docs/adr"` + "\nstyle = \"fields\"\nnumbering = \"sequential\"\n",
			map[string]string{
				"docs/adr/0001-use-madr.md": "# Use Markdown Architectural Decision Records\n\n* Status: accepted\n* Deciders: Alice, Bob\n* Date: 2017-11-14\n\nTechnical Story: none\n\n## Context and Problem Statement\n\nWhich format?\n\n## Decision Outcome\n\nChosen option: MADR.\n",
			},
			"# Use date-fns\n\n* Status: accepted\n* Date: 2026-09-28\n* Paths: `src/dates/**`\n<!-- kontext:init_task dec:src -->\n\n## Context and Problem Statement\n\nDates drifted.\n\n## Decision Outcome\n\nDates are handled with date-fns.\n\n## Consequences\n\nmoment goes.\n"},
		{"Nygard", `path = "docs/architecture/decisions"` + "\nstyle = \"fields\"\nnumbering = \"sequential\"\n",
			map[string]string{
				"docs/architecture/decisions/0007-use-rds.md": "# ADR 007: Use RDS\n\n## Status\n\nAccepted\n\n## Context\n\nDatabases.\n\n## Decision\n\nRDS.\n\n## Consequences\n\nManaged.\n",
			},
			"# ADR 008: Use date-fns\n\nDate: 2026-09-28\nPaths: `src/dates/**`\n<!-- kontext:init_task dec:src -->\n\n## Status\n\nAccepted\n\n" + body},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{".ai/kontext.toml": "[store]\ndir = \".ai\"\n\n[store.kinds.decision]\n" + c.config}
			for k, v := range c.existing {
				files[k] = v
			}
			s, _ := newStore(t, files)
			e := &Entry{Kind: KindDecision, Title: "Use date-fns", Status: StatusAccepted, Paths: []string{"src/dates/**"}, Body: body}
			e.Set("init_task", "dec:src")
			res, err := s.Create(e)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(s.Root(), res.Path))
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != c.want {
				t.Errorf("%s:\n%s\nwant:\n%s", res.Path, data, c.want)
			}
			back := Parse(res.Path, data, KindDecision)
			if back.Title != "Use date-fns" || back.Status != StatusAccepted || back.Date != "2026-09-28" ||
				!reflect.DeepEqual(back.Paths, []string{"src/dates/**"}) || back.Get("init_task") != "dec:src" || !strings.Contains(back.Body, "Dates are handled with date-fns.") {
				t.Errorf("reads back as %+v", back)
			}
			if got := back.SummaryText(0); got != "Dates are handled with date-fns." {
				t.Errorf("summary %q", got)
			}
			if ps := Validate([]*Entry{back}, CheckOptions{NoSecrets: true}); len(ps) > 0 {
				t.Errorf("check: %v", ps)
			}
		})
	}
}
