// Command appsbench measures the apps toolset (kontext mcp --toolsets apps,
// the App Context broker) under 50 application instances:
//
//   - discovery: from an instance's manifest appearing in the runtime
//     folder to its typed tools being listed by a client that follows
//     notifications/tools/list_changed (per instance, and for all of them
//     started at once), and the same for one more instance joining (and
//     leaving) a broker already serving the others;
//   - tools/list with every instance's typed tools (all pages);
//   - a state change in an application to the broker's
//     notifications/resources/updated at the client;
//   - a brokered call's overhead: list_notes called on the application
//     directly and through the broker's typed tool.
//
// It is run by `make bench` (go run ./bench/appsbench), and end to end on
// 3 instances by its smoke test. The applications are real examples/notes
// processes, each with its own loopback port, token and manifest, not
// applications in the bench's process: that is what the broker meets on a
// user's machine (its liveness pass checks each manifest's pid and start
// time; one process would serve all 50 from one scheduler and one heap and
// hide the cost of 50 processes competing for the CPUs). Both binaries are
// built once into a temporary folder; APPCONTEXT_RUNTIME_DIR points the
// applications and the broker at a temporary runtime folder.
//
// The client is kontext's own (internal/mcp) over the broker's stdio, in
// the legacy era (initialize, resources/subscribe); with -modern (the
// default) a second broker, started once the first has gone, is measured
// again in 2026-07-28 (subscriptions/listen) for tools/list, updates and
// calls. The broker reaches the applications over streamable HTTP in
// whichever era they negotiate (the direct calls negotiate the same way,
// so both sides of the overhead ratio speak alike to the application). A
// tools/list cursor gone stale while instances appear is listed again from
// the start, as the server asks; the timed tools/list decodes only the
// cursor, the client's decoding of the tools is left out. Nothing here asserts a time: the bench
// fails only when it cannot measure.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/kontext-dev/kontext/bench/internal/measure"
)

// config is what the flags set.
type config struct {
	instances int
	lists     int // timed tools/list
	changes   int // timed state changes
	calls     int // timed calls, each way
	joins     int // runs of one more instance joining
	warmup    int
	modern    bool          // measure again through a broker spoken to in 2026-07-28
	timeout   time.Duration // bounds every wait
	kontext   string        // prebuilt binaries ("" builds them)
	notes     string
	progress  io.Writer
}

func main() {
	cfg := config{progress: os.Stderr}
	flag.IntVar(&cfg.instances, "instances", 50, "examples/notes processes to start")
	flag.IntVar(&cfg.lists, "lists", 200, "timed tools/list")
	flag.IntVar(&cfg.changes, "changes", 500, "timed state changes, round robin over the instances")
	flag.IntVar(&cfg.calls, "calls", 500, "timed list_notes calls each way (direct and brokered), interleaved")
	flag.IntVar(&cfg.joins, "joins", 5, "runs of one more instance joining and leaving the others")
	flag.IntVar(&cfg.warmup, "warmup", 20, "untimed requests before each timed series")
	flag.BoolVar(&cfg.modern, "modern", true, "measure tools/list, updates and calls again through a second broker spoken to in 2026-07-28")
	flag.DurationVar(&cfg.timeout, "timeout", time.Minute, "longest any one wait may take before the bench gives up")
	flag.StringVar(&cfg.kontext, "kontext", "", "the kontext binary (default: build ./cmd/kontext)")
	flag.StringVar(&cfg.notes, "notes", "", "the examples/notes binary (default: build ./examples/notes)")
	flag.Parse()
	if cfg.instances < 1 || cfg.lists < 1 || cfg.changes < 1 || cfg.calls < 1 || cfg.joins < 0 || cfg.warmup < 0 {
		fmt.Fprintln(os.Stderr, "appsbench: -instances, -lists, -changes and -calls must be at least 1, -joins and -warmup at least 0")
		os.Exit(2)
	}
	load := measure.LoadLine()
	r, err := run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "appsbench:", err)
		os.Exit(1)
	}
	printReport(os.Stdout, cfg, r, load, measure.LoadLine())
}

