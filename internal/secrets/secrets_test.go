package secrets

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/secrets/secretstest"
)

// The keys below are fake but shaped like real ones. They are assembled
// from pieces so that this file does not itself look like a leak to a
// scanner (ours included).
func j(parts ...string) string { return strings.Join(parts, "") }

var (
	pemBody = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
)

func TestPositives(t *testing.T) {
	for _, c := range secretstest.Positives() {
		t.Run(c.Name, func(t *testing.T) {
			fs := Scan(c.Text)
			if len(fs) != 1 {
				t.Fatalf("%d findings %v in %q", len(fs), fs, c.Text)
			}
			f := fs[0]
			if f.Rule != c.Rule || f.Severity.String() != c.Severity {
				t.Fatalf("got %s/%s, want %s/%s", f.Rule, f.Severity, c.Rule, c.Severity)
			}
			red, rf := Redact(c.Text)
			if len(rf) != 1 || !strings.Contains(red, "[redacted:"+c.Rule+"]") {
				t.Fatalf("redacted: %q", red)
			}
			if again := Scan(red); len(again) != 0 {
				t.Fatalf("still found after redaction: %v in %q", again, red)
			}
			if strings.Contains(f.Excerpt, c.Text[f.Start:f.End]) && f.End-f.Start > 10 {
				t.Errorf("excerpt %q shows the secret", f.Excerpt)
			}
		})
	}
}

func TestNegatives(t *testing.T) {
	for _, text := range secretstest.Negatives() {
		if fs := Scan(text); len(fs) != 0 {
			t.Errorf("false positive in %q: %v", text, fs)
		}
	}
}

func TestAllowMarkerAndPatterns(t *testing.T) {
	key := j("AKIA", "Q3EGRT5LZKDW7NPV")
	if fs := Scan(key + " # kontext:allow-secret"); len(fs) != 0 {
		t.Fatalf("allow marker ignored: %v", fs)
	}
	s, err := New([]string{`^fixture:`}, []string{`ACME-[0-9]{4}`})
	if err != nil {
		t.Fatal(err)
	}
	if fs := s.Scan("fixture: " + key); len(fs) != 0 {
		t.Fatalf("allow pattern ignored: %v", fs)
	}
	red, fs := s.Redact("client ACME-1234 uses " + key + "\nok")
	if len(fs) != 2 || fs[0].Rule != CustomRule || fs[1].Rule != "aws-access-key" {
		t.Fatalf("findings %v", fs)
	}
	if red != "client [redacted:custom] uses [redacted:aws-access-key]\nok" {
		t.Fatalf("redacted %q", red)
	}
	if _, err := New([]string{"("}, nil); err == nil {
		t.Fatal("bad allow pattern accepted")
	}
	if _, err := New(nil, []string{"("}); err == nil {
		t.Fatal("bad redact pattern accepted")
	}
}

func TestPositionsAndOverlaps(t *testing.T) {
	text := j("line one\n  é token: ghp", "_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b\n")
	fs := Scan(text)
	if len(fs) != 1 {
		t.Fatalf("%v", fs)
	}
	// The assignment rule and the GitHub rule overlap: one high finding.
	if f := fs[0]; f.Rule != "github-token" || f.Severity != High || f.Line != 2 || f.Col != 12 {
		t.Fatalf("%+v", f)
	}
	red, _ := Redact(text)
	if red != "line one\n  é token: [redacted:github-token]\n" {
		t.Fatalf("%q", red)
	}
	if !HasHigh(fs) || HasHigh(nil) {
		t.Fatal("HasHigh")
	}
	if s := fs[0].String(); !strings.Contains(s, "2:12: high secret (github-token)") {
		t.Fatal(s)
	}
}

