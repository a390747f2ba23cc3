// Package config loads kontext's configuration in layers, later winning
// (tables merged by key, arrays replaced): built-in defaults, the user's
// config.toml, the user's file for this repository, the repository's shared
// file, and the clone-local file under the git common directory. It keeps,
// for every effective value, the layer and file that set it.
package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// Config is the effective configuration.
type Config struct {
	Project   Project                   `toml:"project"`
	Store     Store                     `toml:"store"`
	Sources   Sources                   `toml:"sources"`
	Index     Index                     `toml:"index"`
	Brief     Brief                     `toml:"brief"`
	Freshness Freshness                 `toml:"freshness"`
	Capture   Capture                   `toml:"capture"`
	Hooks     Hooks                     `toml:"hooks"`
	Secrets   Secrets                   `toml:"secrets"`
	Init      Init                      `toml:"init"`
	Vars      map[string]string         `toml:"vars"`
	Adapters  map[string]map[string]any `toml:"adapters"`

	// Identity is the repository the configuration was loaded for (zero
	// outside a repository).
	Identity Identity `toml:"-"`
	// Layers lists every file consulted, in order, loaded or not.
	Layers []LayerFile `toml:"-"`
	// Warnings are problems that did not stop loading (unknown keys,
	// refused settings).
	Warnings []string `toml:"-"`
	// Refusals are the repository file's settings that would switch
	// secret protection off for everyone, and so are not applied.
	Refusals []Refusal `toml:"-"`

	merged  map[string]any
	kinds   []KindSettings
	sources map[string]Source
}

// Project names the project in briefs and templates.
type Project struct {
	Name        string `toml:"name"`
	Description string `toml:"description"`
}

// Store is where knowledge lives and how new entries are written.
type Store struct {
	Dir          string          `toml:"dir"`
	Style        string          `toml:"style"`
	IndexFile    bool            `toml:"index_file"`
	MaxBodyLines int             `toml:"max_body_lines"`
	Kinds        map[string]Kind `toml:"kinds"`
}

// Kind configures one kind of entry (store.kinds.<kind>).
type Kind struct {
	// Dir is relative to store.dir.
	Dir string `toml:"dir"`
	// Path is relative to the repository root and wins over Dir (an
	// existing ADR directory such as docs/adr).
	Path      string `toml:"path"`
	Style     string `toml:"style"`
	Numbering string `toml:"numbering"`
	Trailer   string `toml:"trailer"`
}

// Sources selects the documents indexed beside the store.
type Sources struct {
	Include []string `toml:"include"`
	Exclude []string `toml:"exclude"`
	// DetectDocs adds the documentation folders found in the tree (a docs
	// site's www/content, site/, website/docs, …) to Include; Exclude
	// still applies to them.
	DetectDocs bool  `toml:"detect_docs"`
	MaxBytes   int64 `toml:"max_bytes"`
}

// Index configures the search index.
type Index struct {
	Commits    bool `toml:"commits"`
	MaxCommits int  `toml:"max_commits"`
}

// Brief bounds ctx_brief.
type Brief struct {
	BudgetTokens int `toml:"budget_tokens"`
	MaxDecisions int `toml:"max_decisions"`
	MaxModules   int `toml:"max_modules"`
}

// Freshness flags decisions whose paths changed a lot since they were made.
type Freshness struct {
	ThresholdCommits int `toml:"threshold_commits"`
}

// Capture configures ctx_capture.
type Capture struct {
	DefaultVisibility string `toml:"default_visibility"`
	Redact            bool   `toml:"redact"`
}

// Hooks configures the git hooks.
type Hooks struct {
	Validate    bool `toml:"validate"`
	Trailers    bool `toml:"trailers"`
	RemindInbox bool `toml:"remind_inbox"`
}

// Secrets configures the secret scan.
type Secrets struct {
	Scan   string   `toml:"scan"`
	Allow  []string `toml:"allow"`
	Redact []string `toml:"redact"`
}

// Init configures the bootstrap.
type Init struct {
	MaxModuleDocs     int      `toml:"max_module_docs"`
	MinModuleFiles    int      `toml:"min_module_files"`
	Exclude           []string `toml:"exclude"`
	HistoryMaxCommits int      `toml:"history_max_commits"`
	MaxDecisionTasks  int      `toml:"max_decision_tasks"`
	TaskMaxFiles      int      `toml:"task_max_files"`
	TaskInlineChars   int      `toml:"task_inline_chars"`
	Jobs              int      `toml:"jobs"`
	LLM               string   `toml:"llm"`
}

