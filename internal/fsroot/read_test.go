package fsroot

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// A FIFO named README.md hung every reader that opened it: the open waits
// for a writer that never comes. It is now refused at once.
func TestReadRefusesAFIFOWithoutBlocking(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "README.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.ReadFile("README.md")
	var nr *NotRegularError
	if !errors.As(err, &nr) {
		t.Fatalf("ReadFile(FIFO) = %v, want a NotRegularError", err)
	}
	if nr.Mode&os.ModeNamedPipe == 0 {
		t.Errorf("mode %v, want a named pipe", nr.Mode)
	}
	if _, err := Read(nil, filepath.Join(dir, "README.md"), 0); !errors.As(err, &nr) {
		t.Errorf("Read(nil, FIFO) = %v, want a NotRegularError", err)
	}
}

// A 3 GB sparse file drove the process to 6.1 GB: it was read whole. It is
// now refused from its size, before a byte of it is read.
func TestReadRefusesALargeFileWithoutReadingIt(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = r.ReadFile("big.md")
	runtime.ReadMemStats(&after)
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("ReadFile(3 GB) = %v, want a TooLargeError", err)
	}
	if tl.Size != 3<<30 || tl.Limit != MaxFileBytes {
		t.Errorf("TooLargeError %+v", tl)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing a 3 GB file allocated %d bytes", grew)
	}
}

func TestReadHonoursTheLimitExactly(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	osr, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer osr.Close()
	got, err := Read(osr, "f", 1000)
	if err != nil || string(got) != string(data) {
		t.Fatalf("Read at the limit: %d bytes, %v", len(got), err)
	}
	var tl *TooLargeError
	if _, err := Read(osr, "f", 999); !errors.As(err, &tl) {
		t.Fatalf("Read one byte over the limit: %v", err)
	}
	buf := []byte("prefix:")
	got, err = AppendRead(osr, "f", 0, buf)
	if err != nil || string(got) != "prefix:"+string(data) {
		t.Fatalf("AppendRead: %q, %v", got[:10], err)
	}
	// Files whose size the kernel does not know (procfs) are read to the end.
	if runtime.GOOS == "linux" {
		status, err := Read(nil, "/proc/self/status", 1<<20)
		if err != nil || len(status) == 0 {
			t.Errorf("Read(/proc/self/status): %d bytes, %v", len(status), err)
		}
		if _, err := Read(nil, "/proc/self/status", 10); !errors.As(err, &tl) {
			t.Errorf("Read(/proc/self/status, 10) = %v, want a TooLargeError", err)
		}
	}
}

func TestReadRefusesDirectoriesAndDevices(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	var nr *NotRegularError
	if _, err := Read(nil, filepath.Join(dir, "sub"), 0); !errors.As(err, &nr) {
		t.Errorf("Read(directory) = %v, want a NotRegularError", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := Read(nil, "/dev/zero", 0); !errors.As(err, &nr) {
			t.Errorf("Read(/dev/zero) = %v, want a NotRegularError", err)
		}
	}
}
