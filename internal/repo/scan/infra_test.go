package scan

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// A repository without package manifests is not one module: each
// Terraform directory is one, and calls between them are edges (registry
// and git sources are external modules); a Helm chart, an Ansible role
// and a top-level directory of scripts are modules too.
func TestTerraformAndInfrastructureModules(t *testing.T) {
	files := map[string]string{
		"modules/vpc/main.tf":      "resource \"aws_vpc\" \"this\" {\n  cidr_block = var.cidr\n}\n",
		"modules/vpc/variables.tf": "variable \"cidr\" {}\n",
		"modules/db/main.tf": `# The database, in the VPC.
module "network" {
  source = "../vpc"
  cidr   = "10.0.0.0/16"
}

/* module "old" { source = "../legacy" } */
resource "aws_db_instance" "this" {}
`,
		"charts/api/Chart.yaml":                "apiVersion: v2\nname: api\nversion: 1.4.0\ndescription: The API chart\ndependencies:\n  - name: common\n    version: 0.1.0\n    repository: file://../common\n  - name: redis\n    version: 19.0.1\n    repository: https://charts.bitnami.com/bitnami\n",
		"charts/api/templates/deployment.yaml": "kind: Deployment\n",
		"charts/common/Chart.yaml":             "apiVersion: v2\nname: common\nversion: 0.1.0\ntype: library\n",
		"ansible/roles/web/tasks/main.yml":     "- name: install nginx\n  apt: name=nginx\n",
		"ansible/roles/web/handlers/main.yml":  "- name: restart nginx\n  service: name=nginx state=restarted\n",
		"ansible/site.yml":                     "- hosts: all\n  roles: [web]\n",
		"live/prod/app/terragrunt.hcl":         "terraform {\n  source = \"../../../modules//db\"\n}\n\ndependency \"vpc\" {\n  config_path = \"../vpc\"\n}\n",
		"live/prod/vpc/terragrunt.hcl":         "terraform {\n  source = \"../../../modules/vpc\"\n}\n",
		"scripts/deploy.sh":                    "#!/bin/sh\necho deploy\n",
		"scripts/backup.sh":                    "#!/bin/sh\necho backup\n",
		"scripts/restore.sh":                   "#!/bin/sh\necho restore\n",
	}
	for _, env := range []string{"prod", "staging", "dev"} {
		for _, svc := range []string{"network", "database"} {
			src, name := "../../../modules/vpc", "vpc"
			if svc == "database" {
				src, name = "../../../modules/db", "db"
			}
			files[fmt.Sprintf("projects/%s/%s/main.tf", env, svc)] = fmt.Sprintf(`module %q {
  source = %q
}

module "labels" {
  source  = "cloudposse/label/null"
  version = "0.25.0"
}

module "tools" {
  source = "git::https://github.com/acme/terraform-tools.git//iam?ref=v1.2.0"
}
`, name, src)
		}
	}
	g := scanFixture(t, files)
	var ids []string
	for _, m := range g.Modules {
		ids = append(ids, m.ID)
	}
	for _, want := range []string{"modules/vpc", "modules/db", "projects/prod/network", "projects/dev/database", "charts/api", "charts/common", "ansible/roles/web", "scripts"} {
		if !slices.Contains(ids, want) {
			t.Errorf("no module %s; modules %v", want, ids)
		}
	}
	if len(g.Modules) < 12 {
		t.Errorf("%d modules: %v", len(g.Modules), ids)
	}
	if m := module(t, g, "modules/vpc"); m.Language != "HCL" || len(m.UsedBy) != 5 {
		t.Errorf("modules/vpc: language %q, used by %v", m.Language, m.UsedBy)
	}
	wantImport(t, g, "modules/db/main.tf", "../vpc", model.ImportInternalModule, "modules/vpc")
	noImport(t, g, "modules/db/main.tf", "../legacy")
	edge(t, g, "projects/prod/database", "modules/db")
	// Terragrunt units: a terraform block's source, a dependency's config_path.
	edge(t, g, "live/prod/app", "modules/db")
	edge(t, g, "live/prod/app", "live/prod/vpc")
	edge(t, g, "live/prod/vpc", "modules/vpc")
	edge(t, g, "modules/db", "modules/vpc")
	if e := external(t, g, "terraform", "cloudposse/label/null"); len(e.UsedBy) != 6 {
		t.Errorf("registry module %+v", e)
	}
	external(t, g, "terraform", "github.com/acme/terraform-tools")
	if d := edge(t, g, "charts/api", "charts/common"); d.Kind != model.ImportWorkspacePackage {
		t.Errorf("chart dependency %+v", d)
	}
	if e := external(t, g, "helm", "redis"); e.Version != "19.0.1" {
		t.Errorf("redis chart %+v", e)
	}
	if m := module(t, g, "charts/api"); m.Name != "api" || m.Description != "The API chart" {
		t.Errorf("chart module %+v", m)
	}
	for _, e := range g.External {
		if strings.HasPrefix(e.Name, "..") {
			t.Errorf("a local module source is listed as external: %+v", e)
		}
	}
}

// A large top-level area (over 150 code files) is divided one level
// down; a small one is one module.
func TestTopLevelAreas(t *testing.T) {
	files := map[string]string{"README.md": "# tools\n"}
	for i := range 160 {
		files[fmt.Sprintf("core/part%d/f%d.c", i%4, i)] = "int f(void) { return 0; }\n"
	}
	files["tools/a.py"] = "print(1)\n"
	files["tools/b.py"] = "print(2)\n"
	files["tools/c.py"] = "print(3)\n"
	files["misc/one.sh"] = "echo 1\n"
	files["core/init.c"] = "int init(void) { return 0; }\n"
	g := scanFixture(t, files)
	for _, want := range []string{"core", "core/part0", "core/part3", "tools"} {
		module(t, g, want)
	}
	for _, m := range g.Modules {
		if m.ID == "misc" {
			t.Errorf("a directory of one script is no module")
		}
		if m.Files == 0 && m.ID != "." {
			t.Errorf("module %s owns no file", m.ID)
		}
	}
}
