package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
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

const (
	recordSep = "\x1e"
	fieldSep  = "\x1f"
)

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

// EachCommit calls f for each commit Log would return.
func (r *Repo) EachCommit(ctx context.Context, opts LogOptions, f func(Commit) error) error {
	head, err := r.Head(ctx)
	if err != nil {
		return err
	}
	if head == "" && len(opts.Revs) == 0 && (opts.Rev == "" || opts.Rev == "HEAD") {
		return nil // no commits yet
	}
	args := opts.limitArgs([]string{"log", "-z", "--format=" + recordSep + "%H" + fieldSep + "%P" + fieldSep + "%an" + fieldSep + "%ae" + fieldSep + "%at" + fieldSep + "%s" + fieldSep + "%b" + fieldSep})
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

	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.Dir
	cmd.Env = environment(nil)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	rd := bufio.NewReaderSize(stdout, 256<<10)
	var parseErr error
	stopped := false
	for {
		rec, err := readRecord(rd)
		if len(rec) > 0 {
			c, perr := parseCommit(rec)
			if perr != nil {
				parseErr = perr
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
		if err != nil {
			break
		}
	}
	if stopped || parseErr != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return parseErr
	}
	if err := cmd.Wait(); err != nil {
		return &Error{Args: args, Stderr: stderr.String(), Err: err}
	}
	return nil
}

// readRecord returns the bytes up to the next record separator.
func readRecord(rd *bufio.Reader) ([]byte, error) {
	var rec []byte
	for {
		chunk, err := rd.ReadSlice(recordSep[0])
		if err == bufio.ErrBufferFull {
			rec = append(rec, chunk...)
			continue
		}
		if err != nil {
			return append(rec, chunk...), err
		}
		rec = append(rec, chunk[:len(chunk)-1]...)
		if len(rec) > 0 {
			return rec, nil
		}
	}
}

func parseCommit(rec []byte) (Commit, error) {
	fields := strings.SplitN(string(rec), fieldSep, 8)
	if len(fields) < 8 {
		return Commit{}, fmt.Errorf("git log: malformed record %q", textclip.Ellipsis(string(rec), 200))
	}
	secs, _ := strconv.ParseInt(fields[4], 10, 64)
	c := Commit{
		SHA:         fields[0],
		Parents:     strings.Fields(fields[1]),
		AuthorName:  fields[2],
		AuthorEmail: fields[3],
		AuthorTime:  time.Unix(secs, 0).UTC(),
		Subject:     fields[5],
		Body:        strings.TrimSpace(fields[6]),
	}
	c.Files = parseFileList(fields[7])
	return c, nil
}

// parseFileList reads what `log -z` prints after a commit's format: its
// files as `--name-status` (a status, then one path, or two for a rename
// or copy) or `--raw` (":<modes> <old> <new> <status>", then the paths).
func parseFileList(s string) []FileChange {
	var files []FileChange
	parts := strings.Split(strings.TrimLeft(s, "\x00\n"), "\x00")
	for i := 0; i < len(parts); {
		head := strings.TrimSpace(parts[i])
		i++
		if head == "" {
			continue
		}
		var f FileChange
		status := head
		if head[0] == ':' {
			fs := strings.Fields(head[1:])
			if len(fs) != 5 {
				continue
			}
			f.OldBlob, f.NewBlob, status = fs[2], fs[3], fs[4]
		}
		f.Status = status[0]
		if f.Status == 'R' || f.Status == 'C' {
			if i+1 >= len(parts) {
				break
			}
			f.From, f.Path = parts[i], parts[i+1]
			i += 2
		} else {
			if i >= len(parts) {
				break
			}
			f.Path = parts[i]
			i++
		}
		files = append(files, f)
	}
	return files
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