// The kinds every store has, in the order listings use.
var builtinKinds = []string{"decision", "convention", "learning", "incident", "architecture"}

// defaultsTOML is layer 1. Its key order is the order Explain prints.
const defaultsTOML = `
[project]

[store]
dir = ".ai"
style = "frontmatter"
index_file = true
max_body_lines = 80

[store.kinds.decision]
dir = "decisions"
numbering = "date"
trailer = "Decision"

[store.kinds.convention]
dir = "conventions"
numbering = "none"
trailer = "Convention"

[store.kinds.learning]
dir = "learnings"
numbering = "none"
trailer = "Learning"

[store.kinds.incident]
dir = "incidents"
numbering = "none"
trailer = "Incident"

[store.kinds.architecture]
dir = "architecture"
numbering = "none"

[sources]
include = ["/*.md", "**/README.md", "**/AGENTS.md", "**/CLAUDE.md", "docs/**/*.md", "doc/**/*.md", "adr/**/*.md"]
exclude = ["**/node_modules/**", "**/CHANGELOG.md", "**/vendor/**", "**/fixtures/**", "**/testdata/**", "**/.github/ISSUE_TEMPLATE/**"]
detect_docs = true
max_bytes = 300000

[index]
commits = true
max_commits = 5000

[brief]
budget_tokens = 1400
max_decisions = 12
max_modules = 14

[freshness]
threshold_commits = 20

[capture]
default_visibility = "team"
redact = true

[hooks]
validate = true
trailers = true
remind_inbox = true

[secrets]
scan = "store"
allow = []
redact = []

[init]
max_module_docs = 40
min_module_files = 3
exclude = []
history_max_commits = 3000
max_decision_tasks = 20
task_max_files = 12
task_inline_chars = 24000
jobs = 2
`

// Layer is one level of configuration.
type Layer int

// The layers, in the order they apply.
const (
	LayerDefault Layer = iota
	LayerUser
	LayerUserRepo
	LayerRepository
	LayerLocal
)

func (l Layer) String() string {
	switch l {
	case LayerDefault:
		return "built-in"
	case LayerUser:
		return "user"
	case LayerUserRepo:
		return "user, this repository"
	case LayerRepository:
		return "repository"
	case LayerLocal:
		return "clone-local"
	}
	return "unknown"
}

// Source is where an effective value came from.
type Source struct {
	Layer Layer
	File  string // "" for built-in defaults
	Line  int    // 0 when unknown
}

func (s Source) String() string {
	if s.File == "" {
		return s.Layer.String()
	}
	if s.Line > 0 {
		return fmt.Sprintf("%s (%s:%d)", s.Layer, s.File, s.Line)
	}
	return fmt.Sprintf("%s (%s)", s.Layer, s.File)
}

// LayerFile is one configuration file kontext looked for.
type LayerFile struct {
	Layer  Layer
	Path   string
	Loaded bool
}

// Options make loading independent of the process environment (tests).
type Options struct {
	// Getenv reads KONTEXT_CONFIG_DIR, XDG_CONFIG_HOME and HOME; os.Getenv
	// when nil.
	Getenv func(string) string
	// SkipIdentity leaves Config.Identity empty unless the user keeps
	// per-repository files (which are found by it): working it out costs
	// git processes that a git hook, run on every commit, can spare.
	SkipIdentity bool
}

// hasFiles reports whether a directory exists and holds anything.
func hasFiles(dir string) bool {
	ents, err := os.ReadDir(dir)
	return err == nil && len(ents) > 0
}

// UserDir is the user's configuration directory: $KONTEXT_CONFIG_DIR, else
// $XDG_CONFIG_HOME/kontext, else ~/.config/kontext.
func UserDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := getenv("KONTEXT_CONFIG_DIR"); d != "" {
		return d
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "kontext")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".config", "kontext")
}

// LocalPath is the clone-local configuration file of a repository.
func LocalPath(repo *git.Repo) string {
	return filepath.Join(repo.CommonDir, "kontext", "config.toml")
}