// printReport prints the figures as the other benches do: one row per
// measurement, p50 and p99 (and max where the tail matters), then ratios.
func printReport(w io.Writer, cfg config, r *report, loadBefore, loadAfter string) {
	fmt.Fprintf(w, "\nappsbench: %d examples/notes processes under kontext mcp --toolsets apps, its client on stdio\n", r.Instances)
	fmt.Fprintf(w, "go %s, %d CPUs, %s before, %s after\n\n", runtime.Version(), runtime.NumCPU(), loadBefore, loadAfter)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tn\tp50\tp99\tmax\t")
	row := func(label string, ds []time.Duration) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t\n", label, len(ds), measure.Ms(measure.Pct(ds, 50)), measure.Ms(measure.Pct(ds, 99)), measure.Ms(measure.Pct(ds, 100)))
	}
	skipped := func(label string) { fmt.Fprintf(tw, "%s\t-\tnot measured\t\t\t\n", label) }
	row(fmt.Sprintf("manifest → typed tools listed, %d started at once", r.Instances), r.Discovery)
	if len(r.Join) > 0 {
		row(fmt.Sprintf("manifest → typed tools listed, 1 joining %d", r.Instances), r.Join)
		row(fmt.Sprintf("manifest removed → typed tools gone, 1 leaving %d", r.Instances), r.Leave)
	}
	eras := []*series{&r.Legacy}
	if r.Modern != nil {
		eras = append(eras, r.Modern)
	}
	for _, s := range eras {
		era := s.ClientEra + ": "
		row(era+fmt.Sprintf("tools/list, %d tools in %d pages", s.Tools, s.Pages), s.ToolsList)
		if s.UpdatedSkipped != "" {
			skipped(era + "state change → resources/updated")
		} else {
			row(era+"state change → resources/updated", s.Updated)
		}
		row(era+fmt.Sprintf("list_notes direct (HTTP, %s)", s.DirectEra), s.Direct)
		row(era+"list_notes brokered (typed tool)", s.Brokered)
	}
	tw.Flush()

	fmt.Fprintln(w)
	fmt.Fprintf(w, "  all %d instances: first launch → last listed %s; first manifest → last listed %s\n", r.Instances, measure.Ms(r.LaunchToAll), measure.Ms(r.ManifestToAll))
	fmt.Fprintf(w, "  discovery lists: %d after notifications/tools/list_changed, %d by the %s fallback poll; %d listed again\n  from the start for a cursor gone stale (the list changed between pages)\n", r.ListsNotified, r.ListsPolled, fallbackPoll, r.StaleCursors)
	fmt.Fprintf(w, "  state changes: add_note called directly on the application (it publishes notes and count), timed to the first\n  resources/updated of its …/state at the broker's client\n")
	for _, s := range eras {
		d50, b50 := measure.Pct(s.Direct, 50), measure.Pct(s.Brokered, 50)
		fmt.Fprintf(w, "  %s: tools/list answer %s (%d typed tools, plus the stable ones), p50 %s per listed tool\n", s.ClientEra, formatBytes(s.ListBytes), s.Typed, formatMicros(measure.Pct(s.ToolsList, 50), s.Tools))
		fmt.Fprintf(w, "  %s: ratio brokered/direct call p50 %.2f× (the broker adds %s)\n", s.ClientEra, measure.Ratio(float64(b50), float64(d50)), measure.Ms(b50-d50))
		if s.UpdatedSkipped != "" {
			fmt.Fprintf(w, "  %s: resources/updated NOT MEASURED: %s\n", s.ClientEra, s.UpdatedSkipped)
		}
	}
	if r.ModernSkipped != "" {
		fmt.Fprintf(w, "  2026-07-28 NOT MEASURED: %s\n", r.ModernSkipped)
	}
	fmt.Fprintf(w, "  legacy broker peak RSS (VmHWM): %s; %d audit lines for %d brokered calls\n", formatKiB(r.BrokerRSSKiB), r.AuditLines, r.BrokeredCalls)
}

func formatBytes(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

func formatKiB(kib int64) string {
	if kib <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(kib)/1024)
}

func formatMicros(d time.Duration, n int) string {
	if n <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f µs", float64(d.Microseconds())/float64(n))
}
