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
