package scan

import (
	"path"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// parseHCL fills a Terraform or Terragrunt file's imports: the source of
// every module block (module "vpc" { source = "../modules/vpc" }), of a
// Terragrunt terraform block, and a Terragrunt dependency's config_path.
func parseHCL(src []byte, f *model.File) {
	toks := lex(src, lexConfig{hashComments: true, keepStrings: true})
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent || t.depth != 0 {
			continue
		}
		var attr string
		switch t.text {
		case "module", "dependency":
			if toks[i+1].kind != tString {
				continue
			}
			attr = "source"
			if t.text == "dependency" {
				attr = "config_path"
			}
		case "terraform":
			attr = "source"
		default:
			continue
		}
		open := i + 1
		for open < len(toks) && toks[open].text != "{" {
			open++
		}
		if open >= len(toks) {
			break
		}
		end := blockEnd(toks, open)
		for k := open + 1; k+2 < end; k++ {
			if toks[k].depth == 1 && toks[k].kind == tIdent && toks[k].text == attr && toks[k+1].text == "=" && toks[k+2].kind == tString {
				if spec := strings.TrimSpace(toks[k+2].text); spec != "" && !strings.Contains(spec, "${") {
					f.Imports = append(f.Imports, model.Import{Spec: intern(spec), Line: toks[k+2].line})
				}
				break
			}
		}
		i = end
	}
}

// resolveHCL resolves a module source: a local path to the module's
// directory, anything else (the registry's namespace/name/provider, a
// git or archive address) to an external Terraform module.
func (r *resolver) resolveHCL(f *model.File, spec string) (model.ImportKind, string) {
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		dir, ok := joinDir(dirOf(f.Path), strings.Replace(spec, "//", "/", 1))
		if ok && r.ix.dirs[dir] {
			return model.ImportInternalModule, moduleID(dir)
		}
		return model.ImportUnresolved, ""
	}
	name := spec
	for _, prefix := range []string{"git::", "hg::", "s3::", "gcs::", "http::", "https://", "http://", "ssh://", "git@", "tfr:///"} {
		name = strings.TrimPrefix(name, prefix)
	}
	name = strings.TrimPrefix(strings.TrimPrefix(name, "https://"), "ssh://")
	name, _, _ = strings.Cut(name, "?")
	if i := strings.Index(name, "//"); i >= 0 {
		name = name[:i] // a subdirectory of the source
	}
	name = strings.TrimSuffix(strings.Replace(name, ":", "/", 1), ".git")
	if name == "" {
		return model.ImportUnresolved, ""
	}
	return model.ImportExternal, path.Clean(name)
}