// Defaults returns the built-in configuration.
func Defaults() *Config {
	c, err := build([]layerData{defaultsLayer()}, nil)
	if err != nil {
		panic("config: built-in defaults: " + err.Error()) // a bug in defaultsTOML, caught by tests
	}
	return c
}

// Load reads every layer for the repository (nil outside a repository:
// defaults and the user's file only). A file that is not valid TOML, or a
// value of the wrong type or outside its allowed set, is an error naming the
// file; an unknown key is a warning.
func Load(ctx context.Context, repo *git.Repo, opts Options) (*Config, error) {
	userDir := UserDir(opts.Getenv)
	layers := []layerData{defaultsLayer()}
	var files []LayerFile
	var id Identity
	add := func(l Layer, path string) (bool, error) {
		d, ok, err := readLayer(l, path)
		files = append(files, LayerFile{Layer: l, Path: path, Loaded: ok})
		if ok {
			layers = append(layers, d)
		}
		return ok, err
	}
	if _, err := add(LayerUser, filepath.Join(userDir, "config.toml")); err != nil {
		return nil, err
	}
	if repo != nil {
		if !opts.SkipIdentity || hasFiles(filepath.Join(userDir, "repos")) {
			id = Identify(ctx, repo)
			if _, err := add(LayerUserRepo, filepath.Join(userDir, "repos", id.Slug+".toml")); err != nil {
				return nil, err
			}
		}
		local, localOK, err := readLayer(LayerLocal, LocalPath(repo))
		if err != nil {
			return nil, err
		}
		// The shared file may live in a store directory that a personal
		// layer moved; the first candidate that exists is the one used.
		storeDir := ".ai"
		for _, d := range append([]layerData{local}, reverse(layers[1:])...) {
			if s, ok := lookup(d.values, "store.dir").(string); ok && s != "" {
				storeDir = s
				break
			}
		}
		cands := []string{filepath.Join(repo.Dir, ".kontext.toml"), filepath.Join(repo.Dir, filepath.FromSlash(strings.TrimSuffix(storeDir, "/")), "kontext.toml")}
		if def := filepath.Join(repo.Dir, ".ai", "kontext.toml"); def != cands[1] {
			cands = append(cands, def)
		}
		found := false
		for _, c := range cands {
			if found {
				break
			}
			if found, err = add(LayerRepository, c); err != nil {
				return nil, err
			}
		}
		files = append(files, LayerFile{Layer: LayerLocal, Path: LocalPath(repo), Loaded: localOK})
		if localOK {
			layers = append(layers, local)
		}
	}
	c, err := build(layers, files)
	if err != nil {
		return nil, err
	}
	c.Identity = id
	return c, nil
}

func reverse(ls []layerData) []layerData {
	out := make([]layerData, len(ls))
	for i, l := range ls {
		out[len(ls)-1-i] = l
	}
	return out
}

type layerData struct {
	layer  Layer
	file   string
	values map[string]any
	lines  map[string]int
	order  []string // dotted keys in file order (defaults only)
}

func defaultsLayer() layerData {
	var m map[string]any
	md, err := toml.Decode(defaultsTOML, &m)
	if err != nil {
		panic("config: built-in defaults: " + err.Error())
	}
	var order []string
	for _, k := range md.Keys() {
		order = append(order, strings.Join(k, "."))
	}
	return layerData{layer: LayerDefault, values: m, order: order}
}

func readLayer(l Layer, path string) (layerData, bool, error) {
	data, err := fsroot.Read(nil, path, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return layerData{}, false, nil
	}
	if err != nil {
		return layerData{}, false, fmt.Errorf("config: %w", err)
	}
	d, err := parseLayer(l, path, data)
	return d, err == nil, err
}

// parseLayer reads one layer's TOML (the content of path).
func parseLayer(l Layer, path string, data []byte) (layerData, error) {
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return layerData{}, fmt.Errorf("config: %s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return layerData{}, fmt.Errorf("config: %s: %w", path, err)
	}
	return layerData{layer: l, file: path, values: m, lines: keyLines(data)}, nil
}

// aliases are keys of older versions of the original, read as their
// current name.
var aliases = map[string]string{"brief.stale_after_commits": "freshness.threshold_commits"}