func TestIsSecretFile(t *testing.T) {
	secret := []string{
		".env", ".env.local", "apps/api/.env.production", ".envrc", ".env.keys", "deploy/prod.env", ".env~", ".env.bak",
		"id_rsa", "home/.ssh/config", "keys/id_ed25519", "id_rsa.pub", "id_rsa~", "id_dsa", "id_ecdsa", "id_ecdsa_sk", ".ssh",
		"tls/server.pem", "server.key", "tls.crt", "k8s/tls.crt", "cert.p12", "cert.pfx", "app.keystore", "release.jks", "AuthKey_ABC.p8",
		"infra/terraform.tfstate", "infra/terraform.tfstate.backup", "infra/prod.tfvars", "x.tfvars.json",
		"credentials.json", "credentials.yaml", "credentials.yml", "credentials.txt", "credentials.csv", "credentials",
		".cargo/credentials.toml", ".cargo/credentials", ".aws/credentials", ".aws/config", ".gem/credentials",
		".npmrc", ".pypirc", ".netrc", "_netrc", ".git-credentials", ".htpasswd", "auth.json", ".pgpass",
		".gnupg/pubring.kbx", "home/.gnupg/private-keys-v1.d/x.key", ".docker/config.json", ".dockercfg",
		".kube/config", "kubeconfig", "kubeconfig.yaml", "clusters/prod.kubeconfig", ".vault-token", ".s3cfg", ".my.cnf",
		".config/gcloud/application_default_credentials.json", ".azure/accessTokens.json", ".terraformrc",
		"service-account.json", "service_account.json", "gcp/service-account-prod.json", "my-service_account.json",
		"config/secrets.yml", "k8s/app-secret.yaml", "secrets.json", "client_secret.json", "passwords.txt", "secret",
		"deploy/secrets/db-password", "vagrant/insecure_private_key", `C:\Users\me\.env`, " .env", ".env ", "Cmd/App/../../.ENV",
		"release.keystore.orig", "#.env#", "..env.swp", "db.kdbx",
	}
	public := []string{
		".env.example", ".env.sample", ".env.template", ".env.dist", "apps/api/.env.local.example", "example.env",
		"credentials.example.json", "src/main.go", "README.md", "docs/secrets.md", "internal/secrets/secrets.go", "keyboard.ts",
		"service-account.md", "environment.ts", "src/env.go", "monkey.go", ".envoy.yaml", "credentials.go", "SecretStore.java",
		"docs/credentials.md", "token.go", "kube/config.go", ".docker/daemon.json", "cmd/app/config.json", ".secrets.baseline",
		"pkg/secret/secret.go", "internal/secrets/files.go", "",
	}
	for _, p := range secret {
		if !IsSecretFile(p) {
			t.Errorf("%s should be a secret file", p)
		}
	}
	for _, p := range public {
		if IsSecretFile(p) {
			t.Errorf("%s should not be a secret file", p)
		}
	}
}

func TestSecretContent(t *testing.T) {
	secret := map[string]string{
		"private-key":         j("notes\n-----BEGIN RSA ", "PRIVATE KEY-----\n", pemBody, "-----END RSA ", "PRIVATE KEY-----\n"),
		"gcp-service-account": j(`{"type": "service_account", "project_id": "p", "private_key`, `_id": "x", "client_email": "a@b"}`),
		"kubeconfig": j("apiVersion: v1\nkind: Config\nclusters: []\nusers:\n- name: admin\n  user:\n    client-key-data: ",
			"LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=\n"),
		"docker-auth":     j(`{"auths": {"registry.example.com": {"auth": "`, `YWRtaW46aHVudGVyMg=="}}}`),
		"npm-auth":        j("registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=", "npm_Zk39fLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8Ue2K\n"),
		"netrc":           j("machine api.github.com\n  login me\n  password ", "ghp_secretvalue\n"),
		"pypirc":          j("[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = ", "pypi-AgEIcHlwaS5vcmc\n"),
		"aws-credentials": j("[default]\naws_access_key_id = x\naws_secret_access_key = ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8kP2mNqL\n"),
	}
	for want, text := range secret {
		if got := SecretContent("", []byte(text)); got != want {
			t.Errorf("%s: got %q for %q", want, got, text)
		}
	}
	// A parser of the netrc format is not a netrc file (cmd/go/internal/auth).
	parser := "type netrcLine struct {\n\tmachine  string\n\tlogin    string\n\tpassword string\n}\n"
	if got := SecretContent("auth/netrc.go", []byte(parser)); got != "" {
		t.Errorf("a Go file taken for a netrc file (%s)", got)
	}
	if got := SecretContent("notes.txt", []byte("machine example.org\n  password "+j("hunter", "2xyz")+"\n")); got != "netrc" {
		t.Errorf("a netrc in notes.txt: %q", got)
	}
	for _, text := range []string{
		"package main\n\nfunc main() {}\n",
		j("Keys start with -----BEGIN RSA ", "PRIVATE KEY----- and we never commit them."),
		"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n",
		"apiVersion: v1\nkind: Config\nusers:\n- name: x\n  user:\n    exec:\n      command: gke-gcloud-auth-plugin\n",
		`{"auths": {"ghcr.io": {}}, "credsStore": "desktop"}`,
		"the machine learning password reset flow",
		"",
	} {
		if got := SecretContent("", []byte(text)); got != "" {
			t.Errorf("%q taken for a secret file (%s)", text, got)
		}
	}
}

