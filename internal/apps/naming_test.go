package apps

import (
	"crypto/sha256"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func TestNamesStayWithinBudgetAndCharset(t *testing.T) {
	long := strings.Repeat("Přidať poznámku ✓ ", 17)[:0]
	for utf8.RuneCountInString(long) < 300 {
		long += "Přidať poznámku ✓ "
	}
	long = string([]rune(long)[:300])
	for _, budget := range []int{MinNameBudget, DefaultNameBudget, 64, MaxNameBudget} {
		for _, action := range []string{"add_note", long, "✓✓✓", strings.Repeat("x", 500)} {
			ts := []*named{{app: appSlug("dev.kontext.notes"), action: action, sum: sha256.Sum256([]byte(action))}}
			if err := assignNames(ts, budget); err != nil {
				t.Fatal(err)
			}
			n := ts[0].name
			if len(n) > budget || !validName.MatchString(n) {
				t.Fatalf("budget %d, action %.20q: name %q (%d characters)", budget, action, n, len(n))
			}
		}
	}
	ts := []*named{{app: "notes", action: "add_note", sum: sha256.Sum256(nil)}}
	_ = assignNames(ts, DefaultNameBudget)
	if !strings.HasPrefix(ts[0].name, "notes_add_note_") || len(ts[0].name) != len("notes_add_note_")+digestLen {
		t.Fatalf("name = %q", ts[0].name)
	}
	if err := assignNames(ts, MinNameBudget-1); err == nil {
		t.Fatal("a budget below the minimum was accepted")
	}
}

// Two surfaces whose names coincide once shortened lengthen their digests
// until they differ, whatever order they come in.
func TestCollisionsLengthenTheDigestDeterministically(t *testing.T) {
	var a, b [32]byte
	a[0], b[0] = 1, 1 // the same first digest characters
	a[8], b[8] = 1, 2 // and the same first 12 (64 bits)
	one := []*named{{app: "notes", action: "x", sum: a}, {app: "notes", action: "x", sum: b}}
	two := []*named{{app: "notes", action: "x", sum: b}, {app: "notes", action: "x", sum: a}}
	if err := assignNames(one, DefaultNameBudget); err != nil {
		t.Fatal(err)
	}
	if err := assignNames(two, DefaultNameBudget); err != nil {
		t.Fatal(err)
	}
	if one[0].name == one[1].name {
		t.Fatalf("collision kept: %q", one[0].name)
	}
	if one[0].name != two[1].name || one[1].name != two[0].name {
		t.Fatalf("order changed the names: %v vs %v", sortedNames(one), sortedNames(two))
	}
	if len(one[0].name) <= len("notes_x_")+digestLen {
		t.Fatalf("digest not lengthened: %q", one[0].name)
	}
}

func TestDigestCoversTheWholeSurface(t *testing.T) {
	base := surface{Profile: "p", AppID: "a", InstanceID: "i", Action: "x", RegistrationID: "r1", InputSchema: []byte(`{"type": "object"}`)}
	same := base
	same.InputSchema = []byte(`{"type":"object"}`)
	if base.sum() != same.sum() {
		t.Fatal("whitespace in a schema changed the digest")
	}
	for name, change := range map[string]func(*surface){
		"registration": func(s *surface) { s.RegistrationID = "r2" },
		"instance":     func(s *surface) { s.InstanceID = "j" },
		"description":  func(s *surface) { s.Description = "d" },
		"schema":       func(s *surface) { s.InputSchema = []byte(`{"type":"object","properties":{}}`) },
		"annotations":  func(s *surface) { s.Annotations = []byte(`{"readOnlyHint":true}`) },
		"confirmation": func(s *surface) { s.Confirmation = []byte(`{"required":true}`) },
	} {
		s := base
		change(&s)
		if s.sum() == base.sum() {
			t.Errorf("a change of %s kept the digest", name)
		}
	}
}

// Whatever an application calls itself and its actions, a typed name is
// made of [A-Za-z0-9_-], within budget, and ends in the whole digest.
func FuzzToolName(f *testing.F) {
	f.Add("dev.kontext.notes", "add_note", 10, DefaultNameBudget)
	f.Add("", "", 10, MinNameBudget)
	f.Add("✓.✓", strings.Repeat("zápisník_", 40), 13, MinNameBudget)
	f.Add("a.b.c.", "__--__", 52, MaxNameBudget)
	f.Fuzz(func(t *testing.T, appID, action string, n, budget int) {
		budget = MinNameBudget + abs(budget)%(MaxNameBudget-MinNameBudget+1)
		// The digest's lengths assignNames uses: 10 characters, lengthened
		// by collisions up to the whole 52 or what the budget leaves.
		maxDigest := min(52, budget-4)
		n = digestLen + abs(n)%(maxDigest-digestLen+1)
		sum := sha256.Sum256([]byte(appID + "\x00" + action))
		name := toolName(appSlug(appID), action, sum, n, budget)
		if !validName.MatchString(name) || len(name) > budget {
			t.Fatalf("toolName(%q, %q, n=%d, budget=%d) = %q", appID, action, n, budget, name)
		}
		if d := digestEncoding.EncodeToString(sum[:])[:n]; !strings.HasSuffix(name, "_"+d) {
			t.Fatalf("%q does not end in the digest %q", name, d)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // the smallest int
			return 0
		}
		return -n
	}
	return n
}
