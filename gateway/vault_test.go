package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"filippo.io/age"

	"github.com/bridle-dev/bridle/internal/kanboardtest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
	"github.com/bridle-dev/bridle/upstream"
	"github.com/bridle-dev/bridle/vault"
	"github.com/bridle-dev/bridle/vault/sopsfile"
)

// withVault gives the gateway an in-process SOPS codec (the real one, in
// this process instead of the bridle-sops helper) and a server-wide vault
// directory; it returns the age recipient .sops.yaml files should name.
func withVault(t *testing.T) (gwOption, string) {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := vault.Init(context.Background(), dir, []string{id.Recipient().String()}, nil); err != nil {
		t.Fatal(err)
	}
	return func(c *Config, o *Options) {
		c.Secrets.Dir = dir
		o.NewCodec = func() (vault.Codec, error) { return sopsfile.Codec{Identities: []string{id.String()}}, nil }
	}, id.Recipient().String()
}

// TestVaultThroughTheGateway: a Kanboard token kept in a project's vault
// is set, rotated under load and revoked through the admin API; no value
// appears in any answer, audit event, log line, metric, MCP result or
// commit.
func TestVaultThroughTheGateway(t *testing.T) {
	const oldTok, newTok = "kb-canary-old-7f3e1d2c", "kb-canary-new-9a8b7c6d"
	kb := kanboardtest.New(t, oldTok)
	runic := kb.AddProject("runic")
	kb.SeedTasks(runic, 2)
	opt, recipient := withVault(t)
	rules := upstreamtest.Rules(t) // the example's permissions: codex reads Kanboard
	if _, err := vault.Init(context.Background(), rules, []string{recipient}, nil); err != nil {
		t.Fatal(err)
	}
	g := start(t, nil, opt, func(c *Config, _ *Options) {
		c.Projects = map[string]ProjectConfig{"alpha": {Rules: rules,
			Kanboard: &KanboardConfig{URL: kb.Endpoint(), User: "jsonrpc", Token: "secret:kanboard-app", Projects: []int{runic}}}}
	})
	var answers strings.Builder
	api := func(method, path string, in any, want int) {
		t.Helper()
		var out map[string]any
		if code := g.api(t, adminToken, method, path, in, &out); code != want {
			t.Fatalf("%s %s: %d %v, want %d", method, path, code, out, want)
		}
		answers.WriteString(strings.Join([]string{method, path, toJSON(out)}, " ") + "\n")
	}
	codex := g.mustConnect(t, "alpha", g.mint(t, "alpha", "codex"), "codex-mcp-client")
	list := func() (string, bool) {
		text, isErr := callText(t, codex, "kanboard_list_tasks", map[string]any{"project_id": runic})
		answers.WriteString(text + "\n")
		return text, isErr
	}
	if text, isErr := list(); !isErr || !strings.Contains(text, "secret kanboard-app") {
		t.Errorf("before the secret is set: %v %s, want an error naming it", isErr, text)
	}
	api("POST", "/api/v1/projects/alpha/secrets/kanboard-app", SecretValue{Value: oldTok}, http.StatusCreated)
	api("POST", "/api/v1/projects/alpha/secrets/kanboard-app", SecretValue{Value: oldTok}, http.StatusConflict)
	if text, isErr := list(); isErr {
		t.Fatalf("with the secret set: %s", text)
	}

	// Rotation under load: 32 calls in flight while the token is rotated;
	// none fails, and none made after Rotate returned uses the old token.
	kb.AcceptAppToken(newTok)
	var wg sync.WaitGroup
	var failed atomic.Int32
	for range 32 {
		wg.Go(func() {
			if text, isErr := callText(t, codex, "kanboard_list_tasks", map[string]any{"project_id": runic}); isErr {
				failed.Add(1)
				t.Errorf("a call during the rotation failed: %s", text)
			}
		})
	}
	api("POST", "/api/v1/projects/alpha/secrets/kanboard-app/rotate", SecretValue{Value: newTok}, http.StatusOK)
	wg.Wait()
	kb.RevokeAppToken(oldTok)
	if text, isErr := list(); isErr {
		t.Errorf("after the rotation (old token revoked at Kanboard): %s", text)
	}

	var infos []vault.Info
	g.api(t, adminToken, "GET", "/api/v1/projects/alpha/secrets", nil, &infos)
	answers.WriteString(toJSON(infos))
	if len(infos) != 1 || infos[0].Name != "kanboard-app" || infos[0].Rotated.IsZero() || infos[0].Fingerprint == "" ||
		len(infos[0].UsedBy) != 1 || infos[0].UsedBy[0] != "kanboard" {
		t.Errorf("list = %+v", infos)
	}

	api("DELETE", "/api/v1/projects/alpha/secrets/kanboard-app", nil, http.StatusOK)
	if text, isErr := list(); !isErr || !strings.Contains(text, "secret kanboard-app was revoked") {
		t.Errorf("after revoke: %v %s", isErr, text)
	}
	api("POST", "/api/v1/projects/alpha/secrets/nope/rotate", SecretValue{Value: "whatever-1"}, http.StatusNotFound)
	api("POST", "/api/v1/projects/alpha/secrets/Bad%20Name", SecretValue{Value: "whatever-2"}, http.StatusBadRequest)

	// Every change is a commit with only encrypted values, and an audit event.
	logp, err := exec.Command("git", "-C", rules, "log", "-p", "--format=%s%n%b").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for _, subject := range []string{"secrets: set kanboard-app", "secrets: rotate kanboard-app", "secrets: revoke kanboard-app"} {
		if !strings.Contains(string(logp), subject) {
			t.Errorf("no commit %q in:\n%.2000s", subject, logp)
		}
	}
	var events []map[string]any
	g.api(t, adminToken, "GET", "/api/v1/audit?project=alpha&kind=admin", nil, &events)
	ops := 0
	for _, e := range events {
		if strings.HasPrefix(e["summary"].(string), "secret kanboard-app: ") && e["source"] == "user" {
			ops++
		}
	}
	if ops != 3 {
		t.Errorf("audit: %d vault events, want 3: %v", ops, events)
	}
	metrics, _ := http.Get(g.url + "/metrics")
	mb := make([]byte, 1<<20)
	n, _ := metrics.Body.Read(mb)
	metrics.Body.Close()
	events2, _ := os.ReadFile(filepath.Join(g.state, "alpha", "events.jsonl"))
	for where, text := range map[string]string{"admin API and MCP answers": answers.String(), "audit": toJSON(events) + string(events2),
		"logs": g.logs.String(), "metrics": string(mb[:n]), "git history": string(logp)} {
		for _, c := range []string{oldTok, newTok} {
			if strings.Contains(text, c) {
				t.Errorf("a secret value is in the %s", where)
			}
		}
	}
}

