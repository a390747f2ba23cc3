//go:build linux

// Command mcpbench measures kontext's MCP server over stdio, side by side
// with the TypeScript SDK's reference server (@modelcontextprotocol/
// server-everything), a server built with the official Go SDK that serves
// the same tools as kontext (bench/gosdkserver) and a line-echo process,
// the floor a pipe allows.
//
// It is run by `make bench` (go run ./bench/mcpbench), never by go test.
// Every server is a real child process spoken to over its stdin and stdout,
// exactly as an MCP client would. For each it measures:
//
//   - throughput: N pipelined requests, at most -window unanswered;
//   - latency: requests sent one at a time (p50, p99);
//   - first answer: process start to the initialize response (median);
//   - peak RSS: VmHWM of the server process after the run.
//
// Only one server is ever busy at a time, so they never compete for the
// CPUs; each measurement is split into rounds that visit the servers in
// turn, so that load from elsewhere on the machine is shared fairly (see
// measureAll). The package is Linux-only: it reads /proc and asks the
// kernel to kill the children if the benchmark dies.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/kontext-dev/kontext/bench/internal/measure"
)

// protocolVersion is the legacy (initialize-based) revision the benchmark
// asks every server for.
const protocolVersion = "2025-11-25"

// The goals the report checks kontext against.
const (
	goalThroughputVsReference = 3.0                   // kontext ping req/s ≥ 3 × reference
	goalLatencyVsEcho         = 2.0                   // kontext ping p50 ≤ 2 × echo p50
	goalFirstAnswer           = 10 * time.Millisecond // kontext start → initialize answer (idle machine)
	goalToolsListVsReference  = 5.0                   // kontext tools/list req/s ≥ 5 × reference
	goalToolsListBytesVsGoSDK = 0.5                   // kontext tools/list bytes/s ≥ ½ × Go SDK's
	goalFirstAnswerVsGoSDK    = 1.5                   // kontext first answer ≤ 1.5 × Go SDK's
)

// config is what the flags set.
type config struct {
	pings        int // pipelined pings; pipelined tools/list is 2/5 of it
	window       int
	sequential   int // one-at-a-time pings; one-at-a-time tools/list is 2/5 of it
	rounds       int
	warmup       int
	starts       int
	phaseTimeout time.Duration
	only         map[string]bool
	jsonOutput   bool
	repo         string
	nodeModules  string
	baseline     string
}

func main() {
	var cfg config
	var only string
	flag.IntVar(&cfg.pings, "n", 50000, "pipelined pings per server (pipelined tools/list: 2/5 of it)")
	flag.IntVar(&cfg.window, "window", 256, "most requests in flight while pipelining")
	flag.IntVar(&cfg.sequential, "seq", 5000, "one-at-a-time pings per server (tools/list: 2/5 of it)")
	flag.IntVar(&cfg.rounds, "rounds", 5, "rounds each measurement is split into, visiting the servers in turn")
	flag.IntVar(&cfg.warmup, "warmup", 2000, "validated requests before measuring")
	flag.IntVar(&cfg.starts, "starts", 10, "process starts timed for the first answer")
	flag.DurationVar(&cfg.phaseTimeout, "timeout", 2*time.Minute, "longest any one measurement may take before the server is given up")
	flag.StringVar(&only, "only", "", "comma list of servers to run: "+strings.Join(serverNames, ","))
	flag.BoolVar(&cfg.jsonOutput, "json", false, "print the results as JSON on stdout (progress stays on stderr)")
	flag.StringVar(&cfg.repo, "repo", "", "the kontext repository (default: the go.mod above the working directory)")
	flag.StringVar(&cfg.baseline, "baseline", "", "another kontext binary (e.g. a build of main) measured beside this checkout's, as kontext-baseline, for before/after figures from one run")
	flag.StringVar(&cfg.nodeModules, "node-modules", "", "where @modelcontextprotocol/server-everything is installed (default <repo>/internal/interop/testdata/node/node_modules)")
	flag.Parse()
	if cfg.pings < 1 || cfg.window < 1 || cfg.sequential < 1 || cfg.starts < 1 || cfg.rounds < 1 || cfg.warmup < 0 {
		fatalf("-n, -window, -seq, -starts and -rounds must be at least 1, -warmup at least 0")
	}
	selected, err := measure.Only(only, serverNames)
	if err != nil {
		fatalf("%v", err)
	}
	cfg.only = selected
	if cfg.repo == "" {
		repo, err := measure.FindRepo()
		if err != nil {
			fatalf("%v", err)
		}
		cfg.repo = repo
	}
	if cfg.nodeModules == "" {
		cfg.nodeModules = filepath.Join(cfg.repo, "internal", "interop", "testdata", "node", "node_modules")
	}

	tmp, err := os.MkdirTemp("", "mcpbench-")
	if err != nil {
		fatalf("temp dir: %v", err)
	}
	cleanup := func() {
		killAllChildren()
		os.RemoveAll(tmp)
	}
	// An interrupted benchmark must not leave servers running.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-signals
		progressf("%v: stopping the servers", sig)
		// The measurements fail as their servers die; they are not news.
		interrupted.Store(true)
		cleanup()
		os.Exit(130)
	}()

	var servers []*server
	for _, s := range prepareServers(cfg, tmp) {
		if cfg.only == nil || cfg.only[s.name] {
			servers = append(servers, s)
		}
	}
	loadBefore := measure.Load1()
	results := measureAll(servers, cfg)
	load := [2]string{loadBefore, measure.Load1()}
	cleanup()

	goals := evaluateGoals(results)
	if cfg.jsonOutput {
		printJSON(cfg, load, results, goals)
	} else {
		printTable(cfg, load, results, goals)
	}
}

// ---------------------------------------------------------------------------
// The servers

