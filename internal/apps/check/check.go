package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/apps/manifest"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Options configure a check.
type Options struct {
	// RuntimeDir is where the manifest must be (appcontext.RuntimeDir()
	// when empty).
	RuntimeDir string
	// Timeout bounds each request to the application (5 s when 0).
	Timeout time.Duration
	// Era is how the MCP client negotiates (mcp.EraAuto, as the broker,
	// when empty).
	Era mcp.Era
	// Version is the checker's version, told to the application.
	Version string
	Logger  *slog.Logger
}

// Result is one rule's outcome.
type Result struct {
	Rule string
	Pass bool
	// Skipped says the rule did not run because a rule it needs failed;
	// it counts as a failure, and Reason names that rule.
	Skipped bool
	Reason  string
}

// Report is the check of one manifest.
type Report struct {
	Path string
	// Manifest is the manifest as far as it was read (nil when it was not).
	Manifest *appcontext.Manifest
	Results  []Result
}

// Failed reports whether any rule failed or was skipped.
func (r *Report) Failed() bool {
	return slices.ContainsFunc(r.Results, func(res Result) bool { return !res.Pass })
}

// Result returns the outcome of one rule.
func (r *Report) Result(id string) (Result, bool) {
	i := slices.IndexFunc(r.Results, func(res Result) bool { return res.Rule == id })
	if i < 0 {
		return Result{}, false
	}
	return r.Results[i], true
}

// run is the state one check carries from rule to rule.
type run struct {
	ctx     context.Context
	opts    Options
	path    string
	raw     []byte
	m       *appcontext.Manifest
	control *probeOutcome

	client *mcp.Client
	acksMu sync.Mutex
	acks   chan protocol.SubscriptionFilter

	tools     []protocol.Tool
	resources []protocol.Resource
}

// Check holds the application whose manifest is at path to every rule,
// in order; a rule whose prerequisite failed is skipped and failed.
func Check(ctx context.Context, path string, opts Options) *Report {
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.Era == "" {
		opts.Era = mcp.EraAuto
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r := &run{ctx: ctx, opts: opts, path: path}
	defer r.close()
	rep := &Report{Path: path}
	outcome := map[string]Result{}
	for _, rule := range Rules() {
		res := Result{Rule: rule.ID}
		if blocker := firstFailed(rule, outcome); blocker != "" {
			res.Skipped, res.Reason = true, "skipped: "+blocker+" failed"
		} else if err := rule.run(r); err != nil {
			res.Reason = manifest.Redact(err.Error(), r.m)
		} else {
			res.Pass = true
		}
		outcome[rule.ID] = res
		rep.Results = append(rep.Results, res)
	}
	rep.Manifest = r.m
	return rep
}

// firstFailed names the rule that keeps rule from running: the first of
// its prerequisites that failed, or the one that made a skipped
// prerequisite skip (the cause, not the chain).
func firstFailed(rule Rule, outcome map[string]Result) string {
	for _, need := range rule.Needs {
		res, ok := outcome[need]
		switch {
		case !ok:
			return need // a prerequisite listed after the rule: never run
		case res.Skipped:
			return strings.TrimSuffix(strings.TrimPrefix(res.Reason, "skipped: "), " failed")
		case !res.Pass:
			return need
		}
	}
	return ""
}

func (r *run) close() {
	if r.client != nil {
		_ = r.client.Close()
	}
}

// request is a context bounded by the per-request timeout.
func (r *run) request() (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.ctx, r.opts.Timeout)
}

// reason turns a manifest check's failure into a reason without its stage.
func reason(err error) error {
	var f *manifest.Failure
	if errors.As(err, &f) {
		return errors.New(f.Reason)
	}
	return err
}

func (r *run) manifestModes() error {
	raw, err := manifest.ReadPrivate(r.path)
	if err != nil {
		return reason(err)
	}
	r.raw = raw
	return nil
}

func (r *run) manifestSchema() error {
	if err := manifest.CheckSchema(r.raw); err != nil {
		return reason(err)
	}
	var m appcontext.Manifest
	if err := json.Unmarshal(r.raw, &m); err != nil {
		return fmt.Errorf("the manifest does not decode: %v", err)
	}
	r.m = &m
	return nil
}

func (r *run) manifestLocation() error {
	rt := r.opts.RuntimeDir
	if rt == "" {
		var err error
		if rt, err = appcontext.RuntimeDir(); err != nil {
			return fmt.Errorf("the runtime directory: %v", err)
		}
	}
	want := appcontext.InstancesDirIn(rt)
	got := filepath.Dir(r.path)
	if !sameDir(got, want) {
		return fmt.Errorf("the manifest is in %s, not in the instances folder %s where brokers look", got, want)
	}
	return reason(manifest.CheckName(r.path, r.m))
}

// sameDir compares two folders as the file system resolves them (a
// runtime directory reached through a symbolic link is the same one).
func sameDir(a, b string) bool {
	resolve := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		return filepath.Clean(p)
	}
	return resolve(a) == resolve(b)
}

func (r *run) manifestLive() error {
	if ok, why := manifest.Live(r.m); !ok {
		return errors.New(why)
	}
	return nil
}

func (r *run) endpointLoopback() error {
	if r.m.Mcp == nil {
		return errors.New("the manifest names only the legacy WebSocket channel; a profile 0.1 application advertises an mcp endpoint")
	}
	return reason(manifest.CheckEndpoint(r.m))
}

// Instances lists the manifests in a runtime directory's instances
// folder, sorted: what kontext apps check checks when given no instance.
func Instances(runtimeDir string) ([]string, error) {
	dir := appcontext.InstancesDirIn(runtimeDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		// Atomic writes leave temporary files beside the manifests for a
		// moment; only names ending in .json are manifests.
		if name := e.Name(); strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".") && !e.IsDir() {
			out = append(out, filepath.Join(dir, name))
		}
	}
	slices.Sort(out)
	return out, nil
}
