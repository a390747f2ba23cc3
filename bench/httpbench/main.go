//go:build linux

// Command httpbench measures kontext's MCP server over streamable HTTP,
// side by side with the TypeScript SDK's reference server
// (@modelcontextprotocol/server-everything in its streamableHttp mode) and
// the official Go SDK's streamable server (bench/gosdkserver -http).
//
// It is run by `make bench` (go run ./bench/httpbench), never by go test.
// Every server is a real child process listening on loopback. For each,
// and for ping and tools/call with 1, 16 and 64 concurrent sessions, it
// measures requests per second and the p50/p99 round trip. A session is
// what a client is: its own Mcp-Session-Id, initialised once, then one
// request at a time in a loop over a keep-alive connection. It also
// measures the memory one idle session costs: the server's RSS after
// opening -idle sessions minus before, divided by -idle.
//
// All three servers are spoken to in the legacy era (2025-11-25,
// initialize and Mcp-Session-Id). kontext is also measured in 2026-07-28,
// which the others do not speak: no sessions, the protocol version in
// every request's _meta and the Mcp-Method/Mcp-Name headers; its
// "sessions" there are concurrent clients only.
//
// Only one server is busy at a time; each measurement is split into rounds
// that visit the servers in turn, so that load from elsewhere on the
// machine is shared fairly. Rates are the median of the rounds'. The
// package is Linux-only: it reads /proc and asks the kernel to kill the
// children if the benchmark dies.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/kontext-dev/kontext/bench/internal/measure"
)

// The protocol revisions: legacyVersion is the one all servers are asked
// for; modernVersion is kontext's sessionless one.
const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
)

// concurrencies are the numbers of sessions busy at once.
var concurrencies = []int{1, 16, 64}

// methods are the requests timed, in report order.
var methods = []string{"ping", "tools/call"}

type config struct {
	requests    int // per server, measurement and round
	rounds      int
	warmup      int // requests per session before measuring
	idle        int // sessions opened for the memory figure
	idleRuns    int // fresh processes it is measured on
	timeout     time.Duration
	only        map[string]bool
	jsonOutput  bool
	repo        string
	nodeModules string
}

func main() {
	var cfg config
	var only string
	flag.IntVar(&cfg.requests, "n", 2000, "requests per server, method, concurrency and round, shared among the sessions")
	flag.IntVar(&cfg.rounds, "rounds", 5, "rounds each measurement is split into, visiting the servers in turn")
	flag.IntVar(&cfg.warmup, "warmup", 20, "validated requests per session before measuring")
	flag.IntVar(&cfg.idle, "idle", 200, "idle sessions opened to measure the memory one costs")
	flag.IntVar(&cfg.idleRuns, "idle-runs", 3, "fresh processes the memory of idle sessions is measured on (the median is reported)")
	flag.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "longest any one request or server start may take before the server is given up")
	flag.StringVar(&only, "only", "", "comma list of servers to run: "+strings.Join(serverNames, ","))
	flag.BoolVar(&cfg.jsonOutput, "json", false, "print the results as JSON on stdout (progress stays on stderr)")
	flag.StringVar(&cfg.repo, "repo", "", "the kontext repository (default: the go.mod above the working directory)")
	flag.StringVar(&cfg.nodeModules, "node-modules", "", "where @modelcontextprotocol/server-everything is installed (default <repo>/internal/interop/testdata/node/node_modules)")
	flag.Parse()
	if cfg.requests < 1 || cfg.rounds < 1 || cfg.idleRuns < 1 || cfg.warmup < 0 || cfg.idle < 0 {
		fatalf("-n, -rounds and -idle-runs must be at least 1, -warmup and -idle at least 0")
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
	tmp, err := os.MkdirTemp("", "httpbench-")
	if err != nil {
		fatalf("temp dir: %v", err)
	}
	cleanup := func() {
		killAllChildren()
		os.RemoveAll(tmp)
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-signals
		progressf("%v: stopping the servers", sig)
		cleanup()
		os.Exit(130)
	}()

	servers := prepareServers(cfg, tmp)
	loadBefore := measure.Load1()
	results := measureAll(servers, cfg)
	load := [2]string{loadBefore, measure.Load1()}
	cleanup()
	if cfg.jsonOutput {
		printJSON(cfg, load, results)
	} else {
		printTable(cfg, load, results)
	}
}

// ---------------------------------------------------------------------------
// The servers

