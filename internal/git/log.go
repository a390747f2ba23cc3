package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/textclip"
)

// Commit is one commit as `git log` reports it.
type Commit struct {
	SHA         string
	Parents     []string
	AuthorName  string
	AuthorEmail string
	AuthorTime  time.Time
	Subject     string
	Body        string // the message after the subject line, trailers included
	Files       []FileChange
}

// Message is the whole commit message.
func (c *Commit) Message() string {
	if c.Body == "" {
		return c.Subject
	}
	return c.Subject + "\n\n" + c.Body
}

// IsMerge reports whether the commit has more than one parent.
func (c *Commit) IsMerge() bool { return len(c.Parents) > 1 }

// FileChange is one file a commit touched.
type FileChange struct {
	Status byte   // A, M, D, R, C, T
	Path   string // the path after the commit
	From   string // the path before a rename or copy
	// OldBlob and NewBlob are the file's blob ids before and after the
	// commit (LogOptions.Raw; all zeros for an absent side), so that
	// contents can be read by id without resolving a path in a tree.
	OldBlob, NewBlob string
}

// LogOptions select commits.
type LogOptions struct {
	Rev      string // where to start (HEAD when empty); "A..B" ranges work
	MaxCount int
	NoMerges bool
	Files    bool // list the files each commit touched
	// Raw lists the files with their blob ids (FileChange.OldBlob and
	// NewBlob); it implies Files.
	Raw bool
	// Renames detects renames (status R, with From), which Files alone
	// reports as a deletion and an addition.
	Renames bool
	Paths   []string
	Since   time.Time
	Reverse bool
	// FirstParent follows only the first parent of merges.
	FirstParent bool
	// Revs, when set, lists exactly these commits (in this order) instead
	// of walking history from Rev. They are fed on stdin, so thousands of
	// shas do not hit the argument-length limit.
	Revs []string
}

// limitArgs appends the options that choose which commits are walked,
// shared by log and rev-list so that Log and RevList select the same ones.
func (o LogOptions) limitArgs(args []string) []string {
	if o.MaxCount > 0 {
		args = append(args, "--max-count="+strconv.Itoa(o.MaxCount))
	}
	if o.NoMerges {
		args = append(args, "--no-merges")
	}
	if o.FirstParent {
		args = append(args, "--first-parent")
	}
	if !o.Since.IsZero() {
		args = append(args, "--since="+strconv.FormatInt(o.Since.Unix(), 10))
	}
	return args
}

// logFormat asks git log for a commit's fields, each ended by a NUL: the
// one byte git allows in no message, name or path (a record and a unit
// separator, as before, broke the whole history on a commit whose message
// held one). With -z, git ends the commit with one more NUL and follows
// it with the --name-status pairs, also NUL-ended, the first after a
// newline.
const logFormat = "%H%x00%P%x00%an%x00%ae%x00%at%x00%s%x00%b%x00"

// Log lists commits, newest first (or oldest first with Reverse). It streams
// git's output, so a long history is parsed without being held twice.
func (r *Repo) Log(ctx context.Context, opts LogOptions) ([]Commit, error) {
	var out []Commit
	err := r.EachCommit(ctx, opts, func(c Commit) error {
		out = append(out, c)
		return nil
	})
	return out, err
}

// errStop ends EachCommit early without an error.
var errStop = fmt.Errorf("stop")

// Stop, returned by an EachCommit callback, ends the walk without an error.
var Stop = errStop

