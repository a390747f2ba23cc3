// Package secretstest is the corpus the secret rules are held to: text
// that holds a secret, and text that only looks like it. The tests of the
// rules, of the server's output filter and the benchmarks share it.
package secretstest

import "strings"

// The keys below are fake but shaped like real ones. They are assembled
// from pieces so that this file does not itself look like a leak to a
// scanner (ours included).
func j(parts ...string) string { return strings.Join(parts, "") }

var (
	rnd40 = "Zk39fLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8Ue2Ka1Qw"
	rnd48 = "T3BlbkFJq8Zk39fLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8Ue2Ka"
	// PEMBody is key material: base64 lines of a private key.
	PEMBody = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
	pemBody = PEMBody
)

// Case is a text that holds one secret, the rule that finds it and how
// sure that rule is ("high" or "medium").
type Case struct {
	Name, Text, Rule, Severity string
}

const (
	High   = "high"
	Medium = "medium"
)

// Positives are texts that hold exactly one secret each.
func Positives() []Case {
	return []Case{
		{"rsa key", j("-----BEGIN RSA ", "PRIVATE KEY-----\n", pemBody, "-----END RSA ", "PRIVATE KEY-----\n"), "private-key", High},
		{"openssh key", j("-----BEGIN OPENSSH ", "PRIVATE KEY-----\n", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n", "-----END OPENSSH ", "PRIVATE KEY-----"), "private-key", High},
		{"pgp key", j("-----BEGIN PGP ", "PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n", "lQOYBF0iRnEBCADW1bC5g7L9eUHb5T2Lk4kXr5RQ2p9cZ7mJdN0vYh8sWq3aFt6u\n=abcd\n-----END PGP ", "PRIVATE KEY BLOCK-----"), "private-key", High},
		{"key without footer", j("-----BEGIN EC ", "PRIVATE KEY-----\n", pemBody), "private-key", High},
		{"gcp service account", j(`{"type": "service_account", "private_key_id": "`, "3f1c5e8a9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a", `"}`), "gcp-service-account", High},
		{"gcp private key", j(`  "private_key": "-----BEGIN `, `PRIVATE KEY-----\n`, strings.ReplaceAll(pemBody, "\n", `\n`), `-----END `, `PRIVATE KEY-----\n",`), "gcp-service-account", High},
		{"aws access key", j("aws_access_key_id = AKIA", "Q3EGRT5LZKDW7NPV"), "aws-access-key", High},
		{"aws key of gitleaks' fixtures", j("aws_access_key_id = AKIA", "LALEMEL33243OLIA"), "aws-access-key", High},
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
		{"random key assignment", j(`key="`, "ToCynx5Se4e2PtoZxEhW7lUJcOX15c54", `"`), "assigned-secret", Medium},
		{"password in prose", "The staging password is hunter2-staging-2024.", "password-in-text", Medium},
		{"short password in prose", "password is hunter2-Xk9q", "password-in-text", Medium},
		{"password after a colon", "db password: Tr0ub4dor&3", "password-in-text", Medium},
		{"passphrase", "the passphrase was 'correct-horse-battery-staple'", "password-in-text", Medium},
		{"pwd assignment", "root pwd = s3cr3tP@ss!", "password-in-text", Medium},
		{"password without a verb", "log in as admin with password hunter2-Xk9q", "password-in-text", Medium},
	}
}

// Negatives are texts that hold no secret, however they look.
func Negatives() []string {
	return []string{
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
		// Code that names secrets (crypto/tls, emoji tables, crypto/x509).
		"\t\tPrivateKey:  testP256PrivateKey,",
		"\ths.extendedMasterSecret = hs.clientHello.extendedMasterSecret",
		`    "secret": "\u3299\ufe0f",`,
		"// The private key MarshalPKCS1PrivateKey returns is DER.",
		"\ttokens = 2*maxCompilerConcurrency + minTokens*cfg.BuildP",
		// Hashes and identifiers of secrets, and other scanners' allow marks.
		`        "hashed_secret": "871deb5e9ff5ce5f777c8d3327511d05f581e755",`,
		j("secret_key_id = ", "a8f3k2m9q7w1e5r6x7z9"),
		"public_key: AAAAC3NzaC1lZDI1NTE5AAAAIKx9a8f3k2m9q7w1e5r6",
		"password = 12345678901234  # pragma: allowlist secret",
		j("token = ", "a8f3k2m9q7w1e5r6x7z9 # gitleaks:allow"),
		j("value: AKIA", "TESTTESTTESTTEST"),
		`	b.Run("Key=smallType/Elem=int32", benchSizes(benchmarkMapIter[smallType, int32]))`,
		"",
	}
}
