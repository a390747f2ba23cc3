//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kontext-dev/kontext/bench/internal/measure"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// childEnv carries a child's instructions (a JSON childSpec).
const childEnv = "KONTEXT_REPOBENCH_CHILD"

type childSpec struct {
	Mode     string // cold, warm, filter, edit, save, restart
	Root     string
	N        int
	CacheDir string
}

// childStats is what a child measured.
type childStats struct {
	Files       int           `json:"files"`
	Took        time.Duration `json:"took_ns"`
	P50         time.Duration `json:"p50_ns,omitempty"`
	P99         time.Duration `json:"p99_ns,omitempty"`
	Max         time.Duration `json:"max_ns,omitempty"`
	PeakRSSKiB  int64         `json:"peak_rss_kib"`
	FilesParsed int64         `json:"files_parsed"`
	FullScans   int64         `json:"full_scans"`
	Mode        string        `json:"detection"`
	Filter      *filterStats  `json:"filter,omitempty"`
}

// child runs one measurement in a new process and returns its figures.
func child(spec childSpec) (childStats, error) {
	raw, _ := json.Marshal(spec)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+string(raw))
	// The child dies with the benchmark.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = "…" + msg[len(msg)-500:]
		}
		return childStats{}, fmt.Errorf("%s of %s: %v: %s", spec.Mode, spec.Root, err, msg)
	}
	var s childStats
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		return childStats{}, fmt.Errorf("%s of %s: %v", spec.Mode, spec.Root, err)
	}
	return s, nil
}

// runChild is the child side: one measurement, its figures as JSON.
func runChild(raw string) {
	var spec childSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fatalf("child: %v", err)
	}
	opts := repo.Options{
		NoCache:    spec.CacheDir == "",
		CacheDir:   spec.CacheDir,
		NoTerminal: true,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	e := repo.NewEngine(opts)
	ctx := context.Background()
	var s childStats
	began := time.Now()
	snap, err := e.Snapshot(ctx, spec.Root)
	if err != nil {
		fatalf("child: %v", err)
	}
	s.Took = time.Since(began)
	s.Files = len(snap.Graph.Files)
	s.Mode = e.Detection(spec.Root)

	switch spec.Mode {
	case "warm":
		ds := make([]time.Duration, 0, spec.N)
		for i := 0; i < spec.N; i++ {
			t0 := time.Now()
			again, err := e.Snapshot(ctx, spec.Root)
			ds = append(ds, time.Since(t0))
			if err != nil || again != snap {
				fatalf("child: a warm call re-analysed (err %v)", err)
			}
		}
		s.P50, s.P99, s.Max = measure.Pct(ds, 50), measure.Pct(ds, 99), measure.Pct(ds, 100)
	case "filter":
		st, err := measureFilter(e, spec.Root, snap.Graph, spec.N)
		if err != nil {
			fatalf("child: %v", err)
		}
		s.Filter = &st
	case "edit":
		targets := editTargets(snap.Graph, spec.N)
		if len(targets) < spec.N {
			fatalf("child: only %d files to edit", len(targets))
		}
		ds := make([]time.Duration, 0, spec.N)
		for i, p := range targets {
			name, line := editLine(p, i)
			f, err := os.OpenFile(filepath.Join(spec.Root, filepath.FromSlash(p)), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				fatalf("child: %v", err)
			}
			_, err = f.WriteString(line)
			f.Close()
			if err != nil {
				fatalf("child: %v", err)
			}
			t0 := time.Now()
			next, err := e.Snapshot(ctx, spec.Root)
			ds = append(ds, time.Since(t0))
			if err != nil {
				fatalf("child: %v", err)
			}
			if !hasSymbol(next.Graph, p, name) {
				fatalf("child: the edit of %s is not in the next snapshot", p)
			}
		}
		s.P50, s.P99, s.Max = measure.Pct(ds, 50), measure.Pct(ds, 99), measure.Pct(ds, 100)
	}
	e.Close() // writes the persistent cache in "save" mode
	st := e.Stats()
	s.FilesParsed, s.FullScans = st.FilesParsed, st.FullScans
	s.PeakRSSKiB = measure.PeakRSSKiB(0)
	out, _ := json.Marshal(s)
	os.Stdout.Write(out)
}

// editTargets picks n source files spread over the tree (every k-th of the
// code files the heuristics read), so the edits touch many modules.
func editTargets(g *model.Graph, n int) []string {
	var code []string
	for _, f := range g.Files {
		if f.Kind != model.FileSource || f.Vendored || f.Generated || f.Size > 256<<10 || strings.HasSuffix(f.Path, ".d.ts") {
			continue
		}
		switch filepath.Ext(f.Path) {
		case ".go", ".ts", ".tsx", ".js", ".mjs":
			code = append(code, f.Path)
		}
	}
	if len(code) == 0 {
		return nil
	}
	step := max(1, len(code)/n)
	var out []string
	for i := step / 2; i < len(code) && len(out) < n; i += step {
		out = append(out, code[i])
	}
	return out
}

// editLine is what an edit appends: a new exported function, so the facts
// change (a symbol) and the whole update runs, not only the check.
func editLine(p string, i int) (name, line string) {
	if filepath.Ext(p) == ".go" {
		name = "RepobenchEdit" + strconv.Itoa(i)
		return name, "\nfunc " + name + "() {}\n"
	}
	name = "repobenchEdit" + strconv.Itoa(i)
	return name, "\nexport function " + name + "() {}\n"
}

func hasSymbol(g *model.Graph, p, name string) bool {
	for _, f := range g.Files {
		if f.Path == p {
			for _, s := range f.Symbols {
				if s.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// copyTree copies regular files and directories (symlinks are recreated,
// never followed).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, 0o644)
		}
		return nil
	})
}

func seconds(d time.Duration) float64 { return d.Seconds() }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", ms(d))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func formatBytes(n int) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.0f KiB", float64(n)/1024)
}

func formatKiB(kib int64) string {
	if kib <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB", float64(kib)/1024)
}

func count(n int) string {
	if n <= 0 {
		return "-"
	}
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