// TestServerWideVault: a project uses a server-wide secret it does not
// hold itself; the server's list says who uses it.
func TestServerWideVault(t *testing.T) {
	opt, recipient := withVault(t)
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")}, opt)
	var in vault.Info
	if code := g.api(t, adminToken, "POST", "/api/v1/secrets/shared-token", SecretValue{Value: "server-canary-1234"}, &in); code != http.StatusCreated {
		t.Fatalf("set: %d %+v", code, in)
	}
	p := g.srv.projects["alpha"]
	if v, err := p.vault.Get("shared-token"); err != nil || v != "server-canary-1234" {
		t.Errorf("the project does not fall back to the server's vault: %q, %v", v, err)
	}
	var rk Rekeyed
	if code := g.api(t, adminToken, "POST", "/api/v1/vault/rekey", RekeyRequest{Recipients: []string{recipient}}, &rk); code != http.StatusOK || len(rk.Recipients) != 1 {
		t.Errorf("rekey: %d %+v", code, rk)
	}
	if code := g.api(t, adminToken, "POST", "/api/v1/vault/rekey", RekeyRequest{Recipients: []string{"not-age"}}, nil); code != http.StatusBadRequest {
		t.Errorf("rekey to a bad recipient: %d", code)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestUpstreamRestartsOnRotation: an upstream child holding a vault
// secret is restarted with the new value before rotate returns; after a
// revoke it stays down, saying which secret was revoked.
func TestUpstreamRestartsOnRotation(t *testing.T) {
	opt, recipient := withVault(t)
	rules := upstreamtest.Rules(t)
	if _, err := vault.Init(context.Background(), rules, []string{recipient}, nil); err != nil {
		t.Fatal(err)
	}
	argv, env := upstreamtest.Command(t)
	g := start(t, nil, opt, func(c *Config, _ *Options) {
		c.Projects = map[string]ProjectConfig{"alpha": {Rules: rules,
			Upstreams: map[string]UpstreamConfig{"gitea": {Command: argv, Env: env, Secrets: map[string]string{"UP_TOKEN": "secret:up-token"}}}}}
	})
	up := g.srv.projects["alpha"].upstreams[0]
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/secrets/up-token", SecretValue{Value: "up-canary-1"}, nil); code != http.StatusCreated {
		t.Fatalf("set: %d", code)
	}
	if st := up.Status(); st.State != upstream.StateUp {
		t.Fatalf("after set, the upstream is %+v", st)
	}
	before := up.Status().Restarts
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/secrets/up-token/rotate", SecretValue{Value: "up-canary-2"}, nil); code != http.StatusOK {
		t.Fatalf("rotate: %d", code)
	}
	if st := up.Status(); st.State != upstream.StateUp || st.Restarts <= before {
		t.Errorf("rotate returned before the upstream restarted: %+v (restarts before: %d)", st, before)
	}
	if code := g.api(t, adminToken, "DELETE", "/api/v1/projects/alpha/secrets/up-token", nil, nil); code != http.StatusOK {
		t.Fatalf("revoke: %d", code)
	}
	if st := up.Status(); st.State == upstream.StateUp || !strings.Contains(st.LastError, "secret up-token was revoked") {
		t.Errorf("after revoke: %+v", st)
	}
	if strings.Contains(g.logs.String(), "up-canary") {
		t.Error("a value is in the logs")
	}
}

// TestVaultReloadsAChangedFile: a SOPS file changed on disk (sops edit, a
// git pull) is picked up with no restart.
func TestVaultReloadsAChangedFile(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	codec := sopsfile.Codec{Identities: []string{id.String()}}
	dir := t.TempDir()
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")}, func(c *Config, o *Options) {
		c.Secrets.Dir = dir
		o.NewCodec = func() (vault.Codec, error) { return codec, nil }
	})
	enc, err := codec.Encrypt(context.Background(), vault.File{Secrets: map[string]string{"edited": "edited-by-hand-1"}, Recipients: []string{id.Recipient().String()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, vault.FileName), enc, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, err := g.srv.projects["alpha"].vault.Get("edited")
		if err == nil && v == "edited-by-hand-1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the changed file was not reloaded: %q, %v", v, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
