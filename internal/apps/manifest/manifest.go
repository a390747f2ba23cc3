// Package manifest reads an App Context manifest and checks it as the
// broker and kontext apps check must, in the profile's order: the file's
// owner and modes, its schema, its endpoint. It also tells whether the
// process that wrote it is still running.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/kontext-dev/kontext/appcontext"
	genac "github.com/kontext-dev/kontext/gen/appcontext"
	"github.com/kontext-dev/kontext/internal/apps/results"
	"github.com/kontext-dev/kontext/internal/procstart"
	schema "github.com/kontext-dev/kontext/schema/appcontext"
)

// The stages of the checks, in order.
const (
	StageFile     = "file"
	StageSchema   = "schema"
	StageEndpoint = "endpoint"
)

// Failure says which check a manifest failed and why, in words for the
// user.
type Failure struct {
	Stage, Reason string
}

func (f *Failure) Error() string { return f.Stage + ": " + f.Reason }

// maxSize bounds a manifest file: a real one is well under a kilobyte.
const maxSize = 64 << 10

// Load reads a manifest and checks it. On failure it returns the manifest
// as far as it parsed (nil when its JSON is unreadable) with a *Failure.
func Load(path string) (*genac.Manifest, error) {
	raw, err := ReadPrivate(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, raw)
}

// Parse checks a manifest's bytes, read from path, past the file stage:
// the schema, the file's name, the endpoint. It returns what Load does.
func Parse(path string, raw []byte) (*genac.Manifest, error) {
	var m genac.Manifest
	// The generated type checks required fields as it decodes; a manifest
	// that fails that still says what it can, for the list.
	parsed := json.Unmarshal(raw, &m) == nil
	var loose genac.Manifest
	if !parsed {
		_ = json.Unmarshal(raw, (*looseManifest)(&loose))
	}
	best := &m
	if !parsed {
		best = &loose
		if best.InstanceID == "" && best.AppID == "" {
			best = nil
		}
	}
	if err := CheckSchema(raw); err != nil {
		return best, err
	}
	if !parsed {
		return best, &Failure{StageSchema, "the manifest does not decode"}
	}
	if err := CheckName(path, &m); err != nil {
		return &m, err
	}
	if err := CheckEndpoint(&m); err != nil {
		return &m, err
	}
	return &m, nil
}

// CheckName insists that the file is named after the instance it holds, so
// that one launch's file cannot pose as another's.
func CheckName(path string, m *genac.Manifest) error {
	if want := strings.TrimSuffix(filepath.Base(path), ".json"); m.InstanceID != want || filepath.Ext(path) != ".json" {
		return &Failure{StageSchema, fmt.Sprintf("the file is named %s but holds instance %s (want %s.json)", filepath.Base(path), m.InstanceID, m.InstanceID)}
	}
	return nil
}

// looseManifest decodes without the generated type's required-field checks.
type looseManifest genac.Manifest

func (l *looseManifest) UnmarshalJSON(b []byte) error {
	type plain struct {
		AppID, AppName, AppVersion, InstanceID string
		Pid                                    int
		ProcessStart                           string
		Workspaces                             []string
	}
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	l.AppID, l.AppName, l.AppVersion, l.InstanceID, l.Pid, l.ProcessStart, l.Workspaces = p.AppID, p.AppName, p.AppVersion, p.InstanceID, p.Pid, p.ProcessStart, p.Workspaces
	return nil
}

