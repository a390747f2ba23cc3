package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The checks each TypeScript script must report (testdata/node/ts-sdk-v*.mjs): a
// script that stops early or skips one fails the test.
var (
	tsCommonChecks = []string{
		"handshake",
		"tools/list",
		"call echo",
		"call add (structured)",
		"call choose (comma-separated tags)",
		"invalid argument type is -32602",
		"unknown argument is -32602",
		"tool failure is isError",
		"cancellation",
		"progress",
		"prompts/get greet",
		"resources/read testkit://status",
		"request timeout",
	}
	tsV1Checks = append(slices.Clone(tsCommonChecks), "resources/subscribe + updated", "tools/list_changed")
	tsV2Checks = append(slices.Clone(tsCommonChecks), "subscriptions/listen: resource updated", "subscriptions/listen: tools/list_changed")
)

type scriptCheck struct {
	Check  string          `json:"check"`
	OK     bool            `json:"ok"`
	Detail json.RawMessage `json:"detail"`
}

// TestTypeScriptSDKv1 drives kontext-testkit with the TypeScript SDK v1
// client (@modelcontextprotocol/sdk), which speaks the legacy era only and
// negotiates 2025-11-25.
func TestTypeScriptSDKv1(t *testing.T) {
	runScript(t, "ts-sdk-v1.mjs", tsV1Checks, "2025-11-25")
}

// TestTypeScriptSDKv1OverHTTP makes the same checks through the SDK's
// StreamableHTTPClientTransport against kontext-testkit mcp --http.
func TestTypeScriptSDKv1OverHTTP(t *testing.T) {
	runScript(t, "ts-sdk-v1.mjs", tsV1Checks, "2025-11-25", "KONTEXT_INTEROP_HTTP=1")
}

// TestTypeScriptSDKv2 drives kontext-testkit with the TypeScript SDK v2
// client (@modelcontextprotocol/client) pinned to 2026-07-28.
func TestTypeScriptSDKv2(t *testing.T) {
	runScript(t, "ts-sdk-v2.mjs", tsV2Checks, "2026-07-28")
}

// TestTypeScriptSDKv2OverHTTP makes the same checks, still pinned to
// 2026-07-28, through the SDK's StreamableHTTPClientTransport against
// kontext-testkit mcp --http.
func TestTypeScriptSDKv2OverHTTP(t *testing.T) {
	runScript(t, "ts-sdk-v2.mjs", tsV2Checks, "2026-07-28", "KONTEXT_INTEROP_HTTP=1")
}

// runScript runs a node script against kontext-testkit, with env added to
// the script's environment, and checks its report and the server's wire.
func runScript(t *testing.T, script string, want []string, revision string, env ...string) {
	node, dir := npmDir(t)
	root := t.TempDir()
	traces := t.TempDir()
	var stdout bytes.Buffer
	var stderr syncBuffer
	logOnFailure(t, script, &stderr)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, script), testkitBin, root)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "KONTEXT_TRACE="+traceFile(traces, "server")), env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()

	scriptChecks(t, script, &stdout, runErr, want)

	paths := tracesIn(t, traces)
	logs := readTraces(t, paths)
	t.Run("wire", func(t *testing.T) {
		checkPairing(t, logs)
		if revision >= firstModern && slices.Contains(env, "KONTEXT_INTEROP_HTTP=1") {
			// Over streamable HTTP a 2026-07-28 client cancels by closing
			// the response: there is no notifications/cancelled to see.
			checkUnanswered(t, logs, 10000)
		} else {
			checkCancelled(t, logs, 10000)
		}
		for _, l := range logs {
			for _, r := range l.Requests {
				if r.Revision != revision {
					t.Errorf("%s:%d: %s was served as %s, want %s", filepath.Base(l.Path), r.Line, r.Method, r.Revision, revision)
				}
			}
			if revision >= firstModern && len(l.find("initialize", nil)) > 0 {
				t.Errorf("%s: the client pinned to %s sent initialize", filepath.Base(l.Path), revision)
			}
		}
		// The timeout server answered the 3 s sleep with -32603 after 500 ms.
		timedOut := false
		for _, l := range logs {
			for _, m := range l.out() {
				if m.Req != nil && len(m.Error) > 0 && slices.Contains(l.find("tools/call", isSleep(3000)), m.Req) {
					var e struct {
						Code int64 `json:"code"`
						Data struct {
							TimeoutMs int64 `json:"timeoutMs"`
						} `json:"data"`
					}
					_ = json.Unmarshal(m.Error, &e)
					timedOut = e.Code == -32603 && e.Data.TimeoutMs == 500
				}
			}
		}
		if !timedOut {
			t.Error("no trace shows the 3 s sleep answered with -32603 and data.timeoutMs 500")
		}
	})
	t.Run("schema", func(t *testing.T) { validateWire(t, logs) })
}

// scriptChecks reads the checks a node script printed (one JSON object a
// line), runs each as a subtest, and fails when one failed, one in want is
// missing, or the exit status disagrees with them.
func scriptChecks(t *testing.T, script string, stdout *bytes.Buffer, runErr error, want []string) []scriptCheck {
	t.Helper()
	var got []scriptCheck
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var c scriptCheck
		if err := json.Unmarshal(line, &c); err != nil || c.Check == "" {
			t.Errorf("%s printed a line that is not a check: %s", script, line)
			continue
		}
		got = append(got, c)
	}
	failed := 0
	seen := map[string]bool{}
	for _, c := range got {
		seen[c.Check] = true
		t.Run(c.Check, func(t *testing.T) {
			if !c.OK {
				t.Errorf("%s: %s", script, c.Detail)
				return
			}
			t.Logf("%s", c.Detail)
		})
		if !c.OK {
			failed++
		}
	}
	for _, name := range want {
		if !seen[name] {
			t.Errorf("%s did not report check %q", script, name)
		}
	}
	var exitErr *exec.ExitError
	switch {
	case runErr == nil && failed > 0:
		t.Errorf("%s exited 0 although %d check(s) failed", script, failed)
	case errors.As(runErr, &exitErr) && failed == 0:
		t.Errorf("%s exited with %v but reported no failed check", script, runErr)
	case runErr != nil && !errors.As(runErr, &exitErr):
		t.Fatalf("running %s: %v", script, runErr)
	}
	return got
}
