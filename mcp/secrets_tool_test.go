package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/vault"
)

// someSecrets is a vault listing for the registry-wide tests.
func someSecrets() []vault.Info {
	return []vault.Info{{Name: "gitea-bot", Scope: "server", Source: vault.SourceSOPS, Fingerprint: "0123456789ab", UsedBy: []string{"gitea"}}}
}

// TestListSecrets: an agent granted secrets.read gets names and metadata;
// no value and no fingerprint reach it, whatever the vault holds.
func TestListSecrets(t *testing.T) {
	const canary = "mcp-secret-canary-55aa"
	dir := t.TempDir()
	if _, err := vault.Init(context.Background(), dir, []string{"age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"}, nil); err != nil {
		t.Fatal(err)
	}
	docker := t.TempDir()
	if err := os.WriteFile(filepath.Join(docker, "kanboard-claude"), []byte(canary), 0o600); err != nil {
		t.Fatal(err)
	}
	red := redact.New()
	v := vault.Open(context.Background(), vault.Options{Dir: dir, DockerDir: docker, Redactor: red})
	v.Use("kanboard-claude", "kanboard (agent claude)")
	src, err := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	granted := strings.Replace(string(src), "secrets: {read: false}", "secrets: {read: true}", 1)
	f := newFixture(t, Options{Rules: commitRules(t, t.TempDir(), []byte(granted)), Redactor: red, Secrets: v.List})
	var got SecretList
	body, isErr := callJSON(t, f.connect(t, "claude-code", "", nil), "list_secrets", nil, &got)
	if isErr {
		t.Fatalf("list_secrets refused: %s", body)
	}
	if len(got.Secrets) != 1 || got.Secrets[0].Name != "kanboard-claude" || !got.Secrets[0].Available || got.Secrets[0].Source != "docker" ||
		len(got.Secrets[0].UsedBy) != 1 {
		t.Errorf("list_secrets = %s", body)
	}
	if strings.Contains(body, canary) || strings.Contains(body, v.Fingerprint(canary)) {
		t.Errorf("list_secrets shows a value or a fingerprint: %s", body)
	}
	// codex has no secrets.read: the tool is refused, naming the permission.
	if body, isErr := callText(t, f.connect(t, "codex-mcp-client", "", nil), "list_secrets", nil); !isErr || !strings.Contains(body, "secrets.read") {
		t.Errorf("codex: %s", body)
	}
}