func FuzzScan(f *testing.F) {
	f.Add("token: ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b")
	f.Add("-----BEGIN RSA PRIVATE KEY-----\n" + pemBody)
	f.Add("é\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		red, fs := Redact(s)
		for _, f := range fs {
			if f.Start < 0 || f.End > len(s) || f.Start >= f.End || f.Line < 1 || f.Col < 1 {
				t.Fatalf("bad finding %+v", f)
			}
		}
		if len(fs) == 0 && red != s {
			t.Fatal("text changed without findings")
		}
	})
}

// The output filter finds every secret of the corpus, as plain text and
// as the JSON string a tool result carries it in, and changes nothing
// else.
func TestFilter(t *testing.T) {
	f := NewFilter(nil)
	for _, c := range secretstest.Positives() {
		enc, _ := json.Marshal(c.Text)
		if !f.Suspect([]byte(c.Text)) || !f.Suspect(enc) {
			t.Errorf("%s: not suspected", c.Name)
		}
		if out := f.Redact("", c.Text); !strings.Contains(out, "[redacted:"+c.Rule+"]") {
			t.Errorf("%s: %q", c.Name, out)
		}
	}
	for _, text := range secretstest.Negatives() {
		if out := f.Redact("", text); out != text {
			t.Errorf("changed %q to %q", text, out)
		}
	}
	for _, text := range []string{"src/app.ts imports ./util", `{"modules":[{"id":"src","files":12}]}`, ""} {
		if f.Suspect([]byte(text)) {
			t.Errorf("%q suspected", text)
		}
	}
	// A value in structured content is seen with its member's name.
	for key, value := range map[string]string{
		"password":       "hunter2hunter2hunter2",
		"private_key_id": "3f1c5e8a9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a",
		"DB_PASSWORD":    "Zk39fLq2Rv81TbW7",
		"note":           j("uses sk", "_live_", "51Hq8ZkLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8"),
	} {
		if out := f.Redact(key, value); !strings.HasPrefix(out, "[redacted:") && !strings.HasPrefix(out, "uses [redacted:") {
			t.Errorf("%s: %q", key, out)
		}
	}
	for key, value := range map[string]string{"password": "changeme", "hashed_secret": "871deb5e9ff5ce5f777c8d3327511d05f581e755", "module": "internal/secrets"} {
		if out := f.Redact(key, value); out != value {
			t.Errorf("%s: %q became %q", key, value, out)
		}
	}
	// A configured pattern's literal prefix is its hint; one without a
	// literal makes every text suspect.
	custom, err := New(nil, []string{`ACME-[0-9]{4}`})
	if err != nil {
		t.Fatal(err)
	}
	if cf := NewFilter(custom); cf.Suspect([]byte("plain")) || !cf.Suspect([]byte("id acme-1234")) || cf.Redact("", "id ACME-1234") != "id [redacted:custom]" {
		t.Error("a configured pattern with a literal prefix")
	}
	custom, _ = New(nil, []string{`[A-Z]{4}-[0-9]{4}`})
	if cf := NewFilter(custom); !cf.Suspect([]byte("plain")) || cf.Redact("", "id ACME-1234") != "id [redacted:custom]" {
		t.Error("a configured pattern without a literal")
	}
}