// serverNames are the contenders, in report order; -only takes these.
var serverNames = []string{"kontext", "kontext-baseline", "kontext-testkit", "gosdk", "everything", "echo"}

// server is one contender: what to run, or why it cannot be.
type server struct {
	name  string
	about string
	argv  []string
	dir   string
	// echo marks the floor: it answers a line with the same line, so any
	// line back carrying the request's id is the answer.
	echo bool
	// unavailable, when set, says why the server is skipped.
	unavailable string
	// toolCall is the params of the tools/call the benchmark times: a
	// cheap tool with structured arguments, so that the figure is the
	// runtime's envelope, validation and result encoding. Empty: not timed.
	toolCall string
}

// prepareServers builds the Go binaries and finds the reference server. A
// server that cannot be prepared is returned with the reason, to be
// reported rather than to stop the run.
func prepareServers(cfg config, tmp string) []*server {
	wanted := func(name string) bool { return cfg.only == nil || cfg.only[name] }
	var servers []*server

	kontext := &server{name: "kontext", about: "kontext mcp (shipped toolsets)"}
	if wanted(kontext.name) {
		if bin, err := goBuild(cfg.repo, tmp, "./cmd/kontext", "kontext"); err != nil {
			kontext.unavailable = err.Error()
		} else {
			kontext.argv = []string{bin, "mcp", "--root", cfg.repo}
		}
	}
	servers = append(servers, kontext)

	if cfg.baseline != "" {
		baseline := &server{name: "kontext-baseline", about: "kontext mcp built from " + cfg.baseline}
		if wanted(baseline.name) {
			baseline.argv = []string{cfg.baseline, "mcp", "--root", cfg.repo}
		}
		servers = append(servers, baseline)
	}

	testkit := &server{name: "kontext-testkit", about: "kontext runtime + the testkit toolset",
		toolCall: `{"name":"add","arguments":{"a":1,"b":2}}`}
	if wanted(testkit.name) {
		root := filepath.Join(tmp, "testkit-root")
		if bin, err := goBuild(cfg.repo, tmp, "./internal/mcptest/cmd/kontext-testkit", "kontext-testkit"); err != nil {
			testkit.unavailable = err.Error()
		} else if err := os.MkdirAll(root, 0o755); err != nil {
			testkit.unavailable = err.Error()
		} else {
			testkit.argv = []string{bin, "mcp", "--root", root}
		}
	}
	servers = append(servers, testkit)

	gosdk := &server{name: "gosdk", about: "official Go SDK server, kontext's tools (bench/gosdkserver)",
		toolCall: `{"name":"add","arguments":{"a":1,"b":2}}`}
	if wanted(gosdk.name) {
		gosdk.argv, gosdk.unavailable = goSDKServer(cfg, tmp, kontext)
	}
	servers = append(servers, gosdk)

	everything := &server{name: "everything", about: "TS SDK reference server (node)",
		toolCall: `{"name":"get-sum","arguments":{"a":1,"b":2}}`}
	if wanted(everything.name) {
		if argv, err := referenceServer(cfg.nodeModules); err != nil {
			everything.unavailable = err.Error()
		} else {
			everything.argv, everything.dir = argv, tmp
		}
	}
	servers = append(servers, everything)

	echo := &server{name: "echo", about: "line echo (pipe floor)", echo: true}
	if wanted(echo.name) {
		if bin, err := goBuild(cfg.repo, tmp, "./bench/echo", "echo"); err != nil {
			echo.unavailable = err.Error()
		} else {
			echo.argv = []string{bin}
		}
	}
	servers = append(servers, echo)
	return servers
}

// goSDKServer builds bench/gosdkserver and gives it the tools kontext
// lists, so that the two serve the same schemas. It returns the command, or
// why there is none.
func goSDKServer(cfg config, tmp string, kontext *server) ([]string, string) {
	argv := kontext.argv
	if argv == nil && kontext.unavailable == "" {
		// kontext itself is not measured: build it for its tools only.
		bin, err := goBuild(cfg.repo, tmp, "./cmd/kontext", "kontext")
		if err != nil {
			return nil, err.Error()
		}
		argv = []string{bin, "mcp", "--root", cfg.repo}
	}
	if argv == nil {
		return nil, "kontext, whose tools it serves, is unavailable: " + kontext.unavailable
	}
	list, err := toolsListOf(&server{name: "kontext", argv: argv}, cfg.phaseTimeout)
	if err != nil {
		return nil, "listing kontext's tools: " + err.Error()
	}
	toolsFile := filepath.Join(tmp, "gosdk-tools.json")
	if err := os.WriteFile(toolsFile, list, 0o644); err != nil {
		return nil, err.Error()
	}
	bin, err := goBuild(cfg.repo, tmp, "./bench/gosdkserver", "gosdkserver")
	if err != nil {
		return nil, err.Error()
	}
	return []string{bin, "-tools", toolsFile}, ""
}

// toolsListOf starts a server and returns its first tools/list result.
func toolsListOf(s *server, timeout time.Duration) (json.RawMessage, error) {
	p, err := startProcess(s)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	var list json.RawMessage
	err = p.phase(timeout, func() error {
		if _, err := p.call("initialize", initializeParams); err != nil {
			return err
		}
		if err := p.notify("notifications/initialized"); err != nil {
			return err
		}
		list, err = p.call("tools/list", "")
		return err
	})
	return list, err
}

// goBuild builds a package of the repository into dir.
func goBuild(repo, dir, pkg, name string) (string, error) {
	out := filepath.Join(dir, name)
	progressf("building %s", pkg)
	return out, measure.GoBuild(repo, pkg, out)
}

