package install

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bridle-dev/bridle/bridge"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/server")

// TestInstallServerGoldens: with --server, Claude Code and Codex get their
// native HTTP entry (no token in the file), kimi the stdio bridge; what was
// in the file stays, a previous bridle entry is replaced. go test ./install
// -run InstallServer -update rewrites testdata/server.
func TestInstallServerGoldens(t *testing.T) {
	for _, tc := range []struct {
		client, file, before string
		http                 bool
	}{
		{"claude", ".mcp.json", `{"mcpServers":{"github":{"command":"gh-mcp"},"bridle":{"type":"stdio","command":"bridle","args":["mcp"]}}}`, true},
		{"codex", ".codex/config.toml", "# mine\nmodel = \"o4\"\n\n[mcp_servers.bridle]\ncommand = \"bridle\"\nargs = [\"mcp\"]\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\n", true},
		{"kimi", ".kimi-code/mcp.json", "", true},
	} {
		t.Run(tc.client, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.FromSlash(tc.file))
			if tc.before != "" {
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(tc.before), 0o644)
			}
			o := Options{Client: tc.client, ProjectDir: dir, Command: "bridle", Server: "https://bridle.example.com/", GatewayProject: "runic-gateway"}
			res, err := Install(o)
			if err != nil || !res.Changed || res.HTTP != tc.http {
				t.Fatalf("%+v %v", res, err)
			}
			got, _ := os.ReadFile(p)
			golden := filepath.Join("testdata", "server", tc.client+"-"+strings.TrimPrefix(filepath.Base(tc.file), ".")+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (-golden +got):\n%s", tc.file, diff)
			}
			if again, err := Install(o); err != nil || again.Changed {
				t.Errorf("second install changed the file: %+v %v", again, err)
			}
		})
	}
}

func TestInstallServerNeedsAProject(t *testing.T) {
	_, err := Install(Options{Client: "claude", ProjectDir: t.TempDir(), Server: "https://bridle.example.com"})
	if !errors.Is(err, bridge.ErrOptions) {
		t.Errorf("no gateway project: %v", err)
	}
}