// EachCommit calls f for each commit Log would return. The walk holds one
// of the MaxProcesses slots while f runs, so f must not run git commands
// itself (reading objects with Object is fine: batch readers are bounded
// apart); a cancelled ctx stops the walk and kills git.
func (r *Repo) EachCommit(ctx context.Context, opts LogOptions, f func(Commit) error) error {
	head, err := r.Head(ctx)
	if err != nil {
		return err
	}
	if head == "" && len(opts.Revs) == 0 && (opts.Rev == "" || opts.Rev == "HEAD") {
		return nil // no commits yet
	}
	args := opts.limitArgs([]string{"log", "-z", "--format=" + logFormat})
	if opts.Files || opts.Raw {
		if opts.Raw {
			args = append(args, "--raw", "--no-abbrev")
		} else {
			args = append(args, "--name-status")
		}
		if opts.Renames {
			args = append(args, "-M")
		} else {
			args = append(args, "--no-renames")
		}
	}
	if opts.Reverse {
		args = append(args, "--reverse")
	}
	var stdin io.Reader
	if len(opts.Revs) > 0 {
		var b strings.Builder
		for _, rev := range opts.Revs {
			if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\n\x00") {
				return fmt.Errorf("not a revision: %q", rev)
			}
			b.WriteString(rev)
			b.WriteByte('\n')
		}
		stdin = strings.NewReader(b.String())
		args = append(args, "--no-walk=unsorted", "--stdin", "--")
	} else {
		rev := opts.Rev
		if rev == "" {
			rev = "HEAD"
		}
		if strings.HasPrefix(rev, "-") {
			return fmt.Errorf("not a revision: %q", rev)
		}
		args = append(args, "--end-of-options", rev, "--")
	}
	args = append(args, opts.Paths...)

	cmd := command(ctx, r.Dir, nil, args...)
	cmd.Stdin = stdin
	stderr := &stderrBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	finish, err := start(ctx, cmd)
	if err != nil {
		return err
	}
	defer finish()
	lp := newLogParser(stdout)
	var parseErr error
	stopped := false
	for {
		if ctx.Err() != nil {
			stopped = true
			break
		}
		c, ok, err := lp.next()
		if err != nil {
			parseErr = err
			break
		}
		if !ok {
			break
		}
		if ferr := f(c); ferr != nil {
			if ferr != errStop {
				parseErr = ferr
			}
			stopped = true
			break
		}
	}
	if stopped || parseErr != nil {
		_ = cmd.Cancel()
		_ = cmd.Wait()
		if parseErr == nil {
			parseErr = ctx.Err()
		}
		return parseErr
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{Args: args, Stderr: stderr.String(), Err: err}
	}
	return nil
}

// logParser reads the commits of `git log -z --format=<logFormat>`
// [--name-status | --raw] as they stream in.
type logParser struct {
	rd *bufio.Reader
	// peek is a token read ahead: the sha that ended the previous
	// commit's file list.
	peek    string
	peeked  bool
	atEOF   bool
	scratch []byte
}

func newLogParser(r io.Reader) *logParser {
	return &logParser{rd: bufio.NewReaderSize(r, 256<<10)}
}

// token returns the bytes up to the next NUL; ok is false at the end of
// the stream (a last token without its NUL is still returned).
func (p *logParser) token() (string, bool, error) {
	if p.peeked {
		p.peeked = false
		return p.peek, true, nil
	}
	if p.atEOF {
		return "", false, nil
	}
	p.scratch = p.scratch[:0]
	for {
		chunk, err := p.rd.ReadSlice(0)
		if err == bufio.ErrBufferFull {
			if p.scratch = append(p.scratch, chunk...); len(p.scratch) > MaxOutputBytes {
				return "", false, fmt.Errorf("git log: a field over %d MiB", MaxOutputBytes>>20)
			}
			continue
		}
		if err == io.EOF {
			p.atEOF = true
			p.scratch = append(p.scratch, chunk...)
			if len(p.scratch) == 0 {
				return "", false, nil
			}
			return string(p.scratch), true, nil
		}
		if err != nil {
			return "", false, err
		}
		p.scratch = append(p.scratch, chunk[:len(chunk)-1]...)
		return string(p.scratch), true, nil
	}
}