// referenceServer returns the command that runs server-everything over
// stdio: node, the package's bin entry, and the "stdio" transport argument
// (its dist/index.js picks the transport from argv[2]).
func referenceServer(nodeModules string) ([]string, error) {
	pkgDir := filepath.Join(nodeModules, "@modelcontextprotocol", "server-everything")
	manifest, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return nil, fmt.Errorf("@modelcontextprotocol/server-everything is not installed in %s (run `make interop-deps`)", nodeModules)
	}
	var pkg struct {
		Bin json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(manifest, &pkg); err != nil {
		return nil, fmt.Errorf("server-everything package.json: %v", err)
	}
	// "bin" is either a path or a map from command name to path.
	var entry string
	if json.Unmarshal(pkg.Bin, &entry) != nil {
		var bins map[string]string
		if err := json.Unmarshal(pkg.Bin, &bins); err != nil || len(bins) == 0 {
			return nil, errors.New("server-everything package.json has no bin entry")
		}
		entry = bins["mcp-server-everything"]
		for _, path := range bins {
			if entry == "" {
				entry = path
			}
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, errors.New("node is not on PATH")
	}
	// node runs the entry directly (not through npx or a shell), so the
	// pid measured is the server's own.
	return []string{node, filepath.Join(pkgDir, entry), "stdio"}, nil
}

// ---------------------------------------------------------------------------
// Measuring

// result is everything measured about one server. Zero values are "not
// measured" (the report prints "-").
type result struct {
	Name    string `json:"name"`
	About   string `json:"about"`
	Skipped string `json:"skipped,omitempty"` // why nothing was measured
	Failed  string `json:"failed,omitempty"`  // what broke midway; earlier figures stand

	HasTools bool `json:"has_tools"`
	Tools    int  `json:"tools"` // on the first page of tools/list
	// ToolsListBytes is the size of that page's result: the throughputs of
	// servers with different tools compare per byte.
	ToolsListBytes int `json:"tools_list_bytes,omitempty"`

	PingPerSecond      float64         `json:"ping_req_per_s,omitempty"`
	ToolsListPerSecond float64         `json:"tools_list_req_per_s,omitempty"`
	PingLatency        *latencySummary `json:"ping_latency,omitempty"`
	ToolsListLatency   *latencySummary `json:"tools_list_latency,omitempty"`
	ToolsCallPerSecond float64         `json:"tools_call_req_per_s,omitempty"`
	ToolsCallLatency   *latencySummary `json:"tools_call_latency,omitempty"`
	FirstAnswerMs      float64         `json:"first_answer_median_ms,omitempty"`
	FirstAnswerAllMs   []float64       `json:"first_answer_ms,omitempty"`
	PeakRSSKiB         int64           `json:"peak_rss_kib,omitempty"`
	// ErrorResponses counts JSON-RPC errors among the measured answers: a
	// server that answers fast with errors is not fast.
	ErrorResponses int `json:"error_responses,omitempty"`
}

// contender is a server under measurement: its long-lived process and what
// has been measured so far.
type contender struct {
	server *server
	result *result
	proc   *process // nil once the server is skipped or has failed

	pingPipe, toolsPipe, callPipe pipelineStats   // summed over the rounds
	pingRTTs, toolsRTTs, callRTTs []time.Duration // pooled over the rounds
}

// fail records what broke and gives the server up; what it measured before
// stands.
func (c *contender) fail(what string, err error) {
	msg := what + ": " + err.Error()
	c.result.Failed = strings.TrimPrefix(c.result.Failed+"; "+msg, "; ")
	progressf("%s: %s", c.server.name, msg)
	if c.proc != nil {
		c.proc.kill()
		c.proc = nil
	}
}

// step is one measurement, run on every server in turn.
type step struct {
	name       string
	total      int  // requests per server, split over the rounds
	needsTools bool // only for servers that advertise tools
	needsCall  bool // only for servers with a tools/call to time
	run        func(c *contender, n int) error
}

// measureAll measures every server. The servers stay up side by side (an
// idle server blocked on its input costs nothing) and every measurement
// is split into rounds that visit the servers in rotating order, so a burst
// of load from elsewhere on the machine falls on all of them alike instead
// of on whichever happened to be measured at the time: the ratios the goals
// are about stay fair on a busy machine.
func measureAll(servers []*server, cfg config) []*result {
	var all []*contender
	for _, s := range servers {
		c := &contender{server: s, result: &result{Name: s.name, About: s.about}}
		all = append(all, c)
		if s.unavailable != "" {
			c.result.Skipped = s.unavailable
			progressf("%s: skipped: %s", s.name, s.unavailable)
			continue
		}
		progressf("%s: starting %s", s.name, strings.Join(s.argv, " "))
		c.open(cfg)
	}
	defer func() {
		for _, c := range all {
			if c.proc != nil {
				c.proc.stop()
			}
		}
	}()

	steps := []step{
		{name: "pipelined ping", total: cfg.pings, run: func(c *contender, n int) error {
			st, err := c.proc.pipeline("ping", "", n, cfg.window, false)
			if err == nil {
				c.pingPipe = c.pingPipe.add(st)
			}
			return err
		}},
		{name: "pipelined tools/list", total: max(cfg.pings*2/5, 1), needsTools: true, run: func(c *contender, n int) error {
			st, err := c.proc.pipeline("tools/list", "", n, cfg.window, false)
			if err == nil {
				c.toolsPipe = c.toolsPipe.add(st)
			}
			return err
		}},
		{name: "pipelined tools/call", total: max(cfg.pings*2/5, 1), needsCall: true, run: func(c *contender, n int) error {
			st, err := c.proc.pipeline("tools/call", c.server.toolCall, n, cfg.window, false)
			if err == nil {
				c.callPipe = c.callPipe.add(st)
			}
			return err
		}},
		{name: "sequential ping", total: cfg.sequential, run: func(c *contender, n int) error {
			rtts, errs, err := c.proc.sequential("ping", "", n)
			c.pingRTTs, c.result.ErrorResponses = append(c.pingRTTs, rtts...), c.result.ErrorResponses+errs
			return err
		}},
		{name: "sequential tools/list", total: max(cfg.sequential*2/5, 1), needsTools: true, run: func(c *contender, n int) error {
			rtts, errs, err := c.proc.sequential("tools/list", "", n)
			c.toolsRTTs, c.result.ErrorResponses = append(c.toolsRTTs, rtts...), c.result.ErrorResponses+errs
			return err
		}},
		{name: "sequential tools/call", total: max(cfg.sequential*2/5, 1), needsCall: true, run: func(c *contender, n int) error {
			rtts, errs, err := c.proc.sequential("tools/call", c.server.toolCall, n)
			c.callRTTs, c.result.ErrorResponses = append(c.callRTTs, rtts...), c.result.ErrorResponses+errs
			return err
		}},
	}
	for _, st := range steps {
		progressf("%s", st.name)
		for round := range cfg.rounds {
			// Share the total so that the rounds add up to it exactly.
			n := st.total*(round+1)/cfg.rounds - st.total*round/cfg.rounds
			if n == 0 {
				continue
			}
			for i := range all {
				c := all[(i+round)%len(all)]
				if c.proc == nil || st.needsTools && !c.result.HasTools || st.needsCall && !c.timesCall() {
					continue
				}
				if err := c.proc.phase(cfg.phaseTimeout, func() error { return st.run(c, n) }); err != nil {
					c.fail(st.name, err)
				}
			}
		}
	}

	for _, c := range all {
		r := c.result
		r.PingPerSecond = c.pingPipe.perSecond()
		r.ToolsListPerSecond = c.toolsPipe.perSecond()
		r.ToolsCallPerSecond = c.callPipe.perSecond()
		r.ErrorResponses += c.pingPipe.errors + c.toolsPipe.errors + c.callPipe.errors
		if len(c.pingRTTs) > 0 {
			s := summarize(c.pingRTTs)
			r.PingLatency = &s
		}
		if len(c.toolsRTTs) > 0 {
			s := summarize(c.toolsRTTs)
			r.ToolsListLatency = &s
		}
		if len(c.callRTTs) > 0 {
			s := summarize(c.callRTTs)
			r.ToolsCallLatency = &s
		}
		// VmHWM is the peak resident set over the process's whole life, so
		// it is read last, while the process still exists.
		if c.proc != nil {
			r.PeakRSSKiB = measure.PeakRSSKiB(c.proc.cmd.Process.Pid)
			c.proc.stop()
			c.proc = nil
		}
	}

	measureFirstAnswers(all, cfg)

	results := make([]*result, len(all))
	for i, c := range all {
		results[i] = c.result
	}
	return results
}

// timesCall reports whether the server has a tools/call to time.
func (c *contender) timesCall() bool { return c.result.HasTools && c.server.toolCall != "" }

// open starts the server's long-lived process, initializes the session and
// warms it up. A server that cannot start is marked skipped.
func (c *contender) open(cfg config) {
	p, err := startProcess(c.server)
	if err != nil {
		c.result.Skipped = err.Error()
		progressf("%s: skipped: %v", c.server.name, err)
		return
	}
	c.proc = p
	var initResult json.RawMessage
	if err := p.phase(cfg.phaseTimeout, func() (err error) {
		initResult, err = p.call("initialize", initializeParams)
		return err
	}); err != nil {
		c.result.Skipped = "does not start: " + err.Error()
		progressf("%s: skipped: %s", c.server.name, c.result.Skipped)
		p.kill()
		c.proc = nil
		return
	}
	if !c.server.echo {
		var init struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		if err := json.Unmarshal(initResult, &init); err != nil {
			c.fail("initialize", err)
			return
		}
		_, c.result.HasTools = init.Capabilities["tools"]
	}
	if err := p.notify("notifications/initialized"); err != nil {
		c.fail("notifications/initialized", errors.New(p.explain(err)))
		return
	}
	if c.result.HasTools {
		// How many tools a tools/list answer carries tells what its
		// throughput means (the first page is what the benchmark asks for).
		var list struct {
			Tools []json.RawMessage `json:"tools"`
		}
		var raw json.RawMessage
		err := p.phase(cfg.phaseTimeout, func() (err error) {
			raw, err = p.call("tools/list", "")
			if err == nil {
				err = json.Unmarshal(raw, &list)
			}
			return err
		})
		if err != nil {
			c.fail("tools/list", err)
			return
		}
		c.result.Tools = len(list.Tools)
		c.result.ToolsListBytes = len(raw)
	}
	// Warm-up lets the runtimes settle (JIT, heap growth, CPU frequency)
	// and checks every answer in full, which the timed steps do not.
	if cfg.warmup == 0 {
		return
	}
	if err := p.phase(cfg.phaseTimeout, func() error {
		if _, err := p.pipeline("ping", "", cfg.warmup, cfg.window, true); err != nil {
			return err
		}
		if _, _, err := p.sequential("ping", "", max(cfg.warmup/10, 1)); err != nil {
			return err
		}
		if c.result.HasTools {
			if _, err := p.pipeline("tools/list", "", max(cfg.warmup/10, 1), cfg.window, true); err != nil {
				return err
			}
		}
		if c.timesCall() {
			_, err := p.pipeline("tools/call", c.server.toolCall, max(cfg.warmup/10, 1), cfg.window, true)
			return err
		}
		return nil
	}); err != nil {
		c.fail("warm-up", err)
	}
}

// measureFirstAnswers starts every server cfg.starts times, in rotating
// order like the other steps, and times each start to the initialize
// answer; the median is reported.
func measureFirstAnswers(all []*contender, cfg config) {
	progressf("first answer")
	times := make([][]time.Duration, len(all))
	gaveUp := make([]bool, len(all))
	for round := range cfg.starts {
		for i := range all {
			k := (i + round) % len(all)
			c := all[k]
			if c.result.Skipped != "" || gaveUp[k] {
				continue
			}
			d, err := firstAnswer(c.server, cfg.phaseTimeout)
			if err != nil {
				c.fail("first answer", err)
				gaveUp[k] = true
				continue
			}
			times[k] = append(times[k], d)
			c.result.FirstAnswerAllMs = append(c.result.FirstAnswerAllMs, math.Round(millis(d)*100)/100)
		}
	}
	for k, c := range all {
		if !gaveUp[k] && len(times[k]) > 0 {
			c.result.FirstAnswerMs = millis(median(times[k]))
		}
	}
}

// firstAnswer times one start: from just before fork/exec to the initialize
// answer, the wait a client sees when it launches the server.
func firstAnswer(s *server, timeout time.Duration) (time.Duration, error) {
	began := time.Now()
	p, err := startProcess(s)
	if err != nil {
		return 0, err
	}
	defer p.kill()
	stop := p.watchdog(timeout)
	defer stop()
	if _, err := p.call("initialize", initializeParams); err != nil {
		return 0, errors.New(p.explain(err))
	}
	return time.Since(began), nil
}

var initializeParams = `{"protocolVersion":"` + protocolVersion + `","capabilities":{},"clientInfo":{"name":"mcpbench","version":"0.1.0"}}`

// ---------------------------------------------------------------------------
// A server process and the JSON-RPC exchanges with it

// process is a running server. Its stdin and stdout are plain OS pipes the
// benchmark owns, so reading the output never races with exec's Wait.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	in     *bufio.Writer
	out    *bufio.Reader
	stdout *os.File
	stderr *tailBuffer
	echo   bool
	exited chan struct{}

	nextID   int64
	long     []byte // a line longer than the read buffer, reassembled
	timedOut atomic.Bool
	killOnce sync.Once
}