// serverNames are the contenders, in report order; -only takes these.
var serverNames = []string{"kontext", "kontext-testkit", "kontext-testkit-2026", "gosdk", "everything"}

// server is one contender: what to run, or why it cannot be.
type server struct {
	name  string
	about string
	argv  []string
	env   []string
	dir   string
	// modern speaks 2026-07-28 (no sessions) instead of 2025-11-25.
	modern bool
	// announces is the start of the stderr line that says the server
	// listens; the URL follows it unless url is known in advance.
	announces string
	url       string
	// toolCall is the params of the tools/call timed (a cheap tool with
	// structured arguments) and toolName its name; empty: not timed.
	toolCall, toolName string
	// unavailable, when set, says why the server is skipped.
	unavailable string
}

// sessions tells whether the server keeps sessions, whose idle cost is
// then measured.
func (s *server) sessions() bool { return !s.modern }

// answers tells whether the server is asked method: 2026-07-28 removed
// ping, and a server without a cheap tool is not asked tools/call.
func (s *server) answers(method string) bool {
	switch method {
	case "ping":
		return !s.modern
	case "tools/call":
		return s.toolCall != ""
	}
	return false
}

func prepareServers(cfg config, tmp string) []*server {
	wanted := func(name string) bool { return cfg.only == nil || cfg.only[name] }
	const kontextAnnounces = "kontext: serving MCP at "
	const addCall = `{"name":"add","arguments":{"a":1,"b":2}}`
	var servers []*server

	var kontextBin, testkitBin, buildErr, testkitErr string
	if wanted("kontext") {
		kontextBin, buildErr = build(cfg.repo, tmp, "./cmd/kontext", "kontext")
	}
	if wanted("kontext-testkit") || wanted("kontext-testkit-2026") {
		testkitBin, testkitErr = build(cfg.repo, tmp, "./internal/mcptest/cmd/kontext-testkit", "kontext-testkit")
	}
	testkitRoot := filepath.Join(tmp, "testkit-root")
	if err := os.MkdirAll(testkitRoot, 0o755); err != nil {
		testkitErr = err.Error()
	}
	for _, s := range []*server{
		{name: "kontext", about: "kontext mcp --http (shipped toolsets, this repository)", argv: []string{kontextBin, "mcp", "--root", cfg.repo}, unavailable: buildErr},
		{name: "kontext-testkit", about: "kontext runtime + the testkit toolset (tools/call: add)", argv: []string{testkitBin, "mcp", "--root", testkitRoot},
			toolCall: addCall, toolName: "add", unavailable: testkitErr},
		{name: "kontext-testkit-2026", about: "kontext-testkit, 2026-07-28 (no sessions: concurrent clients; no ping in this revision)", modern: true, argv: []string{testkitBin, "mcp", "--root", testkitRoot},
			toolCall: addCall, toolName: "add", unavailable: testkitErr},
	} {
		s.argv = append(s.argv, "--http", "127.0.0.1:0")
		s.announces = kontextAnnounces
		servers = append(servers, s)
	}

	gosdk := &server{name: "gosdk", about: "official Go SDK, mcp.NewStreamableHTTPHandler (bench/gosdkserver -http; tools/call: add)",
		announces: "gosdkserver: serving MCP at ", toolCall: addCall, toolName: "add"}
	if wanted(gosdk.name) {
		bin, err := build(cfg.repo, tmp, "./bench/gosdkserver", "gosdkserver")
		gosdk.argv, gosdk.unavailable = []string{bin, "-http", "127.0.0.1:0"}, err
	}
	servers = append(servers, gosdk)

	everything := &server{name: "everything", about: "TS SDK reference server, streamableHttp (node; tools/call: get-sum)",
		announces: "MCP Streamable HTTP Server listening on port", toolCall: `{"name":"get-sum","arguments":{"a":1,"b":2}}`, toolName: "get-sum"}
	if wanted(everything.name) {
		if err := everything.prepareReference(cfg.nodeModules, tmp); err != nil {
			everything.unavailable = err.Error()
		}
	}
	servers = append(servers, everything)

	var chosen []*server
	for _, s := range servers {
		if wanted(s.name) {
			chosen = append(chosen, s)
		}
	}
	return chosen
}

func build(repo, dir, pkg, name string) (bin, failure string) {
	bin = filepath.Join(dir, name)
	progressf("building %s", pkg)
	if err := measure.GoBuild(repo, pkg, bin); err != nil {
		return bin, err.Error()
	}
	return bin, ""
}

