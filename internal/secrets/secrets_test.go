package secrets

import (
	"strings"
	"testing"
)

// The keys below are fake but shaped like real ones. They are assembled
// from pieces so that this file does not itself look like a leak to a
// scanner (ours included).
func j(parts ...string) string { return strings.Join(parts, "") }

var (
	rnd40   = "Zk39fLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8Ue2Ka1Qw"
	rnd48   = "T3BlbkFJq8Zk39fLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8Ue2Ka"
	pemBody = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
)

func TestPositives(t *testing.T) {
	cases := []struct {
		name, text, rule string
		sev              Severity
	}{
		{"rsa key", j("-----BEGIN RSA ", "PRIVATE KEY-----\n", pemBody, "-----END RSA ", "PRIVATE KEY-----\n"), "private-key", High},
		{"openssh key", j("-----BEGIN OPENSSH ", "PRIVATE KEY-----\n", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n", "-----END OPENSSH ", "PRIVATE KEY-----"), "private-key", High},
		{"pgp key", j("-----BEGIN PGP ", "PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n", "lQOYBF0iRnEBCADW1bC5g7L9eUHb5T2Lk4kXr5RQ2p9cZ7mJdN0vYh8sWq3aFt6u\n=abcd\n-----END PGP ", "PRIVATE KEY BLOCK-----"), "private-key", High},
		{"key without footer", j("-----BEGIN EC ", "PRIVATE KEY-----\n", pemBody), "private-key", High},
		{"gcp service account", j(`{"type": "service_account", "private_key_id": "`, "3f1c5e8a9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a", `"}`), "gcp-service-account", High},
		{"gcp private key", j(`  "private_key": "-----BEGIN `, `PRIVATE KEY-----\n`, strings.ReplaceAll(pemBody, "\n", `\n`), `-----END `, `PRIVATE KEY-----\n",`), "gcp-service-account", High},
		{"aws access key", j("aws_access_key_id = AKIA", "Q3EGRT5LZKDW7NPV"), "aws-access-key", High},
		{"aws temporary key", j("ASIA", "Y6TQ2KJ8PLMN4RWX in the log"), "aws-access-key", High},
		{"aws secret key", j("AWS_SECRET_ACCESS_KEY=", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8kP2mNqL"), "aws-secret-key", High},
		{"github token", j("token ghp", "_", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b here"), "github-token", High},
		{"github app token", j("ghs", "_", "16C7e42F292c6912E7710c838347Ae178B4a"), "github-token", High},
		{"github fine-grained pat", j("github", "_pat_", "11ABCDEFG0", "aB3dE5fG7hJ9kL1mN3pQ5r_S7tU9vW1xY3zA5bC7dE9fG1hJ3kL5mN7pQ9rS1tU3vW5xY7zA9b"), "github-pat", High},
		{"gitlab token", j("glpat", "-", "Zk39fLq2Rv81TbW7xNc5"), "gitlab-token", High},
		{"slack bot token", j("xoxb", "-", "2848296491-4839201948-Zk39fLq2Rv81TbW7xNc5Hy4M"), "slack-token", High},
		{"slack webhook", j("https://hooks.slack.com/services/", "T0AB12CD3/B0CD34EF5/", "Zk39fLq2Rv81TbW7xNc5Hy4M"), "slack-webhook", High},
		{"stripe live key", j("sk", "_live_", "51Hq8ZkLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8"), "stripe-key", High},
		{"stripe restricted key", j("rk", "_live_", "51Hq8ZkLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8"), "stripe-key", High},
		{"anthropic key", j("ANTHROPIC_API_KEY=sk", "-ant-", "api03-", rnd48, "-", rnd40, "AA"), "anthropic-key", High},
		{"openai project key", j("OPENAI_API_KEY=sk", "-proj-", rnd48), "openai-key", High},
		{"openai legacy key", j("sk", "-", rnd48), "openai-key", High},
		{"dotenv vault", j("DOTENV_KEY=dotenv://:key_", "0dec82bea24ada79a983dcc11b431e28838eae59a07a8f983247c7ca9027a925", "@dotenv.org/vault/.env.vault?environment=production"), "dotenv-vault", High},
		{"bearer header", j("curl -H 'Authorization: Bearer ", "Zk39fLq2Rv81TbW7xNc5Hy4Mg6Dp'"), "bearer-token", High},
		{"url credentials", j("DATABASE_URL=postgres://app:", "Zk39fLq2Rv81", "@db.internal:5432/app"), "url-credentials", High},
		{"google api key", j("key=AIza", "SyD3fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b"), "google-api-key", Medium},
		{"jwt", j("cookie: eyJ", "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ", "zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"), "jwt", Medium},
		{"token assignment", j("SENTRY_AUTH_TOKEN=", "a8f3k2m9q7w1e5r6"), "assigned-secret", Medium},
		{"password in yaml", "  password: hunter2hunter2hunter2", "assigned-secret", Medium},
		{"secret in a sentence", j("Rotate it: the secret is ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8kP2mNq now"), "secret-in-text", Medium},
		{"api key in a sentence", j("and the api key ", "3fA9kQ2mZx7LpR4sT8vW1yB6nC0dE5gH."), "secret-in-text", Medium},
		{"hex token in a sentence", j("Our API token is ", "7f3a9c2e1b4d8f6a0c5e9b3d7f1a2c4e for staging"), "secret-in-text", Medium},
		{"npm token", j("//registry.npmjs.org/:_authToken=npm", "_", "Zk39fLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8Ue2K"), "npm-token", High},
		{"pypi token", j("password = pypi", "-AgEIcHlwaS5vcmc", "CJGQ2NjFhYmUyLWIwZDQtNGE3NC1hZjU0LTJiMmY1ZjQ0NzlkMQACKlszLCJ"), "pypi-token", High},
		{"password in prose", "The staging password is hunter2-staging-2024.", "password-in-text", Medium},
		{"short password in prose", "password is hunter2-Xk9q", "password-in-text", Medium},
		{"password after a colon", "db password: Tr0ub4dor&3", "password-in-text", Medium},
		{"passphrase", "the passphrase was 'correct-horse-battery-staple'", "password-in-text", Medium},
		{"pwd assignment", "root pwd = s3cr3tP@ss!", "password-in-text", Medium},
		{"password without a verb", "log in as admin with password hunter2-Xk9q", "password-in-text", Medium},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := Scan(c.text)
			if len(fs) != 1 {
				t.Fatalf("%d findings %v in %q", len(fs), fs, c.text)
			}
			f := fs[0]
			if f.Rule != c.rule || f.Severity != c.sev {
				t.Fatalf("got %s/%s, want %s/%s", f.Rule, f.Severity, c.rule, c.sev)
			}
			red, rf := Redact(c.text)
			if len(rf) != 1 || !strings.Contains(red, "[redacted:"+c.rule+"]") {
				t.Fatalf("redacted: %q", red)
			}
			if again := Scan(red); len(again) != 0 {
				t.Fatalf("still found after redaction: %v in %q", again, red)
			}
			if strings.Contains(f.Excerpt, c.text[f.Start:f.End]) && f.End-f.Start > 10 {
				t.Errorf("excerpt %q shows the secret", f.Excerpt)
			}
		})
	}
}

func TestNegatives(t *testing.T) {
	for _, text := range []string{
		"The token budget is 1400 and secret management lives in Vault.",
		"The token refresher lives in src/auth/TokenRefreshHandler2 now.",
		"Set the api key to YOUR_API_KEY_GOES_HERE_1234567 first.",
		"password hashing uses argon2id with a per-user salt",
		"request 123e4567-e89b-12d3-a456-426614174000 failed",
		"commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 fixed it",
		"the token hash is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
		j("aws_access_key_id = AKIA", "IOSFODNN7EXAMPLE"),
		j("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"),
		"OPENAI_API_KEY=sk-...",
		"OPENAI_API_KEY=<your key>",
		"export GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
		"DB_PASSWORD=${DB_PASSWORD}",
		"token: process.env.SLACK_TOKEN_VALUE",
		"password: changeme",
		"postgres://user:password@localhost:5432/app",
		"https://user:pass@example.com/path",
		"Authorization: Bearer <token>",
		"Authorization: Bearer $TOKEN",
		j("Keys start with -----BEGIN RSA ", "PRIVATE KEY----- and we never commit them."),
		j("-----BEGIN ", "PRIVATE KEY-----\n...\n-----END ", "PRIVATE KEY-----"),
		"sk-learn-is-the-name-of-a-python-library-for-ml",
		"task-0123456789abcdefghijklmnopqrstuvwxyz is a branch name",
		"max_tokens: 4096",
		"accessToken: accessTokenFromResponse",
		"const token = getToken(request.headers)",
		"See https://github.com/acme/shop/pull/42 for details.",
		"eyJhbGciOiJIUzI1NiJ9 is just a header",
		"The API key header is X-Api-Key and the secret store is AWS Secrets Manager.",
		"password is required",
		"the password is hashed with argon2id",
		"the password is argon2id-hashed before it is stored",
		"Password is at least 12 characters long.",
		"password must be 8-64 chars",
		"password: ${DB_PASSWORD}",
		"the password field is optional",
		"reset the password via /account/reset2",
		"the token for commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b landed",
		"npm_config_registry is read from the environment",
		"",
	} {
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
		if got := SecretContent([]byte(text)); got != want {
			t.Errorf("%s: got %q for %q", want, got, text)
		}
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
		if got := SecretContent([]byte(text)); got != "" {
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