// children are the running processes, killed when the benchmark stops.
var children = struct {
	sync.Mutex
	set map[*process]bool
}{set: map[*process]bool{}}

func startProcess(s *server) (*process, error) {
	if interrupted.Load() {
		return nil, errors.New("interrupted")
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{
		cmd:    exec.Command(s.argv[0], s.argv[1:]...),
		stdin:  inW,
		in:     bufio.NewWriterSize(inW, 64<<10),
		out:    bufio.NewReaderSize(outR, 1<<20),
		stdout: outR,
		stderr: &tailBuffer{limit: 4 << 10},
		echo:   s.echo,
		exited: make(chan struct{}),
		nextID: 1,
	}
	p.cmd.Dir = s.dir
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	// If the benchmark itself is killed, the kernel kills the server too.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p.cmd.WaitDelay = time.Second
	err = p.cmd.Start()
	// The child has its own copies of its ends of the pipes now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("cannot start %s: %v", s.argv[0], err)
	}
	children.Lock()
	children.set[p] = true
	children.Unlock()
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// kill ends the process at once and releases its pipes.
func (p *process) kill() {
	p.killOnce.Do(func() {
		p.cmd.Process.Kill()
		<-p.exited
		p.stdin.Close()
		p.stdout.Close()
		children.Lock()
		delete(children.set, p)
		children.Unlock()
	})
}

// stop ends the process the way a client does, by closing its input, and
// kills it if it has not exited a second later.
func (p *process) stop() {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(time.Second):
	}
	p.kill()
}

