package manifest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/internal/procstart"
)

const id = "abcdefghijklmnopqrstuvwxyz"

func valid(t *testing.T) map[string]any {
	t.Helper()
	start, err := procstart.Of(os.Getpid())
	if err != nil {
		t.Skip(err)
	}
	return map[string]any{
		"profile": appcontext.ProfileVersion, "appId": "dev.kontext.notes", "appName": "Notes", "appVersion": "1.0.0",
		"instanceId": id, "pid": os.Getpid(), "processStart": start, "startedAt": time.Now().UTC().Format(time.RFC3339),
		"workspaces": []string{"/tmp"},
		"mcp": map[string]any{"transport": "streamable-http", "url": "http://127.0.0.1:4000/mcp",
			"protocolVersions": []string{"2025-11-25"}, "auth": map[string]any{"scheme": "bearer", "token": strings.Repeat("ab", 32)}},
	}
}

func write(t *testing.T, doc map[string]any, fileMode, dirMode os.FileMode) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "instances")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc)
	path := filepath.Join(dir, id+".json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, fileMode)
	os.Chmod(dir, dirMode)
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	return path
}

func TestLoadChecksInOrder(t *testing.T) {
	m, err := Load(write(t, valid(t), 0o600, 0o700))
	if err != nil || m.InstanceID != id || m.Mcp.URL != "http://127.0.0.1:4000/mcp" {
		t.Fatalf("valid manifest: %+v, %v", m, err)
	}
	for name, tc := range map[string]struct {
		edit              func(map[string]any)
		fileMode, dirMode os.FileMode
		stage, reason     string
	}{
		"file readable by others":  {nil, 0o644, 0o700, StageFile, "mode 0644"},
		"folder open to others":    {nil, 0o600, 0o755, StageFile, "folder has mode 0755"},
		"missing key":              {func(d map[string]any) { delete(d, "pid") }, 0o600, 0o700, StageSchema, "pid"},
		"wrong profile":            {func(d map[string]any) { d["profile"] = "appcontext-mcp/9" }, 0o600, 0o700, StageSchema, "appcontext-mcp/9"},
		"no endpoint":              {func(d map[string]any) { delete(d, "mcp") }, 0o600, 0o700, StageSchema, "websocket"},
		"host name":                {func(d map[string]any) { d["mcp"].(map[string]any)["url"] = "http://localhost:4000/mcp" }, 0o600, 0o700, StageEndpoint, "not an IP literal"},
		"not loopback":             {func(d map[string]any) { d["mcp"].(map[string]any)["url"] = "http://10.0.0.1:4000/mcp" }, 0o600, 0o700, StageEndpoint, "not loopback"},
		"https is not the profile": {func(d map[string]any) { d["mcp"].(map[string]any)["url"] = "ws://127.0.0.1:4000/mcp" }, 0o600, 0o700, StageEndpoint, "not http://"},
		"file name and id differ":  {func(d map[string]any) { d["instanceId"] = strings.Repeat("b", 26) }, 0o600, 0o700, StageSchema, "holds instance"},
	} {
		t.Run(name, func(t *testing.T) {
			doc := valid(t)
			if tc.edit != nil {
				tc.edit(doc)
			}
			_, err := Load(write(t, doc, tc.fileMode, tc.dirMode))
			var f *Failure
			if !errors.As(err, &f) || f.Stage != tc.stage || !strings.Contains(f.Reason, tc.reason) {
				t.Fatalf("got %v, want stage %s with %q", err, tc.stage, tc.reason)
			}
		})
	}
	dir := t.TempDir()
	path := filepath.Join(dir, id+".json")
	os.WriteFile(path, []byte("{not json"), 0o600)
	os.Chmod(dir, 0o700)
	if m, err := Load(path); m != nil || err == nil || !strings.Contains(err.Error(), "schema: the manifest is not JSON") {
		t.Fatalf("bad JSON: %v, %v", m, err)
	}
}

func TestLive(t *testing.T) {
	doc := valid(t)
	m, err := Load(write(t, doc, 0o600, 0o700))
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := Live(m); !ok {
		t.Fatalf("this process is not live: %s", why)
	}
	reused := *m
	reused.ProcessStart = "1"
	if ok, why := Live(&reused); ok || !strings.Contains(why, "reused") {
		t.Fatalf("a reused pid: %v %s", ok, why)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	dead := *m
	dead.Pid = cmd.Process.Pid
	if ok, _ := Live(&dead); ok {
		t.Fatal("a finished process is live")
	}
}

// A manifest is whatever some process wrote: no bytes make Parse panic,
// and what it accepts names a loopback endpoint.
func FuzzParse(f *testing.F) {
	doc := map[string]any{
		"profile": appcontext.ProfileVersion, "appId": "dev.kontext.notes", "appName": "Notes", "appVersion": "1.0.0",
		"instanceId": id, "pid": 1, "processStart": "1", "startedAt": "2026-12-04T00:00:00Z", "workspaces": []string{"/tmp"},
		"mcp": map[string]any{"transport": "streamable-http", "url": "http://127.0.0.1:4000/mcp",
			"protocolVersions": []string{"2025-11-25"}, "auth": map[string]any{"scheme": "bearer", "token": strings.Repeat("ab", 32)}},
	}
	b, _ := json.Marshal(doc)
	f.Add(b)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"instanceId":"x","mcp":{"url":"http://[::1]:1/mcp"}}`))
	f.Add([]byte(`{"websocket":{"url":"ws://127.0.0.1:1/ws"}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := Parse(filepath.Join("instances", id+".json"), raw)
		if err != nil {
			return
		}
		if m == nil || m.InstanceID != id {
			t.Fatalf("accepted %q as %+v", raw, m)
		}
		if CheckEndpoint(m) != nil {
			t.Fatalf("accepted %q, whose endpoint fails its own check", raw)
		}
	})
}
