package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/mod/module"

	"github.com/kontext-dev/kontext/internal/mcp"
)

func init() {
	// `kontext --version` prints what `kontext version` does; -v stays free.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version, the revision it was built from and the MCP revisions"}
	cli.VersionPrinter = func(c *cli.Context) {
		info, ok := debug.ReadBuildInfo()
		fmt.Fprint(c.App.Writer, versionText(Version, info, ok))
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:     "version",
		Category: CategorySetup,
		Usage:    "print the version, the revision it was built from and the MCP revisions",
		Action: func(c *cli.Context) error {
			cli.VersionPrinter(c)
			return nil
		},
	}
}

// versionText says which kontext this is: the version, the commit and
// commit time go build stamped from the checkout it was built in (and
// whether that checkout had uncommitted changes), the Go release, and the
// MCP revisions served. Without VCS stamps (a build outside a checkout, or
// with -buildvcs=false) it says so rather than guessing.
func versionText(version string, info *debug.BuildInfo, ok bool) string {
	settings := map[string]string{}
	goVersion := ""
	if ok && info != nil {
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		goVersion = info.GoVersion
		// A release installed with go install …@vX.Y.Z knows its version.
		if v := info.Main.Version; version == defaultVersion && isRelease(v) {
			version = strings.TrimPrefix(v, "v")
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kontext %s\n", version)
	if rev := settings["vcs.revision"]; rev != "" {
		var about []string
		if t := settings["vcs.time"]; t != "" {
			about = append(about, t)
		}
		if settings["vcs.modified"] == "true" {
			about = append(about, "with uncommitted changes")
		}
		fmt.Fprintf(&b, "revision %s", rev)
		if len(about) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(about, ", "))
		}
		b.WriteString("\n")
	} else {
		b.WriteString("revision unknown (not built from a git checkout)\n")
	}
	if goVersion != "" {
		fmt.Fprintf(&b, "built with %s for %s/%s\n", goVersion, settings["GOOS"], settings["GOARCH"])
	}
	fmt.Fprintf(&b, "MCP %s\n", strings.Join(mcp.SupportedVersions(), ", "))
	return b.String()
}

const defaultVersion = "0.1.0-dev"

func isRelease(v string) bool {
	return strings.HasPrefix(v, "v") && !module.IsPseudoVersion(v) && !strings.Contains(v, "+")
}