func killAllChildren() {
	children.Lock()
	all := make([]*process, 0, len(children.set))
	for p := range children.set {
		all = append(all, p)
	}
	children.Unlock()
	for _, p := range all {
		p.kill()
	}
}

// watchdog kills the process if the returned stop is not called within
// timeout: a blocked read then fails instead of hanging the benchmark.
func (p *process) watchdog(timeout time.Duration) (stop func()) {
	t := time.AfterFunc(timeout, func() {
		p.timedOut.Store(true)
		p.kill()
	})
	return func() { t.Stop() }
}

// phase runs one measurement under the watchdog and words its error.
func (p *process) phase(timeout time.Duration, run func() error) error {
	stop := p.watchdog(timeout)
	err := run()
	stop()
	if err != nil {
		return errors.New(p.explain(err))
	}
	return nil
}

// explain turns a failed exchange into a sentence: a timeout, or the
// process's exit and the end of what it printed on stderr.
func (p *process) explain(err error) string {
	if p.timedOut.Load() {
		return "no answer in time (the process was killed)"
	}
	// A closed pipe means the process is ending: give it a moment to be
	// reaped, so that its exit status and last words can be reported.
	grace := time.Duration(0)
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		grace = time.Second
	}
	select {
	case <-p.exited:
	case <-time.After(grace):
		return err.Error()
	}
	msg := fmt.Sprintf("the process exited (%v)", p.cmd.ProcessState)
	if tail := p.stderr.String(); tail != "" {
		msg += "; stderr: " + measure.LastLines(tail, 3)
	}
	return msg
}

// request appends one JSON-RPC request line. Ids are integers, increasing
// over the process's life, so an answer can never be mistaken for the
// answer of another phase.
func appendRequest(buf []byte, id int64, method, params string) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendInt(buf, id, 10)
	buf = append(buf, `,"method":"`...)
	buf = append(buf, method...)
	buf = append(buf, '"')
	if params != "" {
		buf = append(buf, `,"params":`...)
		buf = append(buf, params...)
	}
	return append(buf, "}\n"...)
}

// call sends one request and returns its result (the echo floor's "result"
// is its own request line).
func (p *process) call(method, params string) (json.RawMessage, error) {
	id := p.nextID
	p.nextID++
	if _, err := p.in.Write(appendRequest(nil, id, method, params)); err != nil {
		return nil, err
	}
	if err := p.in.Flush(); err != nil {
		return nil, err
	}
	for {
		line, err := p.readLine()
		if err != nil {
			return nil, err
		}
		got, _, ok := p.answerID(line)
		if !ok || got != id {
			continue // a notification, or a request from the server
		}
		if p.echo {
			return json.RawMessage(bytes.Clone(line)), nil
		}
		return checkAnswer(line)
	}
}

