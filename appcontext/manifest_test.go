package appcontext_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/internal/apps/manifest"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/procstart"
	schema "github.com/kontext-dev/kontext/schema/appcontext"
)

// manifestSchema is schema/appcontext/manifest.json compiled as
// internal/apps/manifest compiles it (formats asserted), but applied to
// the whole manifest, its endpoint URLs included.
func manifestSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.ManifestSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const id = "https://kontext.dev/schema/appcontext/manifest.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validateManifest(t *testing.T, raw []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the manifest is not JSON: %v\n%s", err, raw)
	}
	if err := manifestSchema(t).Validate(doc); err != nil {
		t.Errorf("the manifest is not valid against schema/appcontext/manifest.json: %v\n%s", err, raw)
	}
}

func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s is not a JSON object: %v", raw, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sorted(s ...string) []string { slices.Sort(s); return s }

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

var (
	instanceIDPattern = regexp.MustCompile(`^[a-z2-7]{26}$`)
	hexToken          = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// TestManifest is issue 14 point 1 from the application's side: where the
// manifest goes (APPCONTEXT_RUNTIME_DIR), its modes, its schema, its keys
// and what they say.
func TestManifest(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("APPCONTEXT_RUNTIME_DIR", rt)
	ws := t.TempDir()
	app, err := appcontext.New(appcontext.Options{AppID: "dev.example.test", Name: "Test", Version: "1.2.3", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().UTC().Truncate(time.Second)
	s := serve(t, app)
	after := time.Now().UTC()

	dir := filepath.Join(rt, "appcontext", "instances")
	if want := filepath.Join(dir, app.InstanceID()+".json"); s.path != want {
		t.Fatalf("ManifestPath() = %s, want %s", s.path, want)
	}
	if got := mode(t, dir); got != 0o700 {
		t.Errorf("the instances folder has mode %04o, want 0700", got)
	}
	if got := mode(t, filepath.Join(rt, "appcontext")); got != 0o700 {
		t.Errorf("the appcontext folder (created by the application) has mode %04o, want 0700", got)
	}
	if got := mode(t, s.path); got != 0o600 {
		t.Errorf("the manifest has mode %04o, want 0600", got)
	}
	// Written atomically: nothing but the manifest is left in the folder.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != app.InstanceID()+".json" {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the instances folder holds %v, want only the manifest", names)
	}

	raw, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	validateManifest(t, raw)
	// The broker's own checks (owner, modes, schema, endpoint) pass too.
	if _, err := manifest.Load(s.path); err != nil {
		t.Errorf("internal/apps/manifest refuses the manifest: %v", err)
	}

	// Exactly the keys of issue 14 point 1.
	if got, want := keysOf(t, raw), sorted("profile", "appId", "appName", "appVersion", "instanceId", "pid", "processStart", "startedAt", "workspaces", "mcp"); !slices.Equal(got, want) {
		t.Errorf("manifest keys %v, want %v", got, want)
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(raw, &top)
	if got, want := keysOf(t, top["mcp"]), sorted("transport", "url", "protocolVersions", "auth"); !slices.Equal(got, want) {
		t.Errorf("mcp keys %v, want %v", got, want)
	}
	var ep map[string]json.RawMessage
	_ = json.Unmarshal(top["mcp"], &ep)
	if got, want := keysOf(t, ep["auth"]), sorted("scheme", "token"); !slices.Equal(got, want) {
		t.Errorf("mcp.auth keys %v, want %v", got, want)
	}

	// What the keys say.
	var m appcontext.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.Profile != appcontext.ProfileVersion || m.AppID != "dev.example.test" || m.AppName != "Test" || m.AppVersion != "1.2.3" {
		t.Errorf("profile %q, appId %q, appName %q, appVersion %q", m.Profile, m.AppID, m.AppName, m.AppVersion)
	}
	if m.InstanceID != app.InstanceID() || !instanceIDPattern.MatchString(m.InstanceID) {
		t.Errorf("instanceId %q (the app says %q), want 26 base32 characters", m.InstanceID, app.InstanceID())
	}
	if m.Pid != os.Getpid() {
		t.Errorf("pid %d, want %d", m.Pid, os.Getpid())
	}
	if start, err := procstart.Of(os.Getpid()); err == nil && m.ProcessStart != start {
		t.Errorf("processStart %q, want %q", m.ProcessStart, start)
	}
	if m.StartedAt.Before(before) || m.StartedAt.After(after) {
		t.Errorf("startedAt %s is not between %s and %s", m.StartedAt, before, after)
	}
	if !slices.Equal(m.Workspaces, []string{ws}) {
		t.Errorf("workspaces %v, want [%s]", m.Workspaces, ws)
	}
	if m.Websocket != nil {
		t.Errorf("a current application's manifest names a WebSocket endpoint: %+v", m.Websocket)
	}
	if m.Mcp == nil {
		t.Fatal("no mcp endpoint")
	}
	if m.Mcp.Transport != "streamable-http" || m.Mcp.Auth.Scheme != "bearer" {
		t.Errorf("transport %q, auth scheme %q", m.Mcp.Transport, m.Mcp.Auth.Scheme)
	}
	if !slices.Equal(m.Mcp.ProtocolVersions, mcp.SupportedVersions()) || !slices.Contains(m.Mcp.ProtocolVersions, "2025-11-25") || !slices.Contains(m.Mcp.ProtocolVersions, "2026-07-28") {
		t.Errorf("protocolVersions %v, want the runtime's %v (both eras)", m.Mcp.ProtocolVersions, mcp.SupportedVersions())
	}
	checkToken(t, m.Mcp.Auth.Token)
	checkLoopbackURL(t, m.Mcp.URL, "http")
	if got := app.Manifest(); !manifestsEqual(got, m) {
		t.Errorf("Manifest() = %+v, the file says %+v", got, m)
	}
}

func manifestsEqual(a, b appcontext.Manifest) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// checkToken insists on 256 random bits: the profile's form is 64
// lowercase hex characters (not 43 base64url ones).
func checkToken(t *testing.T, token string) {
	t.Helper()
	if !hexToken.MatchString(token) {
		t.Errorf("token %q is not 64 lowercase hex characters", token)
		return
	}
	b, _ := hex.DecodeString(token)
	if len(b) != 32 {
		t.Errorf("token decodes to %d bytes, want 32 (256 bits)", len(b))
	}
	if bytes.Count(b, []byte{b[0]}) == len(b) {
		t.Errorf("token %s is one byte repeated", token)
	}
}

// checkLoopbackURL insists on a loopback IP literal with a port: never a
// host name.
func checkLoopbackURL(t *testing.T, raw, scheme string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("endpoint %q: %v", raw, err)
	}
	if u.Scheme != scheme {
		t.Errorf("endpoint %q is not %s://", raw, scheme)
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || !ip.IsLoopback() {
		t.Errorf("endpoint host %q is not a loopback IP literal", u.Hostname())
	}
	if p, err := strconv.Atoi(u.Port()); err != nil || p <= 0 || p > 65535 {
		t.Errorf("endpoint %q has no port", raw)
	}
}

// TestManifestIDsAndTokens: every New mints a distinct instanceId, every
// launch a distinct token.
func TestManifestIDsAndTokens(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		id := newApp(t, t.TempDir()).InstanceID()
		if !instanceIDPattern.MatchString(id) {
			t.Fatalf("instanceId %q is not 26 lowercase base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("instanceId %s was minted twice", id)
		}
		seen[id] = true
	}
	rt := t.TempDir()
	a, b := serve(t, newApp(t, rt)), serve(t, newApp(t, rt))
	if a.m.Mcp.Auth.Token == b.m.Mcp.Auth.Token {
		t.Errorf("two launches share the token %s", a.m.Mcp.Auth.Token)
	}
	if a.m.Mcp.URL == b.m.Mcp.URL {
		t.Errorf("two launches share the endpoint %s", a.m.Mcp.URL)
	}
	if a.path == b.path {
		t.Errorf("two launches share the manifest %s", a.path)
	}
}

// TestManifestRemovedOnCleanExit: cancelling Serve's context removes the
// manifest, closes the endpoint and makes Serve return nil.
func TestManifestRemovedOnCleanExit(t *testing.T) {
	s := serve(t, newApp(t, t.TempDir()))
	if _, err := os.Stat(s.path); err != nil {
		t.Fatal(err)
	}
	if err := s.stop(); err != nil {
		t.Fatalf("Serve after its context ended: %v, want nil", err)
	}
	if _, err := os.Stat(s.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the manifest outlived a clean exit: %v", err)
	}
	c := &http.Client{Timeout: 2 * time.Second}
	if resp, err := c.Post(s.m.Mcp.URL, "application/json", strings.NewReader(`{}`)); err == nil {
		resp.Body.Close()
		t.Errorf("the endpoint still answers (%s) after Serve returned", resp.Status)
	}
}

// TestManifestLegacyWebSocket: an old-style launch names only a WebSocket
// endpoint, still valid against the schema.
func TestManifestLegacyWebSocket(t *testing.T) {
	app, err := appcontext.New(appcontext.Options{AppID: "dev.example.old", Name: "Old", Version: "0.9", RuntimeDir: t.TempDir(), LegacyWebSocket: true})
	if err != nil {
		t.Fatal(err)
	}
	s := serve(t, app)
	raw, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	validateManifest(t, raw)
	if got, want := keysOf(t, raw), sorted("profile", "appId", "appName", "appVersion", "instanceId", "pid", "processStart", "startedAt", "workspaces", "websocket"); !slices.Equal(got, want) {
		t.Errorf("legacy manifest keys %v, want %v", got, want)
	}
	if s.m.Websocket == nil {
		t.Fatal("no websocket endpoint")
	}
	checkLoopbackURL(t, s.m.Websocket.URL, "ws")
	checkToken(t, s.m.Websocket.Token)
	if !slices.Equal(s.m.Workspaces, []string{}) {
		t.Errorf("workspaces %v, want []", s.m.Workspaces)
	}
}

// TestWriteManifestAtomic: a reader racing rewrites of the manifest only
// ever sees a whole one, and no temporary file is left behind; a folder
// that exists with a wider mode is made private.
func TestWriteManifestAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "instances")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := &appcontext.Manifest{
		Profile: appcontext.ProfileVersion, AppID: "dev.example.test", AppName: "Test", AppVersion: "1",
		InstanceID: newApp(t, "").InstanceID(), Pid: os.Getpid(), ProcessStart: "1", StartedAt: time.Now().UTC().Truncate(time.Second),
		Workspaces: []string{},
		Mcp: &appcontext.MCPEndpoint{Transport: "streamable-http", URL: "http://127.0.0.1:1/mcp", ProtocolVersions: []string{"2025-11-25"},
			Auth: appcontext.BearerAuth{Scheme: "bearer", Token: strings.Repeat("ab", 32)}},
	}
	path, err := appcontext.WriteManifest(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if got := mode(t, dir); got != 0o700 {
		t.Errorf("WriteManifest left the folder at %04o, want 0700", got)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var torn []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(path)
			if err != nil {
				torn = append(torn, "read: "+err.Error())
				continue
			}
			if !json.Valid(b) {
				torn = append(torn, string(b))
			}
		}
	}()
	for i := range 300 {
		// Alternate a long and a short manifest, so that a torn write
		// would show.
		m.Workspaces = []string{}
		if i%2 == 0 {
			for j := range 50 {
				m.Workspaces = append(m.Workspaces, "/workspace/"+strconv.Itoa(j)+strings.Repeat("x", 20))
			}
		}
		if _, err := appcontext.WriteManifest(dir, m); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if len(torn) > 0 {
		t.Errorf("a reader saw %d torn or missing manifests, the first: %.200s", len(torn), torn[0])
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries after 300 rewrites, want 1", len(entries))
	}
	if got := mode(t, path); got != 0o600 {
		t.Errorf("the manifest has mode %04o, want 0600", got)
	}
	if err := appcontext.RemoveManifest(path); err != nil {
		t.Fatal(err)
	}
	if err := appcontext.RemoveManifest(path); err != nil {
		t.Errorf("removing a manifest already gone: %v, want nil", err)
	}
	for _, bad := range []string{"", "../escape", "a/b", ".hidden"} {
		m.InstanceID = bad
		if _, err := appcontext.WriteManifest(dir, m); err == nil {
			t.Errorf("WriteManifest took instanceId %q", bad)
		}
	}
}

// TestRuntimeDir: APPCONTEXT_RUNTIME_DIR, else XDG_RUNTIME_DIR, else the
// user cache directory, else a per-user folder under the temp dir.
func TestRuntimeDir(t *testing.T) {
	app, xdg, cache, home := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	want := func(dir string) {
		t.Helper()
		got, err := appcontext.RuntimeDir()
		if err != nil {
			t.Fatalf("RuntimeDir: %v", err)
		}
		if got != dir {
			t.Errorf("RuntimeDir() = %s, want %s", got, dir)
		}
		inst, err := appcontext.InstancesDir()
		if err != nil || inst != filepath.Join(dir, "appcontext", "instances") {
			t.Errorf("InstancesDir() = %s, %v; want %s/appcontext/instances", inst, err, dir)
		}
	}
	t.Setenv("APPCONTEXT_RUNTIME_DIR", app)
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", home)
	want(app)

	t.Setenv("APPCONTEXT_RUNTIME_DIR", "")
	want(xdg)

	t.Setenv("XDG_RUNTIME_DIR", "")
	userCache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && userCache != cache {
		t.Fatalf("os.UserCacheDir() = %s with XDG_CACHE_HOME=%s", userCache, cache)
	}
	want(userCache)

	// No cache directory either (Unix: neither XDG_CACHE_HOME nor HOME).
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if _, err := os.UserCacheDir(); err != nil {
		want(filepath.Join(os.TempDir(), "appcontext-"+strconv.Itoa(os.Getuid())))
	} else {
		t.Logf("os.UserCacheDir() works without HOME on %s; the temp-dir fallback is not reached", runtime.GOOS)
	}

	t.Setenv("APPCONTEXT_RUNTIME_DIR", "relative/dir")
	if dir, err := appcontext.RuntimeDir(); err == nil {
		t.Errorf("a relative APPCONTEXT_RUNTIME_DIR gave %s, want an error", dir)
	}
}
