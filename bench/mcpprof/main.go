// Command mcpprof profiles kontext's MCP runtime (internal/mcp) under the
// load mcpbench applies, with the Go profiler instead of perf.
//
// It serves the testkit toolset in-process, as kontext-testkit does, over a
// pair of OS pipes (or, with -transport mem, mcp.NewInMemoryTransport) and
// drives it with pipelined requests. It prints the rate and the heap
// allocations per request, and writes CPU and allocation profiles:
//
//	go run ./bench/mcpprof -cpuprofile /tmp/cpu.prof -memprofile /tmp/mem.prof
//	go tool pprof -top /tmp/cpu.prof
//
// Only the standard library and the repository's own packages are used. It
// is a development tool: `make bench` does not run it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcptest"
)

func main() {
	n := flag.Int("n", 200000, "requests to time")
	window := flag.Int("window", 256, "most requests in flight (1: one at a time)")
	method := flag.String("method", "ping", "the method to call (ping, tools/list, tools/call)")
	params := flag.String("params", "", `the request's params, a JSON object (for tools/call, e.g. {"name":"add","arguments":{"a":1,"b":2}})`)
	transport := flag.String("transport", "pipe", "pipe: OS pipes in blocking mode, like stdio; mem: mcp.NewInMemoryTransport")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the timed part here")
	memProfile := flag.String("memprofile", "", "write an allocation profile of the timed part here")
	flag.Parse()

	root, err := os.MkdirTemp("", "mcpprof-")
	check(err)
	defer os.RemoveAll(root)
	fsr, err := fsroot.Open(root)
	check(err)
	kit := mcptest.New(fsr)
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "bench"}, mcp.Options{}, kit.Toolset())
	check(err)
	kit.Attach(srv)

	serverEnd, clientEnd := connect(*transport)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()

	c := &client{in: bufio.NewWriterSize(clientEnd, 64<<10), out: bufio.NewReaderSize(clientEnd, 1<<20), nextID: 1}
	c.roundTrip(`"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpprof","version":"0"}}`)
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	c.run(*method, *params, 5000, *window) // warm-up

	if *memProfile != "" {
		runtime.MemProfileRate = 512 // sample finely: the interest is in small, frequent allocations
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		check(err)
		check(pprof.StartCPUProfile(f))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	elapsed := c.run(*method, *params, *n, *window)
	runtime.ReadMemStats(&after)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		f, err := os.Create(*memProfile)
		check(err)
		check(pprof.Lookup("allocs").WriteTo(f, 0))
		f.Close()
	}

	perRequest := func(v uint64) float64 { return float64(v) / float64(*n) }
	fmt.Printf("%s over %s, window %d: %.0f req/s, %.2f µs each; %.1f allocs and %.0f B allocated per request (client included), %d GCs\n",
		*method, *transport, *window, float64(*n)/elapsed.Seconds(), float64(elapsed.Microseconds())/float64(*n),
		perRequest(after.Mallocs-before.Mallocs), perRequest(after.TotalAlloc-before.TotalAlloc), after.NumGC-before.NumGC)

	clientEnd.Close()
	<-served
}

// connect returns the server's and the client's ends of a connection.
func connect(transport string) (serverEnd, clientEnd io.ReadWriteCloser) {
	switch transport {
	case "mem":
		return mcp.NewInMemoryTransport()
	case "pipe":
		toServerR, toServerW, err := os.Pipe()
		check(err)
		toClientR, toClientW, err := os.Pipe()
		check(err)
		// Fd switches a file to blocking mode: the server's ends then behave
		// like the stdin and stdout a client hands kontext (blocking
		// syscalls, no netpoller), which is what `kontext mcp` serves.
		toServerR.Fd()
		toClientW.Fd()
		return pipeEnd{toServerR, toClientW}, pipeEnd{toClientR, toServerW}
	}
	fmt.Fprintf(os.Stderr, "-transport must be pipe or mem\n")
	os.Exit(2)
	return nil, nil
}

// pipeEnd is one side of a pair of pipes. Closing it closes what it writes,
// so the other side reads EOF.
type pipeEnd struct{ r, w *os.File }

func (p pipeEnd) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeEnd) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeEnd) Close() error                { return p.w.Close() }

// client drives the server the way mcpbench does: a writer goroutine keeps
// up to window requests in flight and flushes when the window is full.
type client struct {
	in     *bufio.Writer
	out    *bufio.Reader
	nextID int64
}

func (c *client) roundTrip(methodAndParams string) {
	id := c.nextID
	c.nextID++
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%s}`+"\n", id, methodAndParams)
	check(c.in.Flush())
	for {
		line, err := c.out.ReadBytes('\n')
		check(err)
		if got, ok := responseID(line); ok && got == id {
			return
		}
	}
}

func (c *client) run(method, params string, n, window int) time.Duration {
	base := c.nextID
	c.nextID += int64(n)
	slots := make(chan struct{}, window)
	for range window {
		slots <- struct{}{}
	}
	began := time.Now()
	written := make(chan struct{})
	go func() {
		defer close(written)
		buf := make([]byte, 0, 128)
		for i := range n {
			select {
			case <-slots:
			default:
				check(c.in.Flush())
				<-slots
			}
			buf = append(buf[:0], `{"jsonrpc":"2.0","id":`...)
			buf = strconv.AppendInt(buf, base+int64(i), 10)
			buf = append(buf, `,"method":"`+method+`"`...)
			if params != "" {
				buf = append(buf, `,"params":`+params...)
			}
			buf = append(buf, "}\n"...)
			_, err := c.in.Write(buf)
			check(err)
		}
		check(c.in.Flush())
	}()
	for got := 0; got < n; {
		line, err := c.out.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long answer (tools/list): read the rest of it.
			_, err = c.out.ReadBytes('\n')
		}
		check(err)
		if _, ok := responseID(line); ok {
			got++
			slots <- struct{}{}
		}
	}
	elapsed := time.Since(began)
	<-written // the next run must not share the writer with this one
	return elapsed
}

// responseID reads the id of kontext's answers, which always begin
// {"jsonrpc":"2.0","id":N,"result" or ,"error".
func responseID(line []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok {
		return 0, false
	}
	end := bytes.IndexByte(rest, ',')
	if end < 0 {
		return 0, false
	}
	id, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return id, err == nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpprof:", err)
		os.Exit(1)
	}
}
