package lazyregexp

import "testing"

func TestLazy(t *testing.T) {
	r := New(`a(b+)c`)
	if r.rx != nil {
		t.Fatal("compiled before use")
	}
	if m := r.FindStringSubmatch("xabbbc"); len(m) != 2 || m[1] != "bbb" {
		t.Fatalf("FindStringSubmatch = %q", m)
	}
	if !r.MatchString("abc") || r.MatchString("ac") || r.String() != `a(b+)c` {
		t.Fatal("MatchString or String")
	}
}

func TestCompileAllReportsABadExpression(t *testing.T) {
	if err := CompileAll(); err != nil {
		t.Fatalf("before: %v", err)
	}
	New(`(unclosed`)
	if err := CompileAll(); err == nil {
		t.Fatal("a bad expression was not reported")
	}
}
