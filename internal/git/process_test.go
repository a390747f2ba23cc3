package git

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/kontext-dev/kontext/internal/fsroot"

	"github.com/kontext-dev/kontext/internal/gittest"
)

func initRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Init(t, dir)
	// For the tests' own git commands: Ada commits, unsigned.
	gittest.Git(t, dir, "config", "user.name", "Ada")
	gittest.Git(t, dir, "config", "user.email", "ada@example.com")
	gittest.Git(t, dir, "config", "commit.gpgsign", "false")
	return dir
}

// gate is a stdin that blocks until it is opened, so a test holds git
// processes running for as long as it needs.
type gate struct{ open chan struct{} }

func (g *gate) Read(p []byte) (int, error) {
	<-g.open
	return 0, io.EOF
}

// A flood of git commands runs at most MaxProcesses at once; the rest wait
// for a slot (it was 171 concurrent git processes before).
func TestGitProcessesAreBoundedGlobally(t *testing.T) {
	dir := initRepo(t)
	ctx := context.Background()
	g := &gate{open: make(chan struct{})}
	const flood = 5 * MaxProcesses
	ResetPeak()
	var wg sync.WaitGroup
	errs := make(chan error, flood)
	for range flood {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := runEnv(ctx, dir, nil, g, "hash-object", "--stdin")
			errs <- err
		}()
	}
	// Wait, without a clock, until the slots are full: the rest queue.
	for Processes().Running < MaxProcesses {
		runtime.Gosched()
	}
	if got := len(slots); got != MaxProcesses {
		t.Errorf("%d slots taken, want %d", got, MaxProcesses)
	}
	close(g.open)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p := Processes().Peak; p > MaxProcesses {
		t.Errorf("peak %d concurrent git processes, want at most %d", p, MaxProcesses)
	}
}

// A cancelled command stops at once, and so does everything git started:
// the whole process group is killed.
func TestCancelKillsGitAndItsChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := initRepo(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := runEnv(ctx, dir, nil, nil, "-c", "alias.hang=!echo $$ > "+pidFile+"; exec sleep 1000", "hang")
		done <- err
	}()
	var pid int
	for pid == 0 {
		if b, err := os.ReadFile(pidFile); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		runtime.Gosched()
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled git returned %v, want context.Canceled", err)
	}
	// The grandchild (sleep) dies with the group; without a group kill it
	// would sleep on for 1000 s and this loop would not end.
	for alive(pid) {
		runtime.Gosched()
	}
}

// alive reports whether pid runs (a zombie has stopped running).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func TestOutputOverTheLimitStopsGit(t *testing.T) {
	dir := initRepo(t)
	defer func(n int) { outputLimit = n }(outputLimit)
	outputLimit = 1 << 10
	big := bytes.Repeat([]byte("x"), 64<<10)
	_, err := runEnv(context.Background(), dir, nil, bytes.NewReader(big), "-c", "alias.cat=!cat", "cat")
	var tl *OutputTooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("64 KiB of output with a 1 KiB limit: %v, want OutputTooLargeError", err)
	}
	out, err := runEnv(context.Background(), dir, nil, bytes.NewReader(big[:512]), "-c", "alias.cat=!cat", "cat")
	if err != nil || len(out) != 512 {
		t.Fatalf("512 bytes under the limit: %d bytes, %v", len(out), err)
	}
}

// An object over MaxObjectBytes is refused without being held in memory,
// and the batch stream stays in step for the next read.
func TestObjectOverTheLimitIsSkipped(t *testing.T) {
	dir := initRepo(t)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	huge, err := r.RunInput(ctx, make([]byte, MaxObjectBytes+1), "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	small, err := r.RunInput(ctx, []byte("small\n"), "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err = r.Object(ctx, strings.TrimSpace(string(huge)))
	runtime.ReadMemStats(&after)
	var tl *fsroot.TooLargeError
	if !errors.As(err, &tl) || tl.Size != MaxObjectBytes+1 {
		t.Fatalf("Object(16 MiB + 1) = %v, want a TooLargeError", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("skipping the object allocated %d bytes", grew)
	}
	kind, data, ok, err := r.Object(ctx, strings.TrimSpace(string(small)))
	if err != nil || !ok || kind != "blob" || string(data) != "small\n" {
		t.Fatalf("the next object: %q %q %v %v", kind, data, ok, err)
	}
}

func TestObjectWithAnEndedContextReadsNothing(t *testing.T) {
	dir := initRepo(t)
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := r.Object(ctx, "HEAD"); !errors.Is(err, context.Canceled) {
		t.Errorf("Object with a cancelled context: %v", err)
	}
}

// Repos beyond MaxBatchReaders share the bound: the least recently used
// batch process is stopped, and restarts when its Repo reads again.
func TestBatchReadersAreBoundedGlobally(t *testing.T) {
	dir := initRepo(t)
	ctx := context.Background()
	var repos []*Repo
	for range 2 * MaxBatchReaders {
		r, err := Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		repos = append(repos, r)
	}
	sha, err := repos[0].RunInput(ctx, []byte("x\n"), "hash-object", "-w", "--stdin")
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		for i, r := range repos {
			if _, data, ok, err := r.Object(ctx, strings.TrimSpace(string(sha))); err != nil || !ok || string(data) != "x\n" {
				t.Fatalf("round %d, repo %d: %q %v %v", round, i, data, ok, err)
			}
			readers.mu.Lock()
			n := len(readers.live)
			readers.mu.Unlock()
			if n > MaxBatchReaders {
				t.Fatalf("%d batch readers alive, want at most %d", n, MaxBatchReaders)
			}
		}
	}
	live := 0
	for _, r := range repos {
		r.catMu.Lock()
		if r.cat != nil {
			live++
		}
		r.catMu.Unlock()
	}
	if live != MaxBatchReaders {
		t.Errorf("%d repos hold a batch process, want %d", live, MaxBatchReaders)
	}
}

// A command its request's end stopped is not git's answer: Head read an
// exit status with an empty stderr as an unborn branch, so a cancelled
// request saw a repository without commits.
func TestCancelledCommandIsNotAnAnswer(t *testing.T) {
	dir := initRepo(t)
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.RunInput(context.Background(), nil, "commit", "-q", "--allow-empty", "-m", "one"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if head, err := r.Head(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Head with a cancelled context = %q, %v; want context.Canceled", head, err)
	}
	if _, err := r.Run(ctx, "rev-parse", "HEAD"); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v", err)
	}
	var ge *Error
	if _, err := r.Run(ctx, "check-ignore", "x"); errors.As(err, &ge) {
		t.Errorf("a cancelled command came back as git's own failure: %v", err)
	}
}