// ReadPrivate reads the file if it and its folder belong to us and no one
// else may read or change them: the file holds the launch's token.
func ReadPrivate(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	for _, p := range []struct {
		path, what string
		dir        bool
	}{{dir, "folder", true}, {path, "file", false}} {
		info, err := os.Lstat(p.path)
		if err != nil {
			return nil, &Failure{StageFile, fmt.Sprintf("the manifest's %s: %v", p.what, errors.Unwrap(err))}
		}
		switch {
		case p.dir && !info.IsDir():
			return nil, &Failure{StageFile, "the manifest's folder is not a directory"}
		case !p.dir && !info.Mode().IsRegular():
			return nil, &Failure{StageFile, "the manifest is not a regular file (a symbolic link is refused)"}
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			return nil, &Failure{StageFile, fmt.Sprintf("the manifest's %s belongs to uid %d, not to us (uid %d)", p.what, st.Uid, os.Getuid())}
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			want := "0600"
			if p.dir {
				want = "0700"
			}
			return nil, &Failure{StageFile, fmt.Sprintf("the manifest's %s has mode %04o: others may read or change it (want %s)", p.what, perm, want)}
		}
		if !p.dir && info.Size() > maxSize {
			return nil, &Failure{StageFile, fmt.Sprintf("the manifest is %d bytes, more than %d", info.Size(), maxSize)}
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, &Failure{StageFile, fmt.Sprintf("reading the manifest: %v", errors.Unwrap(err))}
	}
	return raw, nil
}

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.ManifestSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const id = "https://kontext.dev/schema/appcontext/manifest.json"
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c.Compile(id)
})

// CheckSchema validates the manifest against the profile's schema. The
// endpoint URLs are checked by CheckEndpoint, whose reasons say more than
// a pattern mismatch.
func CheckSchema(raw []byte) error {
	sch, err := compiled()
	if err != nil {
		return &Failure{StageSchema, "the profile's schema does not compile: " + err.Error()}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return &Failure{StageSchema, "the manifest is not JSON: " + err.Error()}
	}
	if obj, ok := doc.(map[string]any); ok {
		if p, _ := obj["profile"].(string); p != "" && p != appcontext.ProfileVersion {
			return &Failure{StageSchema, fmt.Sprintf("profile %q: this broker speaks %s", p, appcontext.ProfileVersion)}
		}
		for key, placeholder := range map[string]string{"mcp": "http://127.0.0.1:1/", "websocket": "ws://127.0.0.1:1/"} {
			if ep, ok := obj[key].(map[string]any); ok {
				if _, isString := ep["url"].(string); isString {
					ep["url"] = placeholder
				}
			}
		}
	}
	if err := sch.Validate(doc); err != nil {
		var verr *jsonschema.ValidationError
		if errors.As(err, &verr) {
			return &Failure{StageSchema, firstLeaf(verr)}
		}
		return &Failure{StageSchema, err.Error()}
	}
	return nil
}

// firstLeaf is the most specific reason of a validation error.
func firstLeaf(v *jsonschema.ValidationError) string {
	for len(v.Causes) > 0 {
		v = v.Causes[0]
	}
	loc := "/" + strings.Join(v.InstanceLocation, "/")
	return fmt.Sprintf("at %s: %s", loc, v.ErrorKind.LocalizedString(english))
}

var english = message.NewPrinter(language.English)

// CheckEndpoint insists on a loopback IP literal: a host name could
// resolve elsewhere, so it is never followed.
func CheckEndpoint(m *genac.Manifest) error {
	if m.Mcp != nil {
		if m.Mcp.Transport != "streamable-http" {
			return &Failure{StageEndpoint, fmt.Sprintf("transport %q: only streamable-http is spoken", m.Mcp.Transport)}
		}
		if err := loopbackURL(m.Mcp.URL, "http"); err != nil {
			return err
		}
		if m.Mcp.Auth.Scheme != "bearer" {
			return &Failure{StageEndpoint, fmt.Sprintf("auth scheme %q: only bearer is spoken", m.Mcp.Auth.Scheme)}
		}
		return nil
	}
	if m.Websocket != nil {
		return loopbackURL(m.Websocket.URL, "ws")
	}
	return &Failure{StageSchema, "the manifest names no endpoint (mcp or websocket)"}
}

