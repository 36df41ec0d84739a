package install

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/bridge"
)

func TestInstallServerNeedsAProject(t *testing.T) {
	_, err := Install(Options{Client: "claude", ProjectDir: t.TempDir(), Server: "https://bridle.example.com"})
	if !errors.Is(err, bridge.ErrOptions) {
		t.Errorf("no gateway project: %v", err)
	}
}

// TestBridgeEntry: a client that cannot reach the gateway over HTTP itself
// gets the stdio bridge, reading its token file from the agent's own
// variable (--token-file-env), listed in the entry for a client that would
// not pass it on.
func TestBridgeEntry(t *testing.T) {
	for _, client := range []string{"kimi", "gemini", "codex"} {
		cfg, _ := clientConfig(client)
		cfg.HTTP = nil
		dir := t.TempDir()
		res, err := install(Options{Client: client, ProjectDir: dir, Command: "bridle", Server: "https://b.example.com", GatewayProject: "p"}, cfg)
		if err != nil || res.HTTP || res.TokenEnv != "BRIDLE_TOKEN_FILE_"+strings.ToUpper(client) {
			t.Fatalf("%s: %+v %v", client, res, err)
		}
		b, _ := os.ReadFile(res.Path)
		want := `"--token-file-env", "BRIDLE_TOKEN_FILE_` + strings.ToUpper(client) + `"`
		if client != "codex" {
			want = `"--token-file-env",` + "\n        \"BRIDLE_TOKEN_FILE_" + strings.ToUpper(client) + `"`
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: no --token-file-env:\n%s", client, b)
		}
		if cfg.Stdio.EnvKey != "" && !slices.Equal(res.Env, []string{res.TokenEnv}) {
			t.Errorf("%s: the entry does not pass %s: %v\n%s", client, res.TokenEnv, res.Env, b)
		}
	}
}
