package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionText(t *testing.T) {
	stamped := func(mainVersion string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/kontext-dev/kontext", Version: mainVersion}}
		info.Settings = append(info.Settings, debug.BuildSetting{Key: "GOOS", Value: "linux"}, debug.BuildSetting{Key: "GOARCH", Value: "amd64"})
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	const mcpLine = "MCP 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05\n"
	for _, tc := range []struct {
		name    string
		version string
		info    *debug.BuildInfo
		ok      bool
		want    string
	}{
		{
			"a clean checkout", defaultVersion,
			stamped("(devel)", "vcs", "git", "vcs.revision", "6edcb2b1c0ffee", "vcs.time", "2026-12-01T10:00:00Z", "vcs.modified", "false"), true,
			"kontext 0.1.0-dev\nrevision 6edcb2b1c0ffee (2026-12-01T10:00:00Z)\nbuilt with go1.26.8 for linux/amd64\n" + mcpLine,
		},
		{
			"uncommitted changes, Go's pseudo-version", defaultVersion,
			stamped("v0.0.0-20261201100000-6edcb2b1c0ff+dirty", "vcs.revision", "6edcb2b1c0ffee", "vcs.time", "2026-12-01T10:00:00Z", "vcs.modified", "true"), true,
			"kontext 0.1.0-dev\nrevision 6edcb2b1c0ffee (2026-12-01T10:00:00Z, with uncommitted changes)\nbuilt with go1.26.8 for linux/amd64\n" + mcpLine,
		},
		{
			"go install …@v1.2.3", defaultVersion, stamped("v1.2.3"), true,
			"kontext 1.2.3\nrevision unknown (not built from a git checkout)\nbuilt with go1.26.8 for linux/amd64\n" + mcpLine,
		},
		{
			"a version set with -ldflags wins", "2.0.0", stamped("v1.2.3"), true,
			"kontext 2.0.0\nrevision unknown (not built from a git checkout)\nbuilt with go1.26.8 for linux/amd64\n" + mcpLine,
		},
		{
			"no build information", defaultVersion, nil, false,
			"kontext 0.1.0-dev\nrevision unknown (not built from a git checkout)\n" + mcpLine,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionText(tc.version, tc.info, tc.ok); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestVersionCommandAndFlagAgree(t *testing.T) {
	var a, b, errs strings.Builder
	if code := Main([]string{"kontext", "version"}, Program{}, &a, &errs); code != 0 {
		t.Fatalf("kontext version: %d %s", code, errs.String())
	}
	if code := Main([]string{"kontext", "--version"}, Program{}, &b, &errs); code != 0 {
		t.Fatalf("kontext --version: %d %s", code, errs.String())
	}
	if a.String() != b.String() || !strings.HasPrefix(a.String(), "kontext ") {
		t.Errorf("kontext version:\n%s\nkontext --version:\n%s", a.String(), b.String())
	}
}
