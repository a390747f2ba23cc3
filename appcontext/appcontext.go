// Package appcontext is the application side of the App Context MCP
// Profile 0.1 as kontext implements it (docs/appcontext-profile.md): an
// application registers its semantic actions, publishes its state and
// emits events; the package serves them as an MCP endpoint on loopback and
// announces the launch with a manifest that the kontext broker
// (kontext mcp --toolsets apps) discovers.
package appcontext

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	genac "github.com/kontext-dev/kontext/gen/appcontext"
	"github.com/kontext-dev/kontext/internal/atomicfile"
)

// ProfileVersion names the profile a manifest and an endpoint follow.
const ProfileVersion = "appcontext-mcp/0.1"

// The _meta keys of the profile, in one place (reverse-DNS, as MCP asks).
const (
	// MetaInstance is the key of the initialize and server/discover
	// results' _meta under which an endpoint names its launch: appId,
	// instanceId and the event types it emits.
	MetaInstance = "org.appcontextprotocol/instance"
	// MetaAction is the key of a tool's _meta describing the action behind
	// it: its registrationId (new on every registration) and, when it
	// needs one, its confirmation.
	MetaAction = "org.appcontextprotocol/action"
	// MetaConfirmation is the key of a broker's typed tool's _meta saying
	// the action needs the user's confirmation.
	MetaConfirmation = "org.appcontextprotocol/confirmation"
	// MetaConfirmed is the key of a tools/call request's _meta by which a
	// broker says the user confirmed the call; an application runs a
	// confirmation-required action only with it set to true.
	MetaConfirmed = "org.appcontextprotocol/confirmed"
)

// Manifest is one launch's manifest (schema/appcontext/manifest.json).
type (
	Manifest          = genac.Manifest
	MCPEndpoint       = genac.MCPEndpoint
	BearerAuth        = genac.BearerAuth
	WebSocketEndpoint = genac.WebSocketEndpoint
)

// RuntimeDir is the folder under which manifests live:
// $APPCONTEXT_RUNTIME_DIR, else $XDG_RUNTIME_DIR, else the user cache
// directory, else a per-user folder under the temporary directory.
func RuntimeDir() (string, error) {
	for _, env := range []string{"APPCONTEXT_RUNTIME_DIR", "XDG_RUNTIME_DIR"} {
		if dir := os.Getenv(env); dir != "" {
			if !filepath.IsAbs(dir) {
				return "", fmt.Errorf("%s=%s is not an absolute path", env, dir)
			}
			return dir, nil
		}
	}
	if dir, err := os.UserCacheDir(); err == nil && dir != "" {
		return dir, nil
	}
	return filepath.Join(os.TempDir(), "appcontext-"+strconv.Itoa(os.Getuid())), nil
}

// InstancesDir is the folder of the manifests: <runtime>/appcontext/instances.
// It creates nothing.
func InstancesDir() (string, error) {
	rt, err := RuntimeDir()
	if err != nil {
		return "", err
	}
	return InstancesDirIn(rt), nil
}

// InstancesDirIn is the instances folder under a runtime folder.
func InstancesDirIn(runtimeDir string) string {
	return filepath.Join(runtimeDir, "appcontext", "instances")
}

// WriteManifest writes m as <dir>/<instanceId>.json atomically (a reader
// sees the old file or the whole new one), the folder 0700 and the file
// 0600, and returns its path.
func WriteManifest(dir string, m *Manifest) (string, error) {
	if m == nil || m.InstanceID == "" {
		return "", errors.New("appcontext: a manifest needs an instanceId")
	}
	if filepath.Base(m.InstanceID) != m.InstanceID || m.InstanceID[0] == '.' {
		return "", fmt.Errorf("appcontext: instanceId %q cannot name a file", m.InstanceID)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("appcontext: the instances folder: %w", err)
	}
	// MkdirAll keeps the modes of a folder that exists; the profile needs
	// it private.
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("appcontext: the instances folder: %w", err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, m.InstanceID+".json")
	if err := atomicfile.Write(path, append(b, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("appcontext: writing the manifest: %w", err)
	}
	return path, nil
}

// RemoveManifest removes a manifest written by WriteManifest; a manifest
// already gone is no error.
func RemoveManifest(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("appcontext: removing the manifest: %w", err)
	}
	return nil
}
