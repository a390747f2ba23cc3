package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
)

// MaxBatchReaders bounds the `git cat-file --batch` processes alive at
// once, across every Repo of the process (a server asked about many nested
// roots has a Repo for each): starting one more first stops the one used
// least recently, which restarts on its next read.
const MaxBatchReaders = 8

// MaxObjectBytes is the largest object Object returns; a larger one is
// skipped in the batch stream and refused with *fsroot.TooLargeError.
const MaxObjectBytes = fsroot.MaxFileBytes

// Object reads one object ("<sha>", "<rev>:<path>") through the batch
// process. ok is false when the object does not exist. When ctx ends
// during the read, the batch process is killed and ctx.Err() returned.
func (r *Repo) Object(ctx context.Context, name string) (kind string, data []byte, ok bool, err error) {
	if strings.ContainsAny(name, "\n") {
		return "", nil, false, fmt.Errorf("object name with a newline: %q", name)
	}
	if err := ctx.Err(); err != nil {
		return "", nil, false, err
	}
	r.catMu.Lock()
	defer r.catMu.Unlock()
	if r.cat == nil {
		if err := readers.admit(ctx, r); err != nil {
			return "", nil, false, err
		}
		r.cat, err = startCatFile(r.Dir)
		if err != nil {
			readers.leave(r)
			return "", nil, false, err
		}
	}
	readers.touch(r)
	cat := r.cat
	stop := context.AfterFunc(ctx, cat.kill)
	kind, data, ok, err = cat.read(name)
	stop()
	if err != nil {
		var tooLarge *fsroot.TooLargeError
		if errors.As(err, &tooLarge) {
			return "", nil, false, err // skipped; the stream is still in step
		}
		// A broken (or killed) batch process is restarted on the next read.
		r.closeCat()
		if ctx.Err() != nil {
			err = ctx.Err()
		}
	}
	return kind, data, ok, err
}

// closeCat stops the batch process; r.catMu is held.
func (r *Repo) closeCat() {
	if r.cat != nil {
		r.cat.close()
		r.cat = nil
		readers.leave(r)
	}
}

// FileAt returns the content of path at a revision, without a checkout.
func (r *Repo) FileAt(ctx context.Context, rev, path string) ([]byte, bool, error) {
	kind, data, ok, err := r.Object(ctx, rev+":"+path)
	if err != nil || !ok {
		return nil, ok, err
	}
	if kind != "blob" {
		return nil, false, fmt.Errorf("%s:%s is a %s, not a file", rev, path, kind)
	}
	return data, true, nil
}

// Close stops the batch process.
func (r *Repo) Close() error {
	r.catMu.Lock()
	defer r.catMu.Unlock()
	r.closeCat()
	return nil
}

// readerPool is the set of Repos with a running batch process, least
// recently used first.
type readerPool struct {
	mu   sync.Mutex
	live []*Repo
}

var readers readerPool

// admit makes room for r's batch process: under MaxBatchReaders it is
// admitted at once; at the bound, the least recently used idle reader of
// another Repo is stopped. r.catMu is held; other Repos' locks are only
// tried, so two Repos making room never wait for each other.
func (p *readerPool) admit(ctx context.Context, r *Repo) error {
	for attempt := 0; ; attempt++ {
		p.mu.Lock()
		if len(p.live) < MaxBatchReaders {
			p.live = append(p.live, r)
			p.mu.Unlock()
			return nil
		}
		var victim *Repo
		for _, v := range p.live {
			if v != r && v.catMu.TryLock() {
				victim = v
				break
			}
		}
		p.mu.Unlock()
		if victim != nil {
			victim.closeCat()
			victim.catMu.Unlock()
			continue
		}
		// Every reader is in the middle of a read: they are short.
		t := time.NewTimer(time.Millisecond << min(attempt, 5))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

func (p *readerPool) leave(r *Repo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, v := range p.live {
		if v == r {
			p.live = append(p.live[:i], p.live[i+1:]...)
			return
		}
	}
}

// touch moves r to the most recently used end.
func (p *readerPool) touch(r *Repo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, v := range p.live {
		if v == r {
			copy(p.live[i:], p.live[i+1:])
			p.live[len(p.live)-1] = r
			return
		}
	}
}

// catFile is a running `git cat-file --batch`.
type catFile struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	once sync.Once
}

func startCatFile(dir string) (*catFile, error) {
	// Not bound to a request's context: it outlives the request that
	// started it. Object kills it when a reader's context ends mid-read.
	cmd := command(context.Background(), dir, nil, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	started()
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

func (c *catFile) read(name string) (string, []byte, bool, error) {
	if _, err := io.WriteString(c.in, name+"\n"); err != nil {
		return "", nil, false, err
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return "", nil, false, err
	}
	// "<name> missing" and "<name> ambiguous" echo the name, which may hold
	// spaces (rev:path with a space in the path).
	if h := strings.TrimSuffix(header, "\n"); strings.HasSuffix(h, " missing") || strings.HasSuffix(h, " ambiguous") {
		return "", nil, false, nil
	}
	fields := strings.Fields(header)
	if len(fields) != 3 {
		return "", nil, false, fmt.Errorf("git cat-file: unexpected header %q", header)
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || size < 0 {
		return "", nil, false, fmt.Errorf("git cat-file: bad size in %q", header)
	}
	if size > MaxObjectBytes {
		// Skip the content and its newline, keeping the stream in step.
		if _, err := io.CopyN(io.Discard, c.out, size+1); err != nil {
			return "", nil, false, err
		}
		return "", nil, false, &fsroot.TooLargeError{Path: name, Size: size, Limit: MaxObjectBytes}
	}
	data := make([]byte, size+1) // the content and its trailing newline
	if _, err := io.ReadFull(c.out, data); err != nil {
		return "", nil, false, err
	}
	return fields[1], data[:size], true, nil
}

// kill stops the process at once (a reader's context ended mid-read).
func (c *catFile) kill() {
	if c.cmd.Process != nil {
		_ = c.cmd.Cancel()
	}
}

func (c *catFile) close() {
	c.once.Do(func() {
		c.in.Close()
		_ = c.cmd.Wait()
		ended()
	})
}