// notify sends a notification (no answer comes back).
func (p *process) notify(method string) error {
	if _, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","method":%q}`+"\n", method); err != nil {
		return err
	}
	return p.in.Flush()
}

// pipelineStats is the outcome of one pipelined run.
type pipelineStats struct {
	requests int
	elapsed  time.Duration
	errors   int
}

func (s pipelineStats) perSecond() float64 {
	if s.elapsed <= 0 {
		return 0
	}
	return float64(s.requests) / s.elapsed.Seconds()
}

func (s pipelineStats) add(t pipelineStats) pipelineStats {
	return pipelineStats{requests: s.requests + t.requests, elapsed: s.elapsed + t.elapsed, errors: s.errors + t.errors}
}

// pipeline sends n requests with at most window unanswered: a writer
// goroutine sends while it holds a window slot, and this goroutine reads
// answers, matches them by id and gives the slots back. The writer flushes
// only when the window is full, so requests travel in batches, as from a
// busy client. With validate, every answer is checked in full.
func (p *process) pipeline(method, params string, n, window int, validate bool) (pipelineStats, error) {
	base := p.nextID
	p.nextID += int64(n)
	slots := make(chan struct{}, window)
	for range window {
		slots <- struct{}{}
	}
	done := make(chan struct{})
	defer close(done)
	// The writer reports how it ended; on success it is waited for, so the
	// next phase never shares the buffered writer with it.
	writerDone := make(chan error, 1)

	began := time.Now()
	go func() {
		buf := make([]byte, 0, 128)
		for i := range n {
			select {
			case <-slots:
			default:
				// The window is full: send what is buffered, then wait.
				if err := p.in.Flush(); err != nil {
					writerDone <- err
					return
				}
				select {
				case <-slots:
				case <-done:
					writerDone <- errors.New("abandoned")
					return
				}
			}
			buf = appendRequest(buf[:0], base+int64(i), method, params)
			if _, err := p.in.Write(buf); err != nil {
				writerDone <- err
				return
			}
		}
		writerDone <- p.in.Flush()
	}()

	answered := make([]bool, n)
	stats := pipelineStats{requests: n}
	for got := 0; got < n; {
		line, err := p.readLine()
		if err != nil {
			select {
			case werr := <-writerDone:
				if werr != nil {
					return stats, fmt.Errorf("writing requests: %v", werr)
				}
			default:
			}
			return stats, err
		}
		id, isError, ok := p.answerID(line)
		if !ok {
			continue
		}
		i := id - base
		if i < 0 || i >= int64(n) || answered[i] {
			return stats, fmt.Errorf("answer with unexpected id %d: %.200s", id, line)
		}
		if validate && !p.echo {
			if _, err := checkAnswer(line); err != nil {
				return stats, err
			}
		}
		answered[i] = true
		if isError {
			stats.errors++
		}
		got++
		slots <- struct{}{}
	}
	stats.elapsed = time.Since(began)
	if err := <-writerDone; err != nil {
		return stats, fmt.Errorf("writing requests: %v", err)
	}
	return stats, nil
}

// sequential sends n requests one at a time and returns each round trip:
// from just before the write to the moment the answer's line is read.
func (p *process) sequential(method, params string, n int) ([]time.Duration, int, error) {
	rtts := make([]time.Duration, 0, n)
	errs := 0
	buf := make([]byte, 0, 128)
	for range n {
		id := p.nextID
		p.nextID++
		buf = appendRequest(buf[:0], id, method, params)
		began := time.Now()
		if _, err := p.in.Write(buf); err != nil {
			return rtts, errs, err
		}
		if err := p.in.Flush(); err != nil {
			return rtts, errs, err
		}
		for {
			line, err := p.readLine()
			if err != nil {
				return rtts, errs, err
			}
			got, isError, ok := p.answerID(line)
			if !ok || got != id {
				continue
			}
			rtts = append(rtts, time.Since(began))
			if isError {
				errs++
			}
			break
		}
	}
	return rtts, errs, nil
}