// prepareReference sets up server-everything: node runs its dist/index.js
// directly (not through npx or a shell, so that the pid measured is the
// server's own) with the streamableHttp transport, which listens on $PORT
// at /mcp. The port is one the kernel just handed out and released.
func (s *server) prepareReference(nodeModules, tmp string) error {
	index := filepath.Join(nodeModules, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(index); err != nil {
		return fmt.Errorf("@modelcontextprotocol/server-everything is not installed in %s (run `make interop-deps`)", nodeModules)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return errors.New("node is not on PATH")
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	s.argv = []string{node, index, "streamableHttp"}
	s.env = []string{"PORT=" + strconv.Itoa(port)}
	s.url = "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	s.dir = tmp
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// ---------------------------------------------------------------------------
// Processes

type process struct {
	cmd    *exec.Cmd
	url    string
	stderr *tailBuffer
	exited chan struct{}
	once   sync.Once
}

var children = struct {
	sync.Mutex
	set map[*process]bool
}{set: map[*process]bool{}}

// startProcess runs the server and waits for the stderr line announcing
// that it listens.
func startProcess(s *server, timeout time.Duration) (*process, error) {
	p := &process{cmd: exec.Command(s.argv[0], s.argv[1:]...), stderr: &tailBuffer{limit: 4 << 10}, exited: make(chan struct{})}
	p.cmd.Dir = s.dir
	p.cmd.Env = append(os.Environ(), s.env...)
	// Stdout is /dev/null: server-everything logs every request there.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s: %v", s.argv[0], err)
	}
	children.Lock()
	children.set[p] = true
	children.Unlock()
	listening := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stderr)
		announced := false
		for lines.Scan() {
			line := lines.Text()
			fmt.Fprintln(p.stderr, line)
			if rest, ok := strings.CutPrefix(line, s.announces); ok && !announced {
				announced = true
				listening <- strings.TrimSpace(rest)
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		p.cmd.Wait()
		close(p.exited)
	}()
	select {
	case rest := <-listening:
		p.url = s.url
		if p.url == "" {
			p.url = rest
		}
		return p, nil
	case <-p.exited:
		return nil, fmt.Errorf("%s exited before listening: %s", s.name, measure.LastLines(p.stderr.String(), 5))
	case <-time.After(timeout):
		p.kill()
		return nil, fmt.Errorf("%s did not announce that it listens within %s", s.name, timeout)
	}
}

func (p *process) kill() {
	p.once.Do(func() {
		p.cmd.Process.Kill()
		<-p.exited
		children.Lock()
		delete(children.set, p)
		children.Unlock()
	})
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

// newEndpoint is a client for the process's URL with a keep-alive pool
// large enough that every busy session keeps its connection.
func newEndpoint(url string, modern bool, timeout time.Duration) *endpoint {
	transport := &http.Transport{
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	return &endpoint{url: url, modern: modern, client: &http.Client{Transport: transport, Timeout: timeout}}
}

// ---------------------------------------------------------------------------
// Measuring

// measurement is one method at one concurrency on one server.
type measurement struct {
	Method      string         `json:"method"`
	Concurrency int            `json:"concurrency"`
	PerSecond   float64        `json:"per_second"`
	RoundRates  []float64      `json:"round_rates"`
	Latency     latencySummary `json:"latency"`
	samples     []time.Duration
}

// result is everything measured about one server.
type result struct {
	Name   string `json:"name"`
	About  string `json:"about"`
	Era    string `json:"protocol_version"`
	Failed string `json:"failed,omitempty"`
	// Measurements are keyed "method/concurrency".
	Measurements map[string]*measurement `json:"measurements"`
	// IdleReadings are the memory of idle sessions, one per fresh
	// process; PerSessionKiB is their median.
	IdleReadings  []idleReading `json:"idle_readings,omitempty"`
	PerSessionKiB figure        `json:"per_session_kib"`
	IdleFailed    string        `json:"idle_failed,omitempty"`
}

func key(method string, concurrency int) string { return method + "/" + strconv.Itoa(concurrency) }

// contender is a server being measured: its process and open sessions.
type contender struct {
	server   *server
	result   *result
	process  *process
	sessions []*session
}

func (c *contender) fail(what string, err error) {
	if c.result.Failed == "" {
		c.result.Failed = what + ": " + err.Error()
		if c.process != nil {
			if tail := measure.LastLines(c.process.stderr.String(), 3); tail != "" {
				c.result.Failed += " (stderr: " + tail + ")"
			}
		}
		progressf("%s: %s", c.server.name, c.result.Failed)
	}
	if c.process != nil {
		c.process.kill()
	}
}

func (c *contender) alive() bool { return c.result.Failed == "" }

func measureAll(servers []*server, cfg config) []*result {
	var all []*contender
	for _, s := range servers {
		era := legacyVersion
		if s.modern {
			era = modernVersion
		}
		c := &contender{server: s, result: &result{Name: s.name, About: s.about, Era: era, Measurements: map[string]*measurement{}, PerSessionKiB: figure(math.NaN())}}
		all = append(all, c)
		if s.unavailable != "" {
			c.result.Failed = "unavailable: " + s.unavailable
			progressf("%s: %s", s.name, c.result.Failed)
			continue
		}
		c.open(cfg)
	}
	for _, method := range methods {
		for _, n := range concurrencies {
			for round := range cfg.rounds {
				// Each round starts with the next server, so that none is
				// always the one measured right after another's load.
				for i := range all {
					c := all[(i+round)%len(all)]
					if !c.alive() || !c.server.answers(method) {
						continue
					}
					c.run(method, n, cfg)
				}
			}
		}
	}
	for _, c := range all {
		if c.process != nil {
			c.process.kill()
		}
	}
	// The memory of idle sessions is measured on fresh processes, one at
	// a time, so that nothing from the load above is in either reading.
	if cfg.idle > 0 {
		for range cfg.idleRuns {
			for _, c := range all {
				if c.server.sessions() && c.server.unavailable == "" {
					c.measureIdle(cfg)
				}
			}
		}
	}
	var results []*result
	for _, c := range all {
		for _, m := range c.result.Measurements {
			m.Latency = summarize(m.samples)
			m.PerSecond = medianRate(m.RoundRates)
		}
		if len(c.result.IdleReadings) > 0 {
			c.result.PerSessionKiB = medianReading(c.result.IdleReadings).PerSessionKiB
		}
		results = append(results, c.result)
	}
	return results
}

// open starts the server, opens the sessions the largest concurrency
// needs and warms each up with validated requests.
func (c *contender) open(cfg config) {
	progressf("%s: starting", c.server.name)
	p, err := startProcess(c.server, cfg.timeout)
	if err != nil {
		c.fail("start", err)
		return
	}
	c.process = p
	ep := newEndpoint(p.url, c.server.modern, cfg.timeout)
	for range slices.Max(concurrencies) {
		s, err := ep.open()
		if err != nil {
			c.fail("opening a session", err)
			return
		}
		c.sessions = append(c.sessions, s)
	}
	for _, s := range c.sessions {
		for range cfg.warmup {
			if c.server.answers("ping") {
				if err := s.call("ping", "", ""); err != nil {
					c.fail("warm-up", err)
					return
				}
			}
			if c.server.answers("tools/call") {
				if err := s.call("tools/call", c.server.toolCall, c.server.toolName); err != nil {
					c.fail("warm-up", err)
					return
				}
			}
		}
	}
}

// run is one round of one measurement: cfg.requests requests shared among
// n sessions, each sending its next request when the last is answered.
func (c *contender) run(method string, n int, cfg config) {
	params, name := "", ""
	if method == "tools/call" {
		params, name = c.server.toolCall, c.server.toolName
	}
	m := c.result.Measurements[key(method, n)]
	if m == nil {
		m = &measurement{Method: method, Concurrency: n}
		c.result.Measurements[key(method, n)] = m
	}
	each := (cfg.requests + n - 1) / n
	samples := make([][]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			s := c.sessions[i]
			own := make([]time.Duration, 0, each)
			for range each {
				t := time.Now()
				if err := s.call(method, params, name); err != nil {
					errs[i] = err
					break
				}
				own = append(own, time.Since(t))
			}
			samples[i] = own
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		c.fail(fmt.Sprintf("%s with %d sessions", method, n), firstLine(err))
		return
	}
	m.RoundRates = append(m.RoundRates, float64(each*n)/elapsed.Seconds())
	for _, own := range samples {
		m.samples = append(m.samples, own...)
	}
}

// measureIdle adds one reading of the memory idle sessions cost; the
// result is the median reading once all are in.
func (c *contender) measureIdle(cfg config) {
	r := c.result
	if r.IdleFailed != "" {
		return
	}
	reading, err := idleReadingOf(c.server, cfg)
	if err != nil {
		r.IdleFailed = err.Error()
		return
	}
	r.IdleReadings = append(r.IdleReadings, reading)
}

// idleReadingOf starts the server afresh, reads its RSS after one session
// and a ping, opens cfg.idle more sessions and leaves them idle, and reads
// the RSS again once the server has settled.
func idleReadingOf(s *server, cfg config) (idleReading, error) {
	progressf("%s: opening %d idle sessions", s.name, cfg.idle)
	p, err := startProcess(s, cfg.timeout)
	if err != nil {
		return idleReading{}, err
	}
	defer p.kill()
	ep := newEndpoint(p.url, false, cfg.timeout)
	first, err := ep.open()
	if err == nil {
		err = first.call("ping", "", "")
	}
	if err != nil {
		return idleReading{}, err
	}
	time.Sleep(200 * time.Millisecond)
	before := rssKiB(p.cmd.Process.Pid)
	idle := make([]*session, 0, cfg.idle)
	for range cfg.idle {
		s, err := ep.open()
		if err != nil {
			return idleReading{}, fmt.Errorf("after %d sessions: %v", len(idle), err)
		}
		idle = append(idle, s)
	}
	time.Sleep(500 * time.Millisecond)
	after := rssKiB(p.cmd.Process.Pid)
	return idleReading{BeforeKiB: before, AfterKiB: after, PerSessionKiB: figure(perSessionKiB(before, after, len(idle)))}, nil
}

// ---------------------------------------------------------------------------
// Reporting

func resultNamed(results []*result, name string) *result {
	for _, r := range results {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func (r *result) measured(method string, n int) *measurement {
	if r == nil || r.Failed != "" {
		return nil
	}
	return r.Measurements[key(method, n)]
}

func (r *result) rate(method string, n int) float64 {
	if m := r.measured(method, n); m != nil {
		return m.PerSecond
	}
	return math.NaN()
}

func (r *result) p50(method string, n int) float64 {
	if m := r.measured(method, n); m != nil {
		return m.Latency.P50us
	}
	return math.NaN()
}

func (r *result) sessionKiB() float64 {
	if r == nil {
		return math.NaN()
	}
	return float64(r.PerSessionKiB)
}

// comparison is one ratio of the report: kontext's figure over a rival's.
type comparison struct {
	What       string `json:"what"`
	Kontext    string `json:"kontext"`
	Everything figure `json:"vs_everything"`
	GoSDK      figure `json:"vs_gosdk"`
}

// comparisons are kontext / server-everything and kontext / Go SDK, all in
// the legacy era: ping from kontext with its shipped toolsets, tools/call
// from the testkit (the others serve add or get-sum, equally cheap). For
// rates more is better; for latency and memory less is.
func comparisons(results []*result) []comparison {
	everything, gosdk := resultNamed(results, "everything"), resultNamed(results, "gosdk")
	var out []comparison
	for _, method := range methods {
		who := "kontext"
		if method == "tools/call" {
			who = "kontext-testkit"
		}
		k := resultNamed(results, who)
		if k == nil {
			continue
		}
		for _, n := range concurrencies {
			out = append(out, comparison{
				What: fmt.Sprintf("%s req/s, %s", method, sessionCount(n)), Kontext: who,
				Everything: figure(measure.Ratio(k.rate(method, n), everything.rate(method, n))),
				GoSDK:      figure(measure.Ratio(k.rate(method, n), gosdk.rate(method, n))),
			})
		}
		for _, n := range concurrencies {
			out = append(out, comparison{
				What: fmt.Sprintf("%s p50, %s", method, sessionCount(n)), Kontext: who,
				Everything: figure(measure.Ratio(k.p50(method, n), everything.p50(method, n))),
				GoSDK:      figure(measure.Ratio(k.p50(method, n), gosdk.p50(method, n))),
			})
		}
	}
	if k := resultNamed(results, "kontext"); k != nil {
		out = append(out, comparison{
			What: "memory per idle session", Kontext: "kontext",
			Everything: figure(measure.Ratio(k.sessionKiB(), everything.sessionKiB())),
			GoSDK:      figure(measure.Ratio(k.sessionKiB(), gosdk.sessionKiB())),
		})
	}
	return out
}

func sessionCount(n int) string {
	if n == 1 {
		return "1 session"
	}
	return strconv.Itoa(n) + " sessions"
}

func printTable(cfg config, load [2]string, results []*result) {
	fmt.Printf("httpbench: streamable HTTP on loopback; %d requests × %d rounds per server, method and concurrency (rate: median of rounds); load average %s before, %s after; %d CPUs\n\n",
		cfg.requests, cfg.rounds, load[0], load[1], numCPU())
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, method := range methods {
		header := "server\tera\t"
		for _, n := range concurrencies {
			header += fmt.Sprintf("req/s ×%d\tp50 ×%d\tp99 ×%d\t", n, n, n)
		}
		fmt.Fprintf(w, "%s\n%s\n", method, header)
		for _, r := range results {
			if r.Failed != "" {
				continue
			}
			row := r.Name + "\t" + r.Era + "\t"
			any := false
			for _, n := range concurrencies {
				if m := r.Measurements[key(method, n)]; m != nil {
					any = true
					row += measure.FormatRate(m.PerSecond) + "\t" + measure.FormatMicros(m.Latency.P50us) + "\t" + measure.FormatMicros(m.Latency.P99us) + "\t"
				} else {
					row += "-\t-\t-\t"
				}
			}
			if any {
				fmt.Fprintln(w, row)
			}
		}
		fmt.Fprintln(w, "\t")
	}
	if cfg.idle > 0 {
		fmt.Fprintf(w, "memory per idle session (%d sessions, %d fresh processes, the median)\nserver\tRSS before\tRSS after\tper session\tall runs\t\n", cfg.idle, cfg.idleRuns)
		for _, r := range results {
			switch {
			case r.IdleFailed != "":
				fmt.Fprintf(w, "%s\t-\t-\tfailed: %s\t\t\n", r.Name, r.IdleFailed)
			case len(r.IdleReadings) > 0:
				m := medianReading(r.IdleReadings)
				var runs []string
				for _, reading := range r.IdleReadings {
					runs = append(runs, formatSessionKiB(float64(reading.PerSessionKiB)))
				}
				fmt.Fprintf(w, "%s\t%d KiB\t%d KiB\t%s\t%s\t\n", r.Name, m.BeforeKiB, m.AfterKiB, formatSessionKiB(float64(m.PerSessionKiB)), strings.Join(runs, ", "))
			}
		}
		fmt.Fprintln(w, "\t")
	}
	fmt.Fprintln(w, "ratios (legacy era)\tkontext\t/ everything\t/ Go SDK\t")
	for _, c := range comparisons(results) {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t\n", c.What, c.Kontext, formatRatio(float64(c.Everything)), formatRatio(float64(c.GoSDK)))
	}
	w.Flush()
	fmt.Println()
	for _, r := range results {
		fmt.Printf("%-22s %s\n", r.Name, r.About)
	}
	for _, r := range results {
		if r.Failed != "" {
			fmt.Printf("\n%s not measured: %s\n", r.Name, r.Failed)
		}
	}
	if resultNamed(results, "kontext-testkit-2026") != nil {
		fmt.Println("\nkontext-testkit-2026 speaks 2026-07-28, which the others do not: no sessions (its \"sessions\" are concurrent clients), _meta and Mcp-Method/Mcp-Name on every request, and no ping.")
	}
}

func printJSON(cfg config, load [2]string, results []*result) {
	type report struct {
		Requests    int          `json:"requests_per_round"`
		Rounds      int          `json:"rounds"`
		IdleSession int          `json:"idle_sessions"`
		IdleRuns    int          `json:"idle_runs"`
		LoadBefore  string       `json:"load_before"`
		LoadAfter   string       `json:"load_after"`
		CPUs        int          `json:"cpus"`
		Results     []*result    `json:"results"`
		Ratios      []comparison `json:"ratios"`
	}
	out, err := json.MarshalIndent(report{cfg.requests, cfg.rounds, cfg.idle, cfg.idleRuns, load[0], load[1], numCPU(), results, comparisons(results)}, "", "  ")
	if err != nil {
		fatalf("json: %v", err)
	}
	os.Stdout.Write(append(out, '\n'))
}

func numCPU() int { return runtime.NumCPU() }

// ---------------------------------------------------------------------------
// Helpers

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	buf   []byte
	limit int
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func firstLine(err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return errors.New(msg)
}

func progressf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "httpbench: "+format+"\n", args...)
}

func fatalf(format string, args ...any) {
	progressf(format, args...)
	os.Exit(1)
}