func loopbackURL(raw, scheme string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return &Failure{StageEndpoint, fmt.Sprintf("the endpoint URL %q does not parse", raw)}
	}
	if u.Scheme != scheme {
		return &Failure{StageEndpoint, fmt.Sprintf("the endpoint URL %q is not %s://", raw, scheme)}
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return &Failure{StageEndpoint, fmt.Sprintf("the endpoint URL %q carries user info, a query or a fragment", raw)}
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil {
		return &Failure{StageEndpoint, fmt.Sprintf("the endpoint host %q is not an IP literal (a host name is never followed)", u.Hostname())}
	}
	if !ip.IsLoopback() {
		return &Failure{StageEndpoint, fmt.Sprintf("the endpoint address %s is not loopback", ip)}
	}
	if u.Port() == "" {
		return &Failure{StageEndpoint, fmt.Sprintf("the endpoint URL %q has no port", raw)}
	}
	return nil
}

// Live reports whether the process a manifest names is still the one that
// wrote it: the pid runs and started when the manifest says.
func Live(m *genac.Manifest) (bool, string) {
	if m == nil || m.Pid <= 0 {
		return false, "the manifest names no process"
	}
	if err := syscall.Kill(m.Pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false, fmt.Sprintf("process %d is gone", m.Pid)
	}
	if procstart.Exited(m.Pid) {
		return false, fmt.Sprintf("process %d has exited", m.Pid)
	}
	start, err := procstart.Of(m.Pid)
	if err != nil {
		if errors.Is(err, procstart.ErrUnknown) {
			return true, ""
		}
		return false, fmt.Sprintf("process %d: %v", m.Pid, err)
	}
	if start != m.ProcessStart {
		return false, fmt.Sprintf("process %d started at %s, not %s: the pid was reused", m.Pid, start, m.ProcessStart)
	}
	return true, ""
}

// Echo checks that an endpoint names the manifest's launch in the _meta of
// its initialize (or server/discover) result, as the broker and kontext
// apps check require before trusting anything it serves: a process that
// took over the port, or a replacement launch, answers as another
// instance. It returns the event types the endpoint declares.
func Echo(resultMeta json.RawMessage, m *genac.Manifest) ([]results.EventType, error) {
	var meta map[string]json.RawMessage
	if len(resultMeta) > 0 {
		_ = json.Unmarshal(resultMeta, &meta)
	}
	raw, ok := meta[appcontext.MetaInstance]
	if !ok {
		return nil, fmt.Errorf("instance echo: the endpoint does not name its instance (_meta %s)", appcontext.MetaInstance)
	}
	var echo struct {
		AppID      string              `json:"appId"`
		InstanceID string              `json:"instanceId"`
		Events     []results.EventType `json:"events"`
	}
	if err := json.Unmarshal(raw, &echo); err != nil {
		return nil, fmt.Errorf("instance echo: %s is not an object: %v", appcontext.MetaInstance, err)
	}
	if echo.InstanceID != m.InstanceID {
		return nil, fmt.Errorf("instance echo: the endpoint answers as instance %q, not the manifest's %q", echo.InstanceID, m.InstanceID)
	}
	if echo.AppID != m.AppID {
		return nil, fmt.Errorf("instance echo: the endpoint answers as app %q, not the manifest's %q", echo.AppID, m.AppID)
	}
	return echo.Events, nil
}

// Redact keeps the launch's tokens out of a text that may quote one (an
// error from the endpoint, a reason shown to agents).
func Redact(s string, m *genac.Manifest) string {
	for _, tok := range []string{Token(m), webSocketToken(m)} {
		if tok != "" {
			s = strings.ReplaceAll(s, tok, "<token>")
		}
	}
	return s
}

// Token is the bearer token of the manifest's MCP endpoint ("" without one).
func Token(m *genac.Manifest) string {
	if m == nil || m.Mcp == nil {
		return ""
	}
	return m.Mcp.Auth.Token
}

func webSocketToken(m *genac.Manifest) string {
	if m == nil || m.Websocket == nil {
		return ""
	}
	return m.Websocket.Token
}