// next returns the next commit; ok is false at the end of the stream.
func (p *logParser) next() (Commit, bool, error) {
	sha, ok, err := p.token()
	if err != nil || !ok {
		return Commit{}, false, err
	}
	if !isSHA(sha) {
		return Commit{}, false, fmt.Errorf("git log: expected a commit, read %q", textclip.Ellipsis(sha, 200))
	}
	var f [6]string // parents, author name, email, time, subject, body
	for i := range f {
		if f[i], ok, err = p.token(); err != nil || !ok {
			return Commit{}, false, truncated(sha, err)
		}
	}
	// The NUL that ends the commit's format.
	if end, ok, err := p.token(); err != nil || !ok || end != "" {
		if err == nil && ok {
			err = fmt.Errorf("git log: commit %s: unexpected %q after its message", sha, textclip.Ellipsis(end, 200))
		}
		return Commit{}, false, truncated(sha, err)
	}
	secs, _ := strconv.ParseInt(f[3], 10, 64)
	c := Commit{
		SHA:         sha,
		Parents:     strings.Fields(f[0]),
		AuthorName:  f[1],
		AuthorEmail: f[2],
		AuthorTime:  time.Unix(secs, 0).UTC(),
		Subject:     f[4],
		Body:        strings.TrimSpace(f[5]),
	}
	// Then the files until the next commit's sha: "<status> NUL <path>
	// NUL" (--name-status) or ":<modes> <old> <new> <status> NUL <path>
	// NUL" (--raw), with a second path after a rename's or copy's.
	for {
		tok, ok, err := p.token()
		if err != nil {
			return Commit{}, false, err
		}
		if !ok {
			return c, true, nil
		}
		head := strings.TrimPrefix(tok, "\n")
		var fc FileChange
		status := head
		if strings.HasPrefix(head, ":") {
			fs := strings.Fields(head[1:])
			if len(fs) != 5 || !isStatus(fs[4]) {
				return Commit{}, false, fmt.Errorf("git log: commit %s: unexpected raw line %q", sha, textclip.Ellipsis(head, 200))
			}
			fc.OldBlob, fc.NewBlob, status = fs[2], fs[3], fs[4]
		} else if !isStatus(status) {
			p.peek, p.peeked = tok, true
			return c, true, nil
		}
		fc.Status = status[0]
		path, ok, err := p.token()
		if err != nil || !ok {
			return Commit{}, false, truncated(sha, err)
		}
		fc.Path = path
		if fc.Status == 'R' || fc.Status == 'C' {
			to, ok, err := p.token()
			if err != nil || !ok {
				return Commit{}, false, truncated(sha, err)
			}
			fc.From, fc.Path = path, to
		}
		c.Files = append(c.Files, fc)
	}
}

func truncated(sha string, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("git log: commit %s is cut short", sha)
}

// isStatus reports whether a token is a --name-status letter (with the
// similarity score of a copy or rename): never a 40- or 64-digit sha.
func isStatus(s string) bool {
	if s == "" || len(s) > 4 || !strings.ContainsRune("ACDMRTUXB", rune(s[0])) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// BlameLine is one line of `git blame`.
type BlameLine struct {
	Line       int
	SHA        string
	Author     string
	AuthorTime time.Time
	Summary    string
	Text       string
}

// Blame attributes lines start..end (1-based, inclusive) of path at HEAD
// (the working tree's version when rev is "").
func (r *Repo) Blame(ctx context.Context, rev, path string, start, end int) ([]BlameLine, error) {
	args := []string{"blame", "--porcelain", "-L", fmt.Sprintf("%d,%d", start, end)}
	if rev != "" {
		args = append(args, rev)
	}
	args = append(args, "--", path)
	out, err := r.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	type info struct {
		author  string
		time    time.Time
		summary string
	}
	known := map[string]*info{}
	var lines []BlameLine
	var cur *BlameLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\t"):
			if cur != nil {
				cur.Text = line[1:]
				if in := known[cur.SHA]; in != nil {
					cur.Author, cur.AuthorTime, cur.Summary = in.author, in.time, in.summary
				}
				lines = append(lines, *cur)
				cur = nil
			}
		case cur == nil:
			f := strings.Fields(line)
			if len(f) >= 3 && len(f[0]) >= 40 {
				n, _ := strconv.Atoi(f[2])
				cur = &BlameLine{SHA: f[0], Line: n}
				if known[f[0]] == nil {
					known[f[0]] = &info{}
				}
			}
		default:
			in := known[cur.SHA]
			key, value, _ := strings.Cut(line, " ")
			switch key {
			case "author":
				in.author = value
			case "author-time":
				secs, _ := strconv.ParseInt(value, 10, 64)
				in.time = time.Unix(secs, 0).UTC()
			case "summary":
				in.summary = value
			}
		}
	}
	return lines, nil
}
