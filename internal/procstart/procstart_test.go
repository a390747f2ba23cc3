package procstart

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestOfSelfIsStable(t *testing.T) {
	a, err := Of(os.Getpid())
	if errors.Is(err, ErrUnknown) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := Of(os.Getpid())
	if err != nil || a != b || a == "" {
		t.Fatalf("Of(self) = %q then %q (%v)", a, b, err)
	}
}

func TestOfDiffersForAnotherProcess(t *testing.T) {
	self, err := Of(os.Getpid())
	if errors.Is(err, ErrUnknown) {
		t.Skip(err)
	}
	// The token counts clock ticks (10 ms on most systems): a child
	// started in the test's first tick would share it.
	time.Sleep(50 * time.Millisecond)
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	child, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if child == self {
		t.Fatalf("a child started later has the same start token %q", child)
	}
}

func TestOfGoneProcess(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	if _, err := Of(cmd.Process.Pid); err == nil {
		t.Fatal("a process that exited still has a start time")
	}
	if _, err := Of(0); err == nil {
		t.Fatal("pid 0 accepted")
	}
}

func TestParseStat(t *testing.T) {
	cases := map[string]string{
		"1234 (a b) c)) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 777 19 20": "777",
		"1 (init) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 42 1000 10":       "42",
	}
	for in, want := range cases {
		got, err := parseStat(in)
		if err != nil || got != want {
			t.Errorf("parseStat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1 (x", "1 (x) S 1 2", "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -5"} {
		if _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) accepted", bad)
		}
	}
}
