package inventory

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/internal/apps/check"
	kcli "github.com/kontext-dev/kontext/internal/cli"
)

// appsCommand is kontext apps: the App Context applications of this user,
// seen from outside the broker.
func appsCommand() *cli.Command {
	return &cli.Command{
		Name:     "apps",
		Category: kcli.CategoryServing,
		Usage:    "check running App Context applications against the profile (what kontext mcp --toolsets apps brokers)",
		Subcommands: []*cli.Command{{
			Name:  "check",
			Usage: "run the App Context MCP Profile 0.1 conformance rules against live applications (one line per rule; exit 1 on a failure)",
			Description: "Checks a running application the way the broker meets it — its manifest's schema, place and modes,\n" +
				"its endpoint's token, Origin and Host checks, the instance it answers as — then its surface: every\n" +
				"action's dialect, destructiveness and confirmation, its state's keys and subscriptions, its events\n" +
				"journal. It calls no action. With neither flag, every instance in the runtime directory is checked\n" +
				"(APPCONTEXT_RUNTIME_DIR, else XDG_RUNTIME_DIR, else the user cache directory). A rule that needs one\n" +
				"that failed is reported as failed, \"skipped: <rule> failed\". docs/appcontext-profile.md lists the rules.\n\n" +
				"   kontext apps check\n" +
				"   kontext apps check --instance 3xq7…",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "instance", Usage: "check the instance with this `ID` (as kontext's apps_list names it)"},
				&cli.StringFlag{Name: "manifest", Usage: "check the application whose manifest is `FILE` (its place is checked too)"},
			},
			Action: appsCheck,
		}},
	}
}

func appsCheck(c *cli.Context) error {
	if err := kcli.CheckArgs(c, 0); err != nil {
		return err
	}
	if c.IsSet("instance") && c.IsSet("manifest") {
		return cli.Exit("--instance and --manifest name the application two ways: give one", 2)
	}
	rt, err := appcontext.RuntimeDir()
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	var paths []string
	switch {
	case c.IsSet("instance"):
		id := c.String("instance")
		if id == "" || filepath.Base(id) != id || strings.HasPrefix(id, ".") {
			return cli.Exit(fmt.Sprintf("--instance %q is no instance id", id), 2)
		}
		path := filepath.Join(appcontext.InstancesDirIn(rt), id+".json")
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			return cli.Exit(fmt.Sprintf("no instance %s in %s (kontext apps check with neither flag checks every one there)", id, appcontext.InstancesDirIn(rt)), 1)
		}
		paths = []string{path}
	case c.IsSet("manifest"):
		paths = []string{c.String("manifest")}
	default:
		if paths, err = check.Instances(rt); err != nil {
			return cli.Exit(fmt.Sprintf("listing the instances: %v", err), 1)
		}
		if len(paths) == 0 {
			return cli.Exit(fmt.Sprintf("no App Context instance in %s (start an application, or name one with --manifest FILE)", appcontext.InstancesDirIn(rt)), 1)
		}
	}
	failed := 0
	for i, p := range paths {
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		rep := check.Check(c.Context, p, check.Options{RuntimeDir: rt, Version: kcli.Version})
		printReport(c.App.Writer, rep)
		if rep.Failed() {
			failed++
		}
	}
	if failed > 0 {
		if len(paths) > 1 {
			return cli.Exit(fmt.Sprintf("%d of %d instances do not conform", failed, len(paths)), 1)
		}
		return cli.Exit("", 1)
	}
	return nil
}

// printReport writes a heading for the instance, then one line per rule:
// "pass  <rule>  <title>" or "FAIL  <rule>  <reason>", the ids aligned.
func printReport(w io.Writer, rep *check.Report) {
	head := rep.Path
	if m := rep.Manifest; m != nil {
		head = fmt.Sprintf("%s %s (%s), instance %s: %s", m.AppName, m.AppVersion, m.AppID, m.InstanceID, rep.Path)
	}
	fmt.Fprintln(w, head)
	width := 0
	for _, r := range check.Rules() {
		width = max(width, len(r.ID))
	}
	titles := map[string]string{}
	for _, r := range check.Rules() {
		titles[r.ID] = r.Title
	}
	failed := 0
	for _, res := range rep.Results {
		if res.Pass {
			fmt.Fprintf(w, "pass  %-*s  %s\n", width, res.Rule, titles[res.Rule])
			continue
		}
		failed++
		fmt.Fprintf(w, "FAIL  %-*s  %s\n", width, res.Rule, res.Reason)
	}
	fmt.Fprintf(w, "%d rules: %d pass, %d fail\n", len(rep.Results), len(rep.Results)-failed, failed)
}