func build(layers []layerData, files []LayerFile) (*Config, error) {
	c := &Config{merged: map[string]any{}, sources: map[string]Source{}, Layers: files}
	for _, l := range layers {
		for alias, key := range aliases {
			if v := lookup(l.values, alias); v != nil {
				deleteKey(l.values, alias)
				if lookup(l.values, key) == nil {
					setKey(l.values, key, v)
					if l.lines != nil {
						l.lines[key] = l.lines[alias]
					}
				}
			}
		}
		if l.layer != LayerDefault {
			warnUnknown(c, l)
		}
		if l.layer == LayerRepository {
			c.restrictTeam(l)
		}
		merge(c.merged, l.values, "", func(key string) {
			for k := range c.sources {
				if strings.HasPrefix(k, key+".") {
					delete(c.sources, k)
				}
			}
			c.sources[key] = Source{Layer: l.layer, File: l.file, Line: l.lines[key]}
		})
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c.merged); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if _, err := toml.Decode(buf.String(), c); err != nil {
		return nil, c.blame(err)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	// A loaded configuration does not change; the kinds are resolved once
	// because the store asks for them for every file it looks at.
	c.kinds = c.resolveKinds()
	return c, nil
}

// warnUnknown reports the keys of one layer that no setting reads. The
// layer is decoded on its own so that the warning names its file.
func warnUnknown(c *Config, l layerData) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(l.values); err != nil {
		return
	}
	var probe Config
	md, err := toml.Decode(buf.String(), &probe)
	if err != nil {
		return // the merged decode reports it
	}
	for _, k := range md.Undecoded() {
		key := strings.Join(k, ".")
		src := Source{Layer: l.layer, File: l.file, Line: l.lines[key]}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: unknown key %q (ignored)", src.location(), key))
	}
}

func (s Source) location() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// lastKey finds the key a TOML decoding error names.
var lastKey = lazyregexp.New(`last key "([^"]+)"`)

// blame turns a decoding error into one that names the file of the value.
func (c *Config) blame(err error) error {
	msg := err.Error()
	if m := lastKey.FindStringSubmatch(msg); m != nil {
		if src, ok := c.sources[m[1]]; ok {
			return fmt.Errorf("config: %s: %s: %s", src.location(), m[1], strings.TrimPrefix(msg[strings.Index(msg, "):")+2:], " "))
		}
	}
	return fmt.Errorf("config: %w", err)
}

func (c *Config) validate() error {
	check := func(key, value string, allowed ...string) error {
		for _, a := range allowed {
			if value == a {
				return nil
			}
		}
		return fmt.Errorf("config: %s: %s = %q; use one of %s", c.sourceOf(key).location(), key, value, strings.Join(allowed, ", "))
	}
	if err := check("store.style", c.Store.Style, "frontmatter", "fields"); err != nil {
		return err
	}
	for name, k := range c.Store.Kinds {
		if k.Style != "" {
			if err := check("store.kinds."+name+".style", k.Style, "frontmatter", "fields"); err != nil {
				return err
			}
		}
		if k.Numbering != "" {
			if err := check("store.kinds."+name+".numbering", k.Numbering, "date", "sequential", "none"); err != nil {
				return err
			}
		}
		if strings.Contains(k.Path, "..") || strings.Contains(k.Dir, "..") || filepath.IsAbs(k.Path) {
			return fmt.Errorf("config: %s: store.kinds.%s must stay inside the repository", c.sourceOf("store.kinds."+name).location(), name)
		}
	}
	if strings.Contains(c.Store.Dir, "..") || filepath.IsAbs(c.Store.Dir) || strings.TrimSpace(c.Store.Dir) == "" {
		return fmt.Errorf("config: %s: store.dir must be a directory inside the repository", c.sourceOf("store.dir").location())
	}
	if err := check("capture.default_visibility", c.Capture.DefaultVisibility, "team", "private"); err != nil {
		return err
	}
	if err := check("secrets.scan", c.Secrets.Scan, "store", "staged", "off"); err != nil {
		return err
	}
	for _, key := range []string{"secrets.allow", "secrets.redact"} {
		list := c.Secrets.Allow
		if key == "secrets.redact" {
			list = c.Secrets.Redact
		}
		for _, p := range list {
			if _, err := regexp.Compile(p); err != nil {
				return fmt.Errorf("config: %s: %s: %q is not a regular expression: %v", c.sourceOf(key).location(), key, p, err)
			}
		}
	}
	return nil
}

