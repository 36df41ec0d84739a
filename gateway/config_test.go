package gateway

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/redact"
)

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("serve.yaml", []byte(`
listen: 0.0.0.0:7777
log: {format: json}
admin: {name: Mira Rossi}
auth:
  break_glass: "off"
  roles: {admin: [alice], approver: [bob, carol], viewer: ["*"]}
projects:
  alpha: {rules: /srv/alpha}
  beta:
    gitea: {repo: acme/beta-rules, path: rules/bridle.yaml}
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITEA_URL": "https://gitea.example", "GITEA_TOKEN_FILE": "/run/secrets/gitea_token", "BRIDLE_LISTEN": "127.0.0.1:9000",
		"BRIDLE_ALLOWED_ORIGINS": "https://panel.example, https://other.example"}
	c = c.Env(func(k string) string { return env[k] })
	if c.Listen != "127.0.0.1:9000" || c.Log.Format != "json" || c.Projects["beta"].Gitea.URL != "https://gitea.example" ||
		c.Projects["beta"].Gitea.TokenFile != "/run/secrets/gitea_token" || len(c.AllowedOrigins) != 2 ||
		!c.Auth.breakGlassOff() || len(c.Auth.Roles.Approver) != 2 || c.Auth.Roles.Viewer[0] != "*" {
		t.Errorf("config = %+v", c)
	}
	if c, err = c.Defaults(func(string) string { return "" }); err != nil || c.StateDir == "" || c.MaxBodyBytes != DefaultMaxBodyBytes {
		t.Errorf("defaults: %v %+v", err, c)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

func TestParseConfigErrorsArePositioned(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"listn: x\n", `serve.yaml:1:1: bad configuration: unknown key "listn" (did you mean "listen"?)`},
		{"projects:\n  a:\n    rulez: /x\n", `serve.yaml:3:5: bad configuration: unknown key "rulez" (did you mean "rules"?)`},
		{"projects:\n  a:\n    gitea: {rpo: a/b}\n", `serve.yaml:3:13: bad configuration: unknown key "rpo" (did you mean "repo"?)`},
		{"listen: [1\n", "serve.yaml"},
		{"projects: 3\n", "serve.yaml"},
		{"auth:\n  roles: {approvers: [bob]}\n", `serve.yaml:2:11: bad configuration: unknown key "approvers" (did you mean "approver"?)`},
	} {
		_, err := ParseConfig("serve.yaml", []byte(tc.doc))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.doc, err, tc.want)
		}
	}
	if _, err := ParseConfig("big.yaml", make([]byte, MaxConfig+1)); !errors.Is(err, ErrConfig) {
		t.Errorf("oversized: %v", err)
	}
	if c, err := ParseConfig("empty.yaml", nil); err != nil || len(c.Projects) != 0 {
		t.Errorf("empty: %v", err)
	}
}

func TestValidateSaysEveryProblem(t *testing.T) {
	c := Config{Log: LogConfig{Format: "xml"}, TLS: TLSConfig{CertFile: "c"}, AllowedOrigins: []string{"panel.example"},
		Auth: AuthConfig{BreakGlass: "maybe", Roles: RolesConfig{Viewer: []string{""}},
			OIDC: &OIDCConfig{Issuer: "http://gitea.example", ClientSecret: "gto_the-value-itself", RedirectURL: "https://b.example/callback"}},
		Projects: map[string]ProjectConfig{"Bad ID": {Rules: "x"}, "both": {Rules: "x", Gitea: &GiteaConfig{Repo: "a/b", URL: "u"}},
			"none": {}, "g": {Gitea: &GiteaConfig{Repo: "nope"}}}}
	err := c.Validate()
	for _, want := range []string{`project "Bad ID"`, "project both: set rules: or gitea:, not both", "project none: set rules:",
		"project g: gitea: no url", `gitea.repo "nope"`, `log.format "xml"`, "tls: set both", `"panel.example" is not an origin`,
		`auth.break_glass "maybe"`, `auth.roles.viewer: "" is not a name`, `auth.oidc.issuer "http://gitea.example"`,
		"auth.oidc.client_id: set", "auth.oidc.client_secret: a value never goes in the configuration", `auth.oidc.redirect_url "https://b.example/callback"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q in it", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "gto_the-value-itself") {
		t.Errorf("Validate() echoes a client secret written in the configuration: %v", err)
	}
	if err := (Config{Log: LogConfig{Format: "text"}}).Validate(); err == nil || !strings.Contains(err.Error(), "no projects") {
		t.Errorf("no projects: %v", err)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("listen: x\nprojects: {a: {rules: /x}}\n"))
	f.Add([]byte("projects:\n  a:\n    gitea: {repo: a/b}\n"))
	f.Add([]byte("admin: [1, 2]\n"))
	f.Add([]byte("auth: {break_glass: off, roles: {admin: [a], viewer: ['*']}}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConfig("f.yaml", b)
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("an error that is not ErrConfig: %v", err)
			}
			return
		}
		c.Validate()
	})
}

