package scan

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/linguist"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// parsed is what reading one file produced: its facts, and the content
// of the configuration files the manifest stage reads.
type parsed struct {
	file    model.File
	config  []byte // set for manifests and tsconfig-like files
	missing bool   // listed, but not in the work tree
}

// reader reads files under the root through os.Root, so no read follows a
// symlink out of it.
type reader struct {
	root    *os.Root
	maxSize int64
	hooks   *Hooks
}

// parseAll parses files in parallel, one read each, keeping the order.
func (r *reader) parseAll(ctx context.Context, paths []string, workers int) ([]parsed, error) {
	out := make([]parsed, len(paths))
	counter := &parseCounter{hooks: r.hooks, total: len(paths)}
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	const batch = 32
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 64<<10)
			for {
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				start := next
				next += batch
				mu.Unlock()
				if start >= len(paths) {
					return
				}
				end := min(start+batch, len(paths))
				for i := start; i < end; i++ {
					out[i], buf = r.parse(paths[i], buf)
				}
				counter.add(end - start)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// parse reads and analyses one file. buf is reused between files.
func (r *reader) parse(p string, buf []byte) (parsed, []byte) {
	f := model.File{Path: p}
	info, err := r.root.Lstat(p)
	if err != nil {
		// Deleted but still in git's index, or gone since the listing.
		return parsed{file: f, missing: true}, buf
	}
	if r.hooks != nil && r.hooks.Stat != nil {
		r.hooks.Stat(p, info)
	}
	f.Vendored = isVendored(p)
	if info.Mode()&fs.ModeSymlink != 0 || !info.Mode().IsRegular() {
		// Listed, never followed: its target may be outside the root.
		f.Language, _ = languageByName(p)
		f.Kind = classify(p, f.Language, false)
		return parsed{file: f}, buf
	}
	f.Size = info.Size()
	ext := strings.ToLower(path.Ext(p))
	if ext == ".go" && f.Size > r.maxSize && !secrets.IsSecretFile(p) {
		// A huge Go file (generated tables, rewrite rules) is not parsed,
		// but its header — package, constraint, imports — is read, so the
		// import graph stays exact.
		if head, err := readPrefix(r.root, p, goHeaderLimit); err == nil {
			f.Language = "Go"
			f.Kind = classify(p, f.Language, false)
			f.Generated = goGenerated(head)
			parseGoHeader(p, head, &f)
		}
		return parsed{file: f}, buf
	}
	if binary := binaryExt.has(ext); binary || secrets.IsSecretFile(p) || f.Size > r.maxSize {
		f.Language, _ = languageByName(p)
		f.Kind = classify(p, f.Language, binary && !isAssetExt(ext))
		return parsed{file: f}, buf
	}
	content, buf, err := readInto(r.root, p, r.maxSize, buf)
	if err != nil {
		f.Language, _ = languageByName(p)
		f.Kind = classify(p, f.Language, false)
		return parsed{file: f}, buf
	}
	if isBinary(content) {
		f.Kind = classify(p, "", true)
		return parsed{file: f}, buf
	}
	f.Lines = countLines(content)
	f.Language = intern(detectLanguage(p, content, true))
	f.Kind = classify(p, f.Language, false)
	f.Generated = (f.Language == "Go" && goGenerated(content)) || isGenerated(p, content)
	out := parsed{}
	if vendorRootByName(dirOf(p)) != "" {
		// Vendored code is in no module and makes no edge: what counts of
		// it is that it exists, and for Go the imports of its packages
		// (GOROOT's go list reports its vendored packages); its
		// declarations are someone else's API.
		if f.Language == "Go" {
			parseGoHeader(p, content, &f)
		}
		if isConfigFile(p) {
			out.config = bytes.Clone(content)
		}
		out.file = f
		return out, buf
	}
	switch f.Language {
	case "Go":
		parseGo(p, content, &f)
	case "TypeScript", "TSX", "JavaScript":
		parseJS(content, &f)
	case "Python":
		parsePython(content, &f)
	case "Rust":
		parseRust(content, &f)
	case "Java":
		parseJVM(content, &f, false)
	case "Kotlin":
		parseJVM(content, &f, true)
	case "HCL":
		if ext == ".tf" || path.Base(p) == "terragrunt.hcl" {
			parseHCL(content, &f)
		}
	}
	if isConfigFile(p) {
		out.config = bytes.Clone(content)
	}
	out.file = f
	return out, buf
}

func readInto(root *os.Root, p string, limit int64, buf []byte) ([]byte, []byte, error) {
	buf, err := fsroot.AppendRead(root, p, limit, buf[:0])
	if err != nil {
		return nil, buf, err
	}
	return buf, buf, nil
}

// goHeaderLimit bounds the header read of an oversized Go file.
const goHeaderLimit = 256 << 10

func readPrefix(root *os.Root, p string, n int) ([]byte, error) {
	fh, _, err := fsroot.OpenRegular(root, p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	buf := make([]byte, n)
	m, err := io.ReadFull(fh, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	return buf[:m], nil
}

func isBinary(content []byte) bool {
	return linguist.IsBinary(content)
}

func countLines(content []byte) int {
	if len(content) == 0 {
		return 0
	}
	n := bytes.Count(content, []byte{'\n'})
	if content[len(content)-1] != '\n' {
		n++
	}
	return n
}

// isGenerated asks Linguist's rules: generated extensions and names (.pb.go,
// package-lock.json) and its content matchers (minified code, "generated
// by" headers in the first lines).
func isGenerated(p string, content []byte) bool {
	return linguist.IsGenerated(p, content)
}

// isVendored is Linguist's verdict on the path (vendor/, node_modules/,
// third_party/, bundled libraries by name).
func isVendored(p string) bool {
	return linguist.IsVendor(p)
}

// isConfigFile reports the files whose content the manifest and resolver
// stages read.
func isConfigFile(p string) bool {
	name := path.Base(p)
	switch name {
	case "go.mod", "go.work", "package.json", "pnpm-workspace.yaml", "Cargo.toml", "pyproject.toml",
		"setup.cfg", "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
		"composer.json", "Gemfile", "mix.exs", "deno.json", "deno.jsonc", "jsconfig.json", "Pipfile",
		"README.md", "README", "README.rst", "README.txt", "readme.md", "Readme.md", "vendor/modules.txt", ".gitattributes",
		"Chart.yaml":
		return true
	}
	if strings.HasSuffix(p, "vendor/modules.txt") || strings.HasSuffix(name, ".versions.toml") || name == "gradle.properties" || isBuildSrcSource(p) ||
		strings.HasSuffix(name, ".gradle") || strings.HasSuffix(name, ".gradle.kts") {
		return true
	}
	if strings.HasPrefix(name, "tsconfig") && strings.HasSuffix(name, ".json") {
		return true
	}
	if strings.HasPrefix(name, "requirements") && strings.HasSuffix(name, ".txt") {
		return true
	}
	return strings.HasSuffix(name, ".csproj") || strings.HasSuffix(name, ".fsproj") || strings.HasSuffix(name, ".vbproj")
}
