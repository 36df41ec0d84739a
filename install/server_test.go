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

// Bridle's entry is one per file: one of the other kind (the local
// sidecar where a gateway is asked for, or the reverse, over HTTP or the
// bridge, JSON or TOML) is replaced and said so (Result.Replaced, naming
// what it was), never silently; installing the same kind again says
// nothing of the sort.
func TestOtherKindIsNotReplacedSilently(t *testing.T) {
	rules := t.TempDir()
	local := func(client, dir string) Options {
		return Options{Client: client, ProjectDir: dir, Command: "bridle", Rules: rules, Ref: "main"}
	}
	remote := func(client, dir string) Options {
		return Options{Client: client, ProjectDir: dir, Command: "bridle", Server: "https://b.example.com", GatewayProject: "p"}
	}
	for _, client := range []string{"claude", "codex", "kimi"} {
		for _, tc := range []struct {
			name        string
			first, then func(string, string) Options
			was         string
		}{
			{"local then gateway", local, remote, "the local sidecar (bridle mcp on the rules in "},
			{"gateway then local", remote, local, "a gateway (https://b.example.com"},
		} {
			t.Run(client+" "+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				if _, err := Install(tc.first(client, dir)); err != nil {
					t.Fatal(err)
				}
				if res, err := Install(tc.first(client, dir)); err != nil || res.Replaced != "" {
					t.Errorf("the same kind again: %q %v", res.Replaced, err)
				}
				res, err := Install(tc.then(client, dir))
				if err != nil || !res.Changed || !strings.HasPrefix(res.Replaced, tc.was) {
					t.Errorf("the other kind: changed %v, replaced %q, %v", res.Changed, res.Replaced, err)
				}
			})
		}
	}
}
