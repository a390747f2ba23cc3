package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// childCmd re-executes the test binary in a role (see child).
func childCmd(role string, env map[string]string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "KONTEXT_LOCAL_CHILD="+role)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

func child(role string) int {
	ctx := context.Background()
	switch role {
	case "lock":
		s, err := openPlain(ctx, os.Getenv("KX_DIR"))
		if err != nil {
			fmt.Println(err)
			return 1
		}
		c, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		unlock, err := s.Lock(c)
		if err != nil {
			fmt.Println("lock:", err)
			return 0
		}
		unlock()
		fmt.Println("lock: ok")
		return 0
	case "worker":
		n, _ := strconv.Atoi(os.Getenv("KX_N"))
		seed, _ := strconv.ParseUint(os.Getenv("KX_SEED"), 10, 64)
		if err := work(ctx, os.Getenv("KX_DIR"), os.Getenv("KX_PREFIX"), n, seed); err != nil {
			fmt.Println("worker:", err)
			return 1
		}
		return 0
	case "writer":
		// Rewrites one file forever, alternating two contents, until killed.
		path := os.Getenv("KX_FILE")
		for i := 0; ; i++ {
			if err := atomicfile.Write(path, content(i%2), 0o644); err != nil {
				fmt.Println(err)
				return 1
			}
		}
	case "promoter":
		// Promotes one candidate (a test kills it half-way with
		// KONTEXT_TEST_KILL_AT).
		s, err := openPlain(ctx, os.Getenv("KX_DIR"))
		if err != nil {
			fmt.Println(err)
			return 1
		}
		if _, err := s.Promote(ctx, os.Getenv("KX_ID")); err != nil {
			fmt.Println("promote:", err)
			return 1
		}
		return 0
	case "capturer":
		// Captures forever until killed.
		s, err := openPlain(ctx, os.Getenv("KX_DIR"))
		if err != nil {
			fmt.Println(err)
			return 1
		}
		for i := 0; ; i++ {
			m := fmt.Sprintf("k%d-%d", os.Getpid(), i)
			if _, err := s.Capture(ctx, Capture{Kind: "learning", Title: "Killed " + m, Body: body(m, 200)}); err != nil {
				fmt.Println(err)
				return 1
			}
		}
	}
	fmt.Println("unknown role", role)
	return 2
}

func openPlain(ctx context.Context, dir string) (*State, error) {
	repo, err := git.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(ctx, repo, noUserConfig)
	if err != nil {
		return nil, err
	}
	return Open(ctx, repo, cfg)
}

// body is a capture's text: its marker first and an END line last, so a
// truncated file is recognised.
func body(marker string, lines int) string {
	var b strings.Builder
	b.WriteString("body " + marker + "\n")
	for i := range lines {
		fmt.Fprintf(&b, "filler line %d of %s with some words to make the file larger\n", i, marker)
	}
	b.WriteString("END " + marker)
	return b.String()
}

// work captures n entries and promotes some of them, and some of what the
// others captured, so that promotions race.
func work(ctx context.Context, dir, prefix string, n int, seed uint64) error {
	s, err := openPlain(ctx, dir)
	if err != nil {
		return err
	}
	defer s.Repo.Close()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range n {
		m := fmt.Sprintf("%s-%d", prefix, i)
		kind := []string{"decision", "learning", "pitfall"}[i%3]
		// Shared words in titles make slugs collide across workers.
		c, err := s.Capture(ctx, Capture{Kind: kind, Title: "Shared title " + strconv.Itoa(i%4) + " " + m, Body: body(m, 20)})
		if err != nil {
			return fmt.Errorf("capture %s: %w", m, err)
		}
		switch r.IntN(4) {
		case 0, 1:
			if _, err := s.Promote(ctx, c.Entry.ID); err != nil && !benign(err) {
				return fmt.Errorf("promote own %s: %w", c.Entry.ID, err)
			}
		case 2:
			list, err := s.List(ctx)
			if err != nil {
				return err
			}
			if len(list) > 0 {
				id := list[r.IntN(len(list))].ID
				if _, err := s.Promote(ctx, id); err != nil && !benign(err) {
					return fmt.Errorf("promote other %s: %w", id, err)
				}
			}
		}
	}
	return nil
}