func TestTokensStoreOnlyHashes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway", "agents.json")
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ts, err := OpenTokens(path, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	tok, info, err := ts.Add("alpha", "claude")
	if err != nil || !strings.HasPrefix(tok, TokenPrefix) || len(tok) != len(TokenPrefix)+43 || info.Created != now {
		t.Fatalf("add: %q %+v %v", tok, info, err)
	}
	if _, _, err := ts.Add("alpha", "claude"); !errors.Is(err, ErrExists) {
		t.Errorf("adding twice: %v", err)
	}
	if _, _, err := ts.Add("alpha", "Bad Name"); !errors.Is(err, ErrInput) {
		t.Errorf("a bad agent name: %v", err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), tok) || !strings.Contains(string(b), hashToken(tok)) {
		t.Errorf("the store holds the token, or not its hash:\n%s", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("the store's mode is %v", st.Mode().Perm())
	}
	reopened, err := OpenTokens(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := reopened.Verify(tok); !ok || a.Project != "alpha" || a.Agent != "claude" {
		t.Errorf("reopened: %+v %v", a, ok)
	}
	tok2, _, err := reopened.Rotate("alpha", "claude")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reopened.Verify(tok); ok {
		t.Error("the old token verifies after rotation")
	}
	if _, err := reopened.Revoke("alpha", "claude"); err != nil {
		t.Fatal(err)
	}
	if _, ok := reopened.Verify(tok2); ok {
		t.Error("a revoked token verifies")
	}
	for _, bad := range []string{"", "x", TokenPrefix, strings.Repeat("b", 300)} {
		if _, ok := reopened.Verify(bad); ok {
			t.Errorf("%q verifies", bad)
		}
	}
	if _, err := reopened.Revoke("alpha", "claude"); !errors.Is(err, ErrNoSuchItem) {
		t.Errorf("revoking twice: %v", err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenTokens(path, nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a corrupt store: %v", err)
	}
}

func TestAdminCredential(t *testing.T) {
	state := t.TempDir()
	red := redact.New()
	a, err := LoadAdmin("", state, red)
	if err != nil || !a.Generated || a.Path != filepath.Join(state, "admin-token") {
		t.Fatalf("generated: %+v %v", a, err)
	}
	b, _ := os.ReadFile(a.Path)
	if st, _ := os.Stat(a.Path); st.Mode().Perm() != 0o600 || !a.Check(strings.TrimSpace(string(b))) || a.Check("x") {
		t.Errorf("the generated credential: mode %v", st.Mode().Perm())
	}
	if !red.Contains(string(b)) {
		t.Error("the generated credential is not masked")
	}
	// Only the hash is needed from now on: the credential may be moved away.
	if err := os.Remove(a.Path); err != nil {
		t.Fatal(err)
	}
	again, err := LoadAdmin("", state, redact.New())
	if err != nil || again.Generated || !again.Check(strings.TrimSpace(string(b))) {
		t.Errorf("a second start made a new credential: %+v %v", again, err)
	}
	os.WriteFile(filepath.Join(state, "admin-token.sha256"), []byte("not a hash\n"), 0o600)
	if _, err := LoadAdmin("", state, redact.New()); !errors.Is(err, ErrConfig) {
		t.Errorf("a corrupt hash file: %v", err)
	}
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, []byte("abc\n"), 0o600)
	if _, err := LoadAdmin(short, state, redact.New()); !errors.Is(err, ErrConfig) {
		t.Errorf("a short credential: %v", err)
	}
	if _, err := LoadAdmin(filepath.Join(state, "missing"), state, redact.New()); err == nil {
		t.Error("a missing credential file was accepted")
	}
}

func TestKanboardAndUpstreamConfig(t *testing.T) {
	c, err := ParseConfig("serve.yaml", []byte(`
projects:
  runic:
    rules: /srv/runic
    kanboard:
      projects: [1, 3]
      agents:
        claude: {user: claude-bot, token_file: /run/secrets/kb_claude}
    upstreams:
      gitea:
        command: [gitea-mcp, -t, stdio]
        env: {GITEA_HOST: https://gitea.example}
        secrets: {GITEA_ACCESS_TOKEN: /run/secrets/gitea_token}
        tools: {delete_repo: deny}
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KANBOARD_URL": "http://kanboard/jsonrpc.php", "KANBOARD_TOKEN_FILE": "/run/secrets/kanboard_token"}
	c = c.Env(func(k string) string { return env[k] })
	k := c.Projects["runic"].Kanboard
	if k.URL != env["KANBOARD_URL"] || k.User != "jsonrpc" || k.TokenFile != env["KANBOARD_TOKEN_FILE"] || k.Agents["claude"].User != "claude-bot" {
		t.Errorf("kanboard = %+v", k)
	}
	c.Log.Format = "text"
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	bad := Config{Log: LogConfig{Format: "text"}, Projects: map[string]ProjectConfig{"p": {Rules: "/x",
		Kanboard: &KanboardConfig{Projects: []int{0}, Agents: map[string]KanboardUser{"claude": {User: "c"}}},
		Upstreams: map[string]UpstreamConfig{
			"Bad-Name": {Command: []string{"x"}},
			"gitea":    {Command: []string{"x"}, URL: "https://y", Tools: map[string]string{"a": "admin"}},
			"slack":    {URL: "ftp://x"},
		}}}}
	err = bad.Validate()
	for _, want := range []string{"kanboard: no url", "KANBOARD_PROJECTS): 0", "kanboard.agents.claude: set user and token (secret:NAME) or token_file",
		`upstream "Bad-Name"`, "upstream gitea: set command: (a stdio server) or url:", `tools.a: "admin"`,
		`upstream slack: url "ftp://x"`, `upstream slack: permission "slack"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want %q in it", err, want)
		}
	}
}

func TestParseIntegrations(t *testing.T) {
	env := map[string]string{"KANBOARD_URL": "http://kb/jsonrpc.php", "KANBOARD_TOKEN_FILE": "/run/secrets/kb", "KANBOARD_PROJECTS": "2, 5"}
	p, err := ParseIntegrations("mcp.yaml", []byte("kanboard: {}\nupstreams:\n  gitea: {command: [gitea-mcp, -t, stdio], env: {GITEA_HOST: https://g}}\n"),
		func(k string) string { return env[k] })
	if err != nil || p.Kanboard.URL != env["KANBOARD_URL"] || !slices.Equal(p.Kanboard.Projects, []int{2, 5}) || len(p.Upstreams["gitea"].Command) != 3 {
		t.Errorf("%+v %v", p, err)
	}
	for _, tc := range []struct{ doc, want string }{
		{"rules: /x\n", `mcp.yaml:1:1: bad configuration: unknown key "rules"`},
		{"upstreams: {gitea: {}}\n", "upstream gitea: set command:"},
		{"kanboard: {url: x}\nkanbord: {}\n", `did you mean "kanboard"?`},
	} {
		if _, err := ParseIntegrations("mcp.yaml", []byte(tc.doc), func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.doc, err, tc.want)
		}
	}
}