// readLine returns the next line without its newline. The slice is only
// valid until the next call.
func (p *process) readLine() ([]byte, error) {
	line, err := p.out.ReadSlice('\n')
	if err == nil {
		return line[:len(line)-1], nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	p.long = append(p.long[:0], line...)
	for {
		line, err = p.out.ReadSlice('\n')
		p.long = append(p.long, line...)
		if err == nil {
			return p.long[:len(p.long)-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

// The answer's id is found without decoding the whole line, so that the
// benchmark's own parsing stays small next to what it measures (a
// tools/list answer is kilobytes). Two shapes cover the servers measured:
//
//	{"jsonrpc":"2.0","id":7,"result":…}    kontext, and the TS SDK's errors
//	{"result":…,"jsonrpc":"2.0","id":7}    the TS SDK's results
//
// Both place the id in the top-level object unambiguously. Anything else
// is decoded in full.
var (
	idFirstPrefix = []byte(`{"jsonrpc":"2.0","id":`)
	idLastSuffix  = []byte(`,"id":`)
)

// answerID returns the id of the answer on a line and whether the answer is
// an error; ok is false for notifications and requests from the server.
// For the echo floor any line with an id is an answer.
func (p *process) answerID(line []byte) (id int64, isError, ok bool) {
	line = bytes.TrimRight(line, " \t\r")
	if rest, found := bytes.CutPrefix(line, idFirstPrefix); found {
		if id, rest, ok := leadingInt(rest); ok {
			switch {
			case p.echo:
				return id, false, true
			case bytes.HasPrefix(rest, []byte(`,"result":`)):
				return id, false, true
			case bytes.HasPrefix(rest, []byte(`,"error":`)):
				return id, true, true
			}
		}
	}
	if !p.echo && (bytes.HasPrefix(line, []byte(`{"result":`)) || bytes.HasPrefix(line, []byte(`{"error":`))) {
		if id, ok := trailingID(line); ok {
			return id, line[2] == 'e', true
		}
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil {
		return 0, false, false
	}
	if !p.echo && (len(m.Method) > 0 || len(m.Result) == 0 && len(m.Error) == 0) {
		return 0, false, false
	}
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		return 0, false, false
	}
	return id, len(m.Error) > 0, true
}

// leadingInt parses the non-negative decimal integer b starts with.
func leadingInt(b []byte) (int64, []byte, bool) {
	var n int64
	i := 0
	for ; i < len(b) && i < 18 && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	return n, b[i:], i > 0
}

// trailingID parses the id of a line ending in `,"id":N}`: that closing
// brace is the top-level object's, so the id is a top-level member.
func trailingID(line []byte) (int64, bool) {
	body, found := bytes.CutSuffix(line, []byte("}"))
	if !found {
		return 0, false
	}
	start := len(body)
	for start > 0 && body[start-1] >= '0' && body[start-1] <= '9' {
		start--
	}
	if start == len(body) || !bytes.HasSuffix(body[:start], idLastSuffix) {
		return 0, false
	}
	id, _, ok := leadingInt(body[start:])
	return id, ok
}

// checkAnswer decodes an answer in full: a JSON-RPC 2.0 response with an
// object result and no error. It returns the result.
func checkAnswer(line []byte) (json.RawMessage, error) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("answer is not JSON (%v): %.200s", err, line)
	}
	switch {
	case m.JSONRPC != "2.0":
		return nil, fmt.Errorf(`answer without "jsonrpc":"2.0": %.200s`, line)
	case len(m.Error) > 0:
		return nil, fmt.Errorf("error answer: %.300s", m.Error)
	case len(m.Result) == 0 || m.Result[0] != '{':
		return nil, fmt.Errorf("answer without an object result: %.200s", line)
	}
	return bytes.Clone(m.Result), nil
}

// tailBuffer keeps the last bytes a process wrote to stderr, for error
// messages, without letting a chatty server grow the benchmark's memory.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// ---------------------------------------------------------------------------
// Goals and the report

// goal is one check of kontext against a target.
type goal struct {
	Server string  `json:"server"`
	Name   string  `json:"goal"`
	Value  float64 `json:"value"`  // NaN (null in JSON) when not measurable
	Target float64 `json:"target"` // in the unit of Value
	Unit   string  `json:"unit"`
	AtMost bool    `json:"at_most"` // Value must be ≤ (or <) Target, else ≥
	Pass   *bool   `json:"pass"`    // nil when not measurable
}

func evaluateGoals(results []*result) []goal {
	byName := map[string]*result{}
	for _, r := range results {
		byName[r.Name] = r
	}
	get := func(name string, f func(*result) float64) float64 {
		if r := byName[name]; r != nil {
			return f(r)
		}
		return math.NaN()
	}
	pingRate := func(r *result) float64 { return r.PingPerSecond }
	pingP50 := func(r *result) float64 {
		if r.PingLatency == nil {
			return math.NaN()
		}
		return r.PingLatency.P50us
	}
	firstAnswer := func(r *result) float64 {
		if r.FirstAnswerMs <= 0 {
			return math.NaN()
		}
		return r.FirstAnswerMs
	}
	toolsListRate := func(r *result) float64 { return r.ToolsListPerSecond }
	toolsListBytesRate := func(r *result) float64 { return toolsListBytesPerSecond(r) }

	var goals []goal
	for _, name := range []string{"kontext", "kontext-baseline", "kontext-testkit"} {
		if byName[name] == nil {
			continue
		}
		goals = append(goals,
			goal{Server: name, Name: "ping throughput / everything", Unit: "×", Target: goalThroughputVsReference,
				Value: measure.Ratio(get(name, pingRate), get("everything", pingRate))},
			goal{Server: name, Name: "ping p50 / echo p50", Unit: "×", Target: goalLatencyVsEcho, AtMost: true,
				Value: measure.Ratio(get(name, pingP50), get("echo", pingP50))},
			goal{Server: name, Name: "first answer", Unit: "ms", Target: millis(goalFirstAnswer), AtMost: true,
				Value: get(name, firstAnswer)},
			goal{Server: name, Name: "first answer / gosdk", Unit: "×", Target: goalFirstAnswerVsGoSDK, AtMost: true,
				Value: measure.Ratio(get(name, firstAnswer), get("gosdk", firstAnswer))},
		)
	}
	// The tools/list goals are about kontext's own tools, the ones the Go
	// SDK server serves too.
	for _, name := range []string{"kontext", "kontext-baseline"} {
		if byName[name] == nil {
			continue
		}
		goals = append(goals,
			goal{Server: name, Name: "tools/list throughput / everything", Unit: "×", Target: goalToolsListVsReference,
				Value: measure.Ratio(get(name, toolsListRate), get("everything", toolsListRate))},
			goal{Server: name, Name: "tools/list bytes/s / gosdk", Unit: "×", Target: goalToolsListBytesVsGoSDK,
				Value: measure.Ratio(get(name, toolsListBytesRate), get("gosdk", toolsListBytesRate))},
		)
	}
	for i := range goals {
		g := &goals[i]
		if math.IsNaN(g.Value) {
			continue
		}
		pass := g.Value >= g.Target
		if g.AtMost {
			pass = g.Value <= g.Target
		}
		g.Pass = &pass
	}
	return goals
}

func printTable(cfg config, load [2]string, results []*result, goals []goal) {
	fmt.Printf("mcpbench: %d pipelined pings and %d each of tools/list and tools/call (window %d), %d + %d sequential, first answer median of %d starts\n",
		cfg.pings, max(cfg.pings*2/5, 1), cfg.window, cfg.sequential, max(cfg.sequential*2/5, 1), cfg.starts)
	fmt.Printf("go %s, %d CPUs, protocol %s, %d rounds per measurement, load average %s before, %s after\n\n",
		runtime.Version(), runtime.NumCPU(), protocolVersion, cfg.rounds, load[0], load[1])

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(*result) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, r := range results {
			if r.Skipped != "" {
				fmt.Fprint(tw, "skipped\t")
				continue
			}
			fmt.Fprintf(tw, "%s\t", cell(r))
		}
		fmt.Fprintln(tw)
	}
	latency := func(s *latencySummary, pick func(latencySummary) float64) string {
		if s == nil {
			return "-"
		}
		return measure.FormatMicros(pick(*s))
	}
	p50 := func(s latencySummary) float64 { return s.P50us }
	p99 := func(s latencySummary) float64 { return s.P99us }

	fmt.Fprint(tw, "\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t", r.Name)
	}
	fmt.Fprintln(tw)
	row("ping throughput", func(r *result) string { return measure.FormatRate(r.PingPerSecond) })
	row("tools/list throughput", func(r *result) string { return measure.FormatRate(r.ToolsListPerSecond) })
	row("tools/list answer size", func(r *result) string { return formatBytes(r.ToolsListBytes) })
	row("tools/list bytes/s", func(r *result) string { return formatByteRate(toolsListBytesPerSecond(r)) })
	row("ping p50 (1 in flight)", func(r *result) string { return latency(r.PingLatency, p50) })
	row("ping p99", func(r *result) string { return latency(r.PingLatency, p99) })
	row("tools/list p50", func(r *result) string { return latency(r.ToolsListLatency, p50) })
	row("tools/list p99", func(r *result) string { return latency(r.ToolsListLatency, p99) })
	row("tools/call throughput", func(r *result) string { return measure.FormatRate(r.ToolsCallPerSecond) })
	row("tools/call p50", func(r *result) string { return latency(r.ToolsCallLatency, p50) })
	row("tools/call p99", func(r *result) string { return latency(r.ToolsCallLatency, p99) })
	row("first answer (median)", func(r *result) string { return formatMillis(r.FirstAnswerMs) })
	row("peak RSS (VmHWM)", func(r *result) string { return formatKiB(r.PeakRSSKiB) })
	tw.Flush()

	fmt.Println()
	for _, r := range results {
		note := r.About
		switch {
		case r.HasTools:
			note += fmt.Sprintf("; %d tools", r.Tools)
		case r.Skipped == "" && r.Name != "echo":
			note += "; no tools capability, tools/list not measured"
		}
		if r.ErrorResponses > 0 {
			note += fmt.Sprintf("; %d ERROR answers among the measured ones", r.ErrorResponses)
		}
		if r.Skipped != "" {
			note += "; SKIPPED: " + r.Skipped
		}
		if r.Failed != "" {
			note += "; FAILED: " + r.Failed
		}
		fmt.Printf("  %-16s %s\n", r.Name, note)
	}

	if len(goals) > 0 {
		fmt.Println("\ngoals")
		tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		for _, g := range goals {
			cmp := "≥"
			if g.AtMost {
				cmp = "≤"
			}
			value, verdict := "n/a", "n/a (not measured)"
			if g.Pass != nil {
				value, verdict = fmt.Sprintf("%.2f %s", g.Value, g.Unit), "MISS"
				if *g.Pass {
					verdict = "PASS"
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\tgoal %s %g %s\t%s\n", g.Server, g.Name, value, cmp, g.Target, g.Unit, verdict)
		}
		tw.Flush()
	}
}

// toolsListBytesPerSecond is the tools/list throughput in bytes of answer:
// servers with tools of different sizes compare by it (NaN: not measured).
func toolsListBytesPerSecond(r *result) float64 {
	if r.ToolsListPerSecond <= 0 || r.ToolsListBytes <= 0 {
		return math.NaN()
	}
	return r.ToolsListPerSecond * float64(r.ToolsListBytes)
}

func formatBytes(n int) string {
	if n <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1000)
}

func formatByteRate(v float64) string {
	if math.IsNaN(v) || v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MB/s", v/1e6)
}

func printJSON(cfg config, load [2]string, results []*result, goals []goal) {
	type jsonGoal struct {
		goal
		Value *float64 `json:"value"`
	}
	out := struct {
		Config  map[string]any `json:"config"`
		Servers []*result      `json:"servers"`
		Goals   []jsonGoal     `json:"goals"`
	}{
		Config: map[string]any{
			"pipelined_pings": cfg.pings, "pipelined_tools_list": max(cfg.pings*2/5, 1), "window": cfg.window,
			"sequential_pings": cfg.sequential, "sequential_tools_list": max(cfg.sequential*2/5, 1),
			"warmup": cfg.warmup, "starts": cfg.starts, "rounds": cfg.rounds,
			"load_average_before": load[0], "load_average_after": load[1], "protocol_version": protocolVersion,
			"go": runtime.Version(), "cpus": runtime.NumCPU(),
		},
		Servers: results,
		Goals:   []jsonGoal{},
	}
	for _, g := range goals {
		jg := jsonGoal{goal: g}
		if !math.IsNaN(g.Value) {
			v := g.Value
			jg.Value = &v
		}
		out.Goals = append(out.Goals, jg)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fatalf("json: %v", err)
	}
}

// ---------------------------------------------------------------------------
// Small helpers

// interrupted is set when a signal stops the benchmark.
var interrupted atomic.Bool

func progressf(format string, args ...any) {
	if interrupted.Load() {
		return
	}
	fmt.Fprintf(os.Stderr, "mcpbench: "+format+"\n", args...)
}

func fatalf(format string, args ...any) {
	progressf(format, args...)
	killAllChildren()
	os.Exit(2)
}
