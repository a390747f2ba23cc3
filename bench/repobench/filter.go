//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/kontext-dev/kontext/bench/internal/measure"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/inventory"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/tools"
)

// filterStats is what the "filter" child measured: warm repo tool calls
// through an MCP session, by a server without the output filter and by
// one with the secret filter kontext mcp uses, call for call.
type filterStats struct {
	Rounds int `json:"rounds"`
	Tools  int `json:"tools"`
	// Bytes is the size of one round's answers.
	Bytes int `json:"bytes"`
	// Off and On are the p50 of one round (every tool once), in wall
	// time and in the CPU time the process spent.
	Off    time.Duration `json:"off_ns"`
	On     time.Duration `json:"on_ns"`
	OffCPU time.Duration `json:"off_cpu_ns"`
	OnCPU  time.Duration `json:"on_cpu_ns"`
	// Cost is (On − Off) / Off in percent of the CPU time, from the p50 of
	// the rounds' differences: each round's two runs are made back to
	// back, and CPU time does not count the waits that other work on a
	// shared machine causes (WallCost, the same in wall time, does).
	Cost     float64 `json:"cost_percent"`
	WallCost float64 `json:"wall_cost_percent"`
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// costOf is the p50 of the rounds' differences, in percent of the p50 of
// the rounds without the filter.
func costOf(off, on []time.Duration) float64 {
	diffs := make([]time.Duration, len(off))
	for i := range off {
		diffs[i] = on[i] - off[i]
	}
	slices.Sort(diffs)
	base := measure.Pct(off, 50)
	if base <= 0 {
		return 0
	}
	return 100 * float64(diffs[len(diffs)/2]) / float64(base)
}

// filterCalls are the repo tools a round calls: the answers agents ask
// for most, compact, as a client asks by default.
func filterCalls(g *model.Graph) [][2]string {
	central := "."
	most := -1
	for _, m := range g.Modules {
		if n := len(m.UsedBy); n > most && m.ID != "." {
			central, most = m.ID, n
		}
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return [][2]string{
		{"get_repository_context", `{}`},
		{"get_context_for_task", `{"task":"read and parse the request headers, then write the response"}`},
		{"explain_module", `{"path":` + q(central) + `}`},
		{"get_change_impact", `{"target":` + q(central) + `}`},
		{"get_dependencies", `{}`},
		{"search_context", `{"query":"token key secret password config"}`},
		{"get_conventions", `{}`},
		{"get_architecture", `{}`},
	}
}

// measureFilter serves the repo toolset of root twice over in-memory
// sessions, without and with the output filter, and times rounds of warm
// calls, the two servers taking turns.
func measureFilter(e *repo.Engine, rootDir string, g *model.Graph, rounds int) (filterStats, error) {
	ctx := context.Background()
	root, err := fsroot.Open(rootDir)
	if err != nil {
		return filterStats{}, err
	}
	h := tools.New(root, e)
	connect := func(opts mcp.Options) (*mcp.Client, func(), error) {
		srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "bench"}, opts, h.Toolset())
		if err != nil {
			return nil, nil, err
		}
		serverEnd, clientEnd := mcp.NewInMemoryTransport()
		done := make(chan struct{})
		go func() { srv.Serve(ctx, serverEnd); close(done) }()
		c, err := mcp.Connect(ctx, clientEnd, mcp.ClientOptions{Info: mcp.Implementation{Name: "repobench", Version: "1"}, Era: mcp.EraLegacy})
		if err != nil {
			return nil, nil, err
		}
		return c, func() { c.Close(); clientEnd.Close(); <-done }, nil
	}
	off, closeOff, err := connect(mcp.Options{})
	if err != nil {
		return filterStats{}, err
	}
	defer closeOff()
	on, closeOn, err := connect(mcp.Options{OutputFilter: inventory.SecretFilter(root)})
	if err != nil {
		return filterStats{}, err
	}
	defer closeOn()
	calls := filterCalls(g)
	round := func(c *mcp.Client) (time.Duration, time.Duration, int, error) {
		size := 0
		c0, t0 := cpuTime(), time.Now()
		for _, call := range calls {
			res, err := c.CallTool(ctx, call[0], json.RawMessage(call[1]))
			if err != nil {
				return 0, 0, 0, fmt.Errorf("%s: %w", call[0], err)
			}
			if res.IsError != nil && *res.IsError {
				return 0, 0, 0, fmt.Errorf("%s failed: %s", call[0], res.Content)
			}
			for _, b := range res.Content {
				size += len(b)
			}
			size += len(res.StructuredContent)
		}
		return time.Since(t0), cpuTime() - c0, size, nil
	}
	// Warm both: the analysis, the derived indexes, the filter's
	// configuration.
	for range 3 {
		for _, c := range []*mcp.Client{off, on} {
			if _, _, _, err := round(c); err != nil {
				return filterStats{}, err
			}
		}
	}
	st := filterStats{Rounds: rounds, Tools: len(calls)}
	var offs, ons, offCPU, onCPU []time.Duration
	for i := range rounds {
		first, second := off, on
		if i%2 == 1 {
			first, second = on, off
		}
		a, ac, size, err := round(first)
		if err != nil {
			return st, err
		}
		b, bc, _, err := round(second)
		if err != nil {
			return st, err
		}
		if first == on {
			a, b, ac, bc = b, a, bc, ac
		}
		st.Bytes = size
		offs, ons, offCPU, onCPU = append(offs, a), append(ons, b), append(offCPU, ac), append(onCPU, bc)
	}
	st.Off, st.On = measure.Pct(offs, 50), measure.Pct(ons, 50)
	st.OffCPU, st.OnCPU = measure.Pct(offCPU, 50), measure.Pct(onCPU, 50)
	st.Cost, st.WallCost = costOf(offCPU, onCPU), costOf(offs, ons)
	return st, nil
}