func (c *Config) sourceOf(key string) Source {
	for k := key; k != ""; {
		if s, ok := c.sources[k]; ok {
			return s
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return Source{Layer: LayerDefault}
}

// Source returns the layer and file that set the effective value of a
// dotted key ("brief.budget_tokens", "store.kinds.decision.path"). ok is
// false when no layer set it.
func (c *Config) Source(key string) (Source, bool) {
	s, ok := c.sources[key]
	return s, ok
}

// SourcesUnder returns the sources of every effective value under a dotted
// key ("adapters.notes"), the key itself included, sorted by key: which
// layers a table's settings come from (an adapter that any layer of the
// repository's shared file shaped needs the user's trust).
func (c *Config) SourcesUnder(key string) []Source {
	var keys []string
	for k := range c.sources {
		if k == key || strings.HasPrefix(k, key+".") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]Source, 0, len(keys))
	for _, k := range keys {
		out = append(out, c.sources[k])
	}
	return out
}

// Value returns the effective raw value of a dotted key, or nil.
func (c *Config) Value(key string) any { return lookup(c.merged, key) }

// merge copies src into dst: tables merge key by key, everything else
// (arrays included) replaces. set is called with the dotted key of every
// value src sets.
func merge(dst, src map[string]any, prefix string, set func(key string)) {
	keys := make([]string, 0, len(src))
	for k := range src {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := src[k]
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sm, ok := v.(map[string]any); ok {
			dm, ok := dst[k].(map[string]any)
			if !ok {
				dm = map[string]any{}
				dst[k] = dm
			}
			if len(sm) == 0 {
				continue
			}
			merge(dm, sm, key, set)
			continue
		}
		dst[k] = v
		set(key)
	}
}

func lookup(m map[string]any, key string) any {
	parts := strings.Split(key, ".")
	var cur any = m
	for _, p := range parts {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

func setKey(m map[string]any, key string, v any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

func deleteKey(m map[string]any, key string) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, parts[len(parts)-1])
}

// keyLines finds the line of every key in a TOML file, for provenance. It
// understands what configuration files contain: [table] and [[array]]
// headers and `key = value` lines (dotted or quoted keys included).
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	table := ""
	inMulti := ""
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if inMulti != "" {
			if strings.Contains(t, inMulti) {
				inMulti = ""
			}
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasPrefix(t, "[") {
			h := strings.Trim(strings.SplitN(t, "#", 2)[0], " []")
			table = normalizeKey(h)
			if _, ok := lines[table]; !ok {
				lines[table] = i + 1
			}
			continue
		}
		eq := keyEnd(t)
		if eq < 0 {
			continue
		}
		key := normalizeKey(t[:eq])
		if table != "" {
			key = table + "." + key
		}
		if _, ok := lines[key]; !ok {
			lines[key] = i + 1
		}
		rest := strings.TrimSpace(t[eq+1:])
		for _, q := range []string{`"""`, `'''`} {
			if strings.HasPrefix(rest, q) && !strings.Contains(rest[3:], q) {
				inMulti = q
			}
		}
	}
	return lines
}

func keyEnd(s string) int {
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		switch {
		case quote != 0:
			if s[i] == quote {
				quote = 0
			}
		case s[i] == '"' || s[i] == '\'':
			quote = s[i]
		case s[i] == '=':
			return i
		}
	}
	return -1
}

func normalizeKey(k string) string {
	var parts []string
	for _, p := range splitDotted(k) {
		parts = append(parts, strings.Trim(strings.TrimSpace(p), `"'`))
	}
	return strings.Join(parts, ".")
}

func splitDotted(k string) []string {
	var parts []string
	quote := byte(0)
	start := 0
	for i := 0; i < len(k); i++ {
		switch {
		case quote != 0:
			if k[i] == quote {
				quote = 0
			}
		case k[i] == '"' || k[i] == '\'':
			quote = k[i]
		case k[i] == '.':
			parts = append(parts, k[start:i])
			start = i + 1
		}
	}
	return append(parts, k[start:])
}