// benign errors are the ones racing promoters expect: someone else got there first.
func benign(err error) bool {
	var nf *NotFoundError
	var ap *AlreadyPromotedError
	return errors.As(err, &nf) || errors.As(err, &ap)
}

var markerRe = regexp.MustCompile(`(?m)^body (\S+)$`)

// TestConcurrentCaptureAndPromote runs goroutines and two other processes,
// in two worktrees of one repository, capturing and promoting at once.
// Afterwards every capture is in the inbox or promoted, exactly once, every
// file is whole, and ids are unique.
func TestConcurrentCaptureAndPromote(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	dir := newRepo(t, map[string]string{withStore: "[store.kinds.decision]\nnumbering = \"sequential\"\n", ".ai/decisions/0001-first.md": "---\ntitle: First\nstatus: accepted\ndate: 2026-01-01\n---\n\nx\n"})
	other := filepath.Join(t.TempDir(), "wt2")
	gitCmd(t, dir, "worktree", "add", "-q", "-b", "wt2", other)
	dirs := []string{dir, other}

	const perWorker = 12
	var prefixes []string
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	var procs []*exec.Cmd
	var outs []*bytes.Buffer
	for p := range 2 {
		prefix := "proc" + strconv.Itoa(p)
		prefixes = append(prefixes, prefix)
		cmd := childCmd("worker", map[string]string{"KX_DIR": dirs[p], "KX_PREFIX": prefix, "KX_N": strconv.Itoa(perWorker), "KX_SEED": strconv.Itoa(100 + p)})
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs, outs = append(procs, cmd), append(outs, out)
	}
	for g := range 4 {
		prefix := "go" + strconv.Itoa(g)
		prefixes = append(prefixes, prefix)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(ctx, dirs[g%2], prefix, perWorker, uint64(g)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}

	seen := map[string][]string{} // marker → where it is
	checkWhole := func(where string, data []byte) {
		m := markerRe.FindSubmatch(data)
		if m == nil {
			if !bytes.Contains(data, []byte("title: First")) {
				t.Errorf("%s: no marker (partial file?):\n%s", where, data)
			}
			return
		}
		marker := string(m[1])
		if !bytes.HasSuffix(bytes.TrimRight(data, "\n"), []byte("END "+marker)) {
			t.Errorf("%s: truncated", where)
		}
		seen[marker] = append(seen[marker], where)
	}
	s := open(t, dir)
	inbox, _ := os.ReadDir(s.InboxDir())
	ids := map[string]bool{}
	for _, e := range inbox {
		if atomicfile.IsTemp(e.Name()) {
			t.Errorf("temporary file left: %s", e.Name())
		}
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.InboxDir(), e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		c := store.Parse("inbox/"+e.Name(), data, "learning")
		if c.ID+".md" != e.Name() || ids[c.ID] {
			t.Errorf("inbox id %q in %s", c.ID, e.Name())
		}
		ids[c.ID] = true
		checkWhole("inbox/"+e.Name(), data)
	}
	promoted, _ := os.ReadDir(s.PromotedDir())
	records := 0
	for _, e := range promoted {
		if !atomicfile.IsTemp(e.Name()) {
			records++
		}
	}
	inStore := 0
	for _, d := range dirs {
		st := open(t, d).Store
		entries, err := st.Load()
		if err != nil {
			t.Fatal(err)
		}
		storeIDs := map[string]bool{}
		numbers := map[int]string{}
		for _, e := range entries {
			if storeIDs[e.ID] {
				t.Errorf("duplicate store id %s in %s", e.ID, d)
			}
			storeIDs[e.ID] = true
			if n, ok := e.Number(); ok {
				if prev, dup := numbers[n]; dup {
					t.Errorf("ADR number %d twice: %s and %s", n, prev, e.ID)
				}
				numbers[n] = e.ID
			}
			data, _ := os.ReadFile(filepath.Join(d, filepath.FromSlash(e.Path)))
			checkWhole(filepath.Base(d)+"/"+e.Path, data)
			if markerRe.Match(data) {
				inStore++
			}
		}
		_ = filepath.WalkDir(filepath.Join(d, ".ai"), func(p string, de os.DirEntry, err error) error {
			if err == nil && atomicfile.IsTemp(de.Name()) {
				t.Errorf("temporary file left: %s", p)
			}
			return nil
		})
	}
	total := 0
	for _, p := range prefixes {
		for i := range perWorker {
			m := p + "-" + strconv.Itoa(i)
			total++
			if len(seen[m]) != 1 {
				t.Errorf("capture %s found %d times: %v", m, len(seen[m]), seen[m])
			}
		}
	}
	if records != inStore {
		t.Errorf("%d promotion records for %d promoted entries", records, inStore)
	}
	t.Logf("%d captures by 4 goroutines and 2 processes in 2 worktrees: %d promoted, %d in the inbox", total, inStore, len(ids))
	if inStore == 0 || len(ids) == 0 {
		t.Error("the test should leave both promoted and unpromoted captures")
	}
}

// content is one of two versions of a file, large enough that a write takes
// a while, with its length and version at both ends.
func content(v int) []byte {
	size := 256<<10 + v*1000
	head := fmt.Sprintf("BEGIN v%d size %d\n", v, size)
	tail := fmt.Sprintf("\nEND v%d\n", v)
	fill := bytes.Repeat([]byte{byte('a' + v)}, size-len(head)-len(tail))
	return append(append([]byte(head), fill...), tail...)
}

// TestKillDuringWrite kills a process that rewrites a file in a loop: the
// file is always the old or the new version, never a mix or a part.
func TestKillDuringWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := filepath.Join(t.TempDir(), "state.md")
	if err := atomicfile.Write(path, content(0), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 10 {
		cmd := childCmd("writer", map[string]string{"KX_FILE": path})
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(5+r.IntN(60)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, content(0)) && !bytes.Equal(data, content(1)) {
			t.Fatalf("round %d: the file is neither version (%d bytes, starts %q)", round, len(data), data[:min(len(data), 20)])
		}
	}
	// Temporary files left behind show kills that landed in the middle of a write.
	ents, _ := os.ReadDir(filepath.Dir(path))
	t.Logf("%d of 10 kills interrupted a write (temporary files left)", len(ents)-1)
}

// TestKillDuringCapture kills a process that captures in a loop: every
// inbox file is whole, and the inbox lists.
func TestKillDuringCapture(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	dir := newRepo(t, map[string]string{withStore: ""})
	s := open(t, dir)
	r := rand.New(rand.NewPCG(3, 4))
	for range 4 {
		cmd := childCmd("capturer", map[string]string{"KX_DIR": dir})
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it capture something first (a child built with -race starts slowly).
		before := countFiles(s.InboxDir())
		for deadline := time.Now().Add(20 * time.Second); countFiles(s.InboxDir()) == before && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(r.IntN(40)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		if strings.TrimSpace(out.String()) != "" {
			t.Fatalf("child: %s", out.String())
		}
	}
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		t.Fatal("nothing captured before the kills")
	}
	for _, c := range list {
		m := markerRe.FindStringSubmatch(c.Body)
		if m == nil || !strings.HasSuffix(strings.TrimRight(c.Body, "\n"), "END "+m[1]) || c.Title != "Killed "+m[1] {
			t.Fatalf("partial candidate %s:\n%s", c.ID, c.Body)
		}
	}
	// The lock was released by the kernel with each killed process.
	unlock, err := s.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	t.Logf("%d whole captures after 4 kills", len(list))
}

func countFiles(dir string) int {
	ents, _ := os.ReadDir(dir)
	return len(ents)
}
