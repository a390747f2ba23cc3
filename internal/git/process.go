package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// MaxProcesses is how many git commands kontext runs at once, across the
// whole process; more wait their turn (or give up when their context
// ends). A flood of requests therefore queues here instead of starting a
// git process each. The long-lived `cat-file --batch` readers are bounded
// apart, by MaxBatchReaders.
const MaxProcesses = 8

// MaxOutputBytes bounds what one git command may print to stdout: a
// command that prints more is stopped and fails with *OutputTooLargeError
// rather than filling memory (EachCommit streams and is not bounded).
const MaxOutputBytes = 256 << 20

// waitDelay is how long Wait waits for a killed git's output pipes to
// close: a grandchild (a filter, a pager) holding them must not keep a
// cancelled request alive.
const waitDelay = time.Second

var (
	slots                  = make(chan struct{}, MaxProcesses)
	outputLimit            = MaxOutputBytes // tests lower it
	running, peak, counter atomic.Int64
)

// ProcessStats say how many git processes run now, the most that ever ran
// at once and how many were started in all, batch readers included; for
// tests and benchmarks.
type ProcessStats struct {
	Running, Peak, Started int64
}

// Processes returns the current ProcessStats.
func Processes() ProcessStats {
	return ProcessStats{Running: running.Load(), Peak: peak.Load(), Started: counter.Load()}
}

// ResetPeak sets the peak to the number running now.
func ResetPeak() { peak.Store(running.Load()) }

func started() {
	counter.Add(1)
	n := running.Add(1)
	for {
		p := peak.Load()
		if n <= p || peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func ended() { running.Add(-1) }

// acquire takes one of the MaxProcesses slots, or fails when ctx ends
// first.
func acquire(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() { once.Do(func() { <-slots }) }, nil
}

// command is a git command with kontext's environment, killed with its
// whole process group when ctx ends.
func command(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = environment(env)
	cmd.WaitDelay = waitDelay
	killGroupOnCancel(cmd)
	return cmd
}

// start starts cmd in one of the slots; finish must be called after Wait.
func start(ctx context.Context, cmd *exec.Cmd) (finish func(), err error) {
	release, err := acquire(ctx)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		release()
		return nil, err
	}
	started()
	return func() { ended(); release() }, nil
}

// OutputTooLargeError is a git command stopped for printing more than
// MaxOutputBytes.
type OutputTooLargeError struct {
	Args  []string
	Limit int64
}

func (e *OutputTooLargeError) Error() string {
	return fmt.Sprintf("git %s printed more than %d MiB; stopped", firstArgs(e.Args), e.Limit>>20)
}

func firstArgs(args []string) string {
	if len(args) > 3 {
		args = args[:3]
	}
	s := ""
	for i, a := range args {
		if i > 0 {
			s += " "
		}
		s += a
	}
	return s
}

var errOutputLimit = errors.New("output limit reached")

// cappedBuffer keeps at most limit bytes and then refuses the rest, which
// ends the copy from git's stdout (git then dies of SIGPIPE).
type cappedBuffer struct {
	buf   []byte
	limit int
	over  bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if len(c.buf)+len(p) > c.limit {
		c.over = true
		return 0, errOutputLimit
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

var _ io.Writer = (*cappedBuffer)(nil)

// stderrBuffer keeps the first maxStderr bytes of what git prints on
// stderr (what an error message needs) and drops the rest without
// failing, so a chatty git is never stopped by it.
type stderrBuffer struct{ buf []byte }

const maxStderr = 64 << 10

func (s *stderrBuffer) Write(p []byte) (int, error) {
	if room := maxStderr - len(s.buf); room > 0 {
		s.buf = append(s.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (s *stderrBuffer) String() string { return string(s.buf) }
