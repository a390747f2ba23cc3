package analyze

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// Role limits (the original's).
const (
	minRoleConfidence = 0.3
	maxRoles          = 4
	maxRoleEvidence   = 5
	roleWeightCap     = 0.75 // one signal alone never looks certain
	fileRoleShare     = 1.0 / 3
)

// Roles gives every module its roles: signals from its files' imports and
// content, its directory and file names, its entry points and whether it
// is a workspace package, combined as 1 − Π(1 − min(0.75, w)). Run
// EntryPoints first: entry points are one of the inputs.
func Roles(g *model.Graph, obs *Observations) {
	assignRoles(g, newIndex(g), obs)
}

func assignRoles(g *model.Graph, ix *index, obs *Observations) {
	eps := map[string][]*model.EntryPoint{}
	for i := range g.EntryPoints {
		ep := &g.EntryPoints[i]
		eps[ep.Module] = append(eps[ep.Module], ep)
	}
	for i := range g.Modules {
		m := &g.Modules[i]
		m.Roles = moduleRoles(ix, m, obs, eps[m.ID])
	}
}

type roleCandidate struct {
	weights  []float64
	evidence []model.Evidence
}

func moduleRoles(ix *index, m *model.Module, obs *Observations, eps []*model.EntryPoint) []model.Role {
	cands := map[string]*roleCandidate{}
	add := func(role string, w float64, ev model.Evidence) {
		c := cands[role]
		if c == nil {
			c = &roleCandidate{}
			cands[role] = c
		}
		c.weights = append(c.weights, w)
		if len(c.evidence) < maxRoleEvidence {
			c.evidence = append(c.evidence, ev)
		}
	}

	files := append([]*model.File(nil), ix.byModule[m.ID]...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })

	// Signals count once per module; the evidence is the first file (in
	// path order) that showed each, and how many files did.
	type agg struct {
		hit   SignalHit
		file  string
		count int
	}
	sigs := map[string]*agg{}
	var code []*model.File
	for _, f := range files {
		// Tests import test frameworks and fixtures; counting them would make
		// every tested module look like test support.
		if f.Kind == model.FileTest || !observable(f) {
			continue
		}
		code = append(code, f)
		fo := obs.File(f.Path)
		if fo == nil {
			continue
		}
		for _, h := range fo.Signals {
			a := sigs[h.Signal]
			if a == nil {
				sigs[h.Signal] = &agg{hit: h, file: f.Path, count: 1}
				continue
			}
			a.count++
		}
	}
	for _, d := range signalDefs {
		a := sigs[d.Signal]
		if a == nil {
			continue
		}
		add(d.Role, d.Weight, model.Evidence{
			File: a.file, Line: a.hit.Line,
			Detail: fmt.Sprintf("%s: %s (signal %s in %d file%s)", d.Label, a.hit.Detail, d.Signal, a.count, plural(a.count)),
		})
	}

	corpus := m.Name
	if m.ID != "." && m.ID != "" {
		corpus = m.ID + "/" + m.Name
	}
	for _, nm := range nameRuleMatches(corpus) {
		r := nameRules[nm.rule]
		add(r.Role, r.Weight, model.Evidence{File: moduleEvidencePath(m), Detail: fmt.Sprintf("%s (%q)", r.Label, nm.word)})
	}

	if len(code) > 0 {
		masks := make([]uint64, len(code))
		for k, f := range code {
			masks[k] = fileRoleMask(stem(f.Path))
		}
		for i, r := range fileRoleRules {
			var hits []string
			for k, f := range code {
				if masks[k]&(1<<i) != 0 {
					hits = append(hits, f.Path)
				}
			}
			if len(hits) == 0 || float64(len(hits)) < fileRoleShare*float64(len(code)) {
				continue
			}
			shown := hits
			if len(shown) > 3 {
				shown = shown[:3]
			}
			add(r.Role, r.Weight, model.Evidence{File: hits[0], Detail: fmt.Sprintf("%s: %d of %d files (%s)", r.Label, len(hits), len(code), strings.Join(shown, ", "))})
		}
	}

	var app, cli bool
	for _, ep := range eps {
		switch {
		case ep.Type == "application" && !app:
			app = true
			add("application", weightApplicationEntry, model.Evidence{File: ep.Path, Detail: "module has an application entry point"})
		case (ep.Type == "cli" || ep.Type == "package-bin") && !cli:
			cli = true
			add("cli", weightCLIEntry, model.Evidence{File: ep.Path, Detail: "module has a command-line entry point"})
		}
	}

	roles := make([]model.Role, 0, len(cands)+1)
	if m.Basis == model.BasisWorkspacePackage {
		ev := model.Evidence{File: m.Manifest, Detail: "module is a workspace package"}
		if ev.File == "" {
			ev.File = moduleEvidencePath(m)
		}
		roles = append(roles, model.Role{Role: "workspace-package", Confidence: confWorkspacePackage, Evidence: []model.Evidence{ev}})
	}
	for role, c := range cands {
		if role == "workspace-package" {
			continue
		}
		roles = append(roles, model.Role{Role: role, Confidence: conf(combine(c.weights)), Evidence: c.evidence})
	}
	kept := roles[:0]
	for _, r := range roles {
		if r.Confidence >= minRoleConfidence {
			kept = append(kept, r)
		}
	}
	sort.Slice(kept, func(i, j int) bool {
		if kept[i].Confidence != kept[j].Confidence {
			return kept[i].Confidence > kept[j].Confidence
		}
		return kept[i].Role < kept[j].Role
	})
	if len(kept) > maxRoles {
		kept = kept[:maxRoles]
	}
	if kept == nil {
		kept = []model.Role{}
	}
	return kept
}

// combine treats signals as independent evidence: two agree more strongly
// than one, and none alone exceeds the cap.
func combine(ws []float64) float64 {
	inv := 1.0
	for _, w := range ws {
		inv *= 1 - math.Min(roleWeightCap, w)
	}
	return 1 - inv
}

// TopRole is the module's strongest architectural role, ignoring the
// structural workspace-package role, or "".
func TopRole(m *model.Module) (model.Role, bool) {
	for _, r := range m.Roles {
		if r.Role != "workspace-package" {
			return r, true
		}
	}
	return model.Role{}, false
}

func moduleEvidencePath(m *model.Module) string {
	if m.ID == "" {
		return "."
	}
	return m.ID
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
