package fsroot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxFileBytes is the most kontext reads of any one file unless a caller
// asks for less: a larger file is refused (*TooLargeError), never read
// into memory.
const MaxFileBytes int64 = 16 << 20

// NotRegularError refuses a file that is not a regular file: a FIFO, a
// socket or a device would block the reader or never end.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (%s); kontext reads only regular files", e.Path, describeMode(e.Mode))
}

// TooLargeError refuses a file over the read limit.
type TooLargeError struct {
	Path  string
	Size  int64 // the size fstat reported, or more than Limit when it grew
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %s, over the %s kontext reads of one file", e.Path, humanBytes(e.Size), humanBytes(e.Limit))
}

// OpenRegular opens a file for reading without ever blocking: the open
// itself does not wait (O_NONBLOCK, so a FIFO without a writer returns at
// once), and anything but a regular file is then refused (*NotRegularError)
// from the open descriptor's own fstat, so no file can be swapped in
// between the check and the read. With dir it opens name through the
// os.Root (no symlink leads out of it); without (nil), name is a path of
// the operating system.
func OpenRegular(dir *os.Root, name string) (*os.File, fs.FileInfo, error) {
	var f *os.File
	var err error
	if dir != nil {
		f, err = dir.OpenFile(name, openFlags, 0)
	} else {
		f, err = os.OpenFile(name, openFlags, 0)
	}
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: name, Mode: info.Mode()}
	}
	return f, info, nil
}

// Read returns the content of a regular file (see OpenRegular for dir and
// name), at most limit bytes of it (MaxFileBytes when limit <= 0): a larger
// file is refused with *TooLargeError, also when it grows past the limit
// while being read. Every file kontext reads goes through here.
func Read(dir *os.Root, name string, limit int64) ([]byte, error) {
	return AppendRead(dir, name, limit, nil)
}

// AppendRead is Read appending to buf, for readers of many files that
// reuse one buffer.
func AppendRead(dir *os.Root, name string, limit int64, buf []byte) ([]byte, error) {
	if limit <= 0 {
		limit = MaxFileBytes
	}
	f, info, err := OpenRegular(dir, name)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	if info.Size() > limit {
		return buf, &TooLargeError{Path: name, Size: info.Size(), Limit: limit}
	}
	start := len(buf)
	if want := start + int(info.Size()) + 1; cap(buf) < want {
		grown := make([]byte, start, want)
		copy(grown, buf)
		buf = grown
	}
	// One byte past the limit tells a file that grew from one that fits;
	// procfs files report size 0 and are read the same way.
	r := io.LimitReader(f, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)-start) > limit {
			return buf[:start], &TooLargeError{Path: name, Size: int64(len(buf) - start), Limit: limit}
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf[:start], err
		}
	}
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return m.Type().String()
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
