package clients

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// Env is what the clients' user files depend on. It is a value rather
// than a look at the process so that tests can name any platform.
type Env struct {
	OS            string // runtime.GOOS
	Home          string
	XDGConfigHome string // "" is Home/.config
	AppData       string // %APPDATA% on Windows
	CodexHome     string // $CODEX_HOME; "" is Home/.codex
}

// CurrentEnv is the environment of this process.
func CurrentEnv() (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, fmt.Errorf("no home directory to find the clients' user files in: %w", err)
	}
	return Env{
		OS:            runtime.GOOS,
		Home:          home,
		XDGConfigHome: os.Getenv("XDG_CONFIG_HOME"),
		AppData:       os.Getenv("APPDATA"),
		CodexHome:     os.Getenv("CODEX_HOME"),
	}, nil
}

func (e Env) join(base string, elem ...string) string {
	if e.OS == "windows" {
		return strings.Join(append([]string{base}, elem...), `\`)
	}
	return path.Join(append([]string{base}, elem...)...)
}

func (e Env) home(elem ...string) string { return e.join(e.Home, elem...) }

// xdgConfig is $XDG_CONFIG_HOME, else ~/.config: where Linux clients, and
// the clients that follow XDG everywhere, keep their settings.
func (e Env) xdgConfig(elem ...string) string {
	if e.XDGConfigHome != "" {
		return e.join(e.XDGConfigHome, elem...)
	}
	return e.home(append([]string{".config"}, elem...)...)
}

func (e Env) appData(elem ...string) string {
	base := e.AppData
	if base == "" {
		base = e.join(e.Home, "AppData", "Roaming")
	}
	return e.join(base, elem...)
}

// appConfig is where an Electron application keeps its user data:
// ~/Library/Application Support on macOS, %APPDATA% on Windows, XDG on Linux.
func (e Env) appConfig(elem ...string) string {
	switch e.OS {
	case "darwin":
		return e.home(append([]string{"Library", "Application Support"}, elem...)...)
	case "windows":
		return e.appData(elem...)
	default:
		return e.xdgConfig(elem...)
	}
}

// vscodeUser is VS Code's user directory (the default profile).
func (e Env) vscodeUser(elem ...string) string {
	return e.appConfig(append([]string{"Code", "User"}, elem...)...)
}

// Path is the client's documented file for scope: inside repo for the
// project scope, in the user's home for the user scope.
func (c Client) Path(s Scope, repo string, env Env) (string, error) {
	switch {
	case s == Project && c.project != nil:
		if repo == "" {
			return "", errors.New("the project file belongs in a repository, and there is none here")
		}
		return filepath.Join(repo, filepath.FromSlash(c.project(ServerName))), nil
	case s == User && c.user != nil:
		return c.user(env), nil
	case c.HasScope(s):
		return "", c.notWritable()
	}
	return "", c.ScopeError(s)
}

// PathFor is Path for the entry s names (Continue's project file is named
// after the entry).
func (c Client) PathFor(s Spec, repo string, env Env) (string, error) {
	sc := c.scope(s)
	if sc == Project && c.project != nil {
		if repo == "" {
			return "", errors.New("the project file belongs in a repository, and there is none here")
		}
		return filepath.Join(repo, filepath.FromSlash(c.project(s.name()))), nil
	}
	return c.Path(sc, repo, env)
}

// DisplayPath is the file for scope as people write it: the project file
// relative to the repository, the user file with ~ for the home directory.
func (c Client) DisplayPath(s Scope, env Env) string {
	switch {
	case s == Project && c.project != nil:
		return c.project(ServerName)
	case s == User && c.user != nil:
		env.Home = "~"
		return c.user(env)
	case s == User && c.Paste != "":
		return c.Paste
	}
	return "(none)"
}

// Owner returns the client whose documented file p is, wherever it lies:
// .vscode/mcp.json is VS Code's even in another repository.
func Owner(p string) (Client, bool) {
	elems := strings.FieldsFunc(filepath.ToSlash(p), func(r rune) bool { return r == '/' || r == '\\' })
	best, bestLen := Client{}, 0
	for _, c := range all {
		for _, pattern := range c.owns {
			if len(pattern) > bestLen && matchesTail(elems, pattern) {
				best, bestLen = c, len(pattern)
			}
		}
	}
	return best, bestLen > 0
}

func matchesTail(elems, pattern []string) bool {
	if len(elems) < len(pattern) {
		return false
	}
	tail := elems[len(elems)-len(pattern):]
	for i, want := range pattern {
		if ok, _ := path.Match(strings.ToLower(want), strings.ToLower(tail[i])); !ok {
			return false
		}
	}
	return true
}

// extensions are the file name endings of each format.
var extensions = map[Format][]string{
	JSON:  {".json", ".jsonc"},
	JSONC: {".json", ".jsonc"},
	YAML:  {".yaml", ".yml"},
	TOML:  {".toml"},
}

// CheckTarget refuses a file that is not this client's: another client's
// documented file, or a file whose extension says it is in another format.
// A Cursor entry in .vscode/mcp.json would be a key VS Code ignores.
func (c Client) CheckTarget(p string) error {
	if owner, ok := Owner(p); ok && owner.ID != c.ID {
		return fmt.Errorf("%s is %s's file (servers under %q), not %s's; kontext config %s --write writes it, and nothing was written", p, owner.Title, owner.Key, c.Title, owner.ID)
	}
	ext := strings.ToLower(filepath.Ext(p))
	for format, exts := range extensions {
		for _, e := range exts {
			if ext == e && !sameFamily(format, c.Format) {
				return fmt.Errorf("%s is a %s file and %s's configuration is %s; nothing was written", p, strings.ToUpper(strings.TrimPrefix(ext, ".")), c.Title, formatName(c.Format))
			}
		}
	}
	return nil
}

func sameFamily(a, b Format) bool {
	json := func(f Format) bool { return f == JSON || f == JSONC }
	return a == b || json(a) && json(b)
}

func formatName(f Format) string {
	switch f {
	case JSONC:
		return "JSON"
	default:
		return strings.ToUpper(string(f))
	}
}
