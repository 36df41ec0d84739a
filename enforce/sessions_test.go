package enforce

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/agentclients"
)

// sessionRules is a project's committed rules: one guardrail forbids a
// command, another reading secrets, for each harness whose hook is tried.
const sessionRules = `schema_version: 1
project:
  id: sessions
  overview: A project whose agents' hooks are tried in real sessions.
agent_profiles:
  gemini: {}
  qwen: {}
  copilot: {}
guardrails:
  - id: no-recursive-delete
    statement: Never delete directories recursively.
    severity: enforcement
    applies_to: [all_agents]
    enforce:
      commands:
        forbid: ["rm -rf"]
  - id: no-secret-read
    statement: Never read .env files or secrets/.
    severity: enforcement
    applies_to: [all_agents]
    enforce:
      paths:
        no_read: [".env", "secrets/**"]
`

// canary is the content of the secret files: no request may carry it.
const canary = "SECRET-CANARY-7f3a"

// sessionCase is one harness's real session: how it is trusted and pointed
// at the fake model, and the three calls the model makes — a command the
// rules forbid (call_0), one they allow (call_1), a read they forbid
// (call_2), each in the harness's own tool names.
type sessionCase struct {
	name, env string
	calls     func(proj string) []agentclients.Call
	// setup trusts proj in home as the person would, and returns the
	// environment pointing the CLI at model.
	setup func(t *testing.T, home, proj, model string) []string
	args  []string
}

var sessionCases = []sessionCase{{
	name: "gemini", env: "BRIDLE_GEMINI_BIN",
	// rm -r -f: the policy file's prefix rule ("rm -rf") misses it, so
	// the refusal is the hook's. Gemini CLI 0.61.0 refuses a read of .env
	// by itself, before any hook ("Path not in workspace": .env is one of
	// its own secret files), so the read is of secrets/.
	calls: func(string) []agentclients.Call {
		return []agentclients.Call{
			{Name: "run_shell_command", Args: map[string]any{"command": "rm -r -f build", "description": "clean"}},
			{Name: "run_shell_command", Args: map[string]any{"command": "touch ok.txt", "description": "mark"}},
			{Name: "read_file", Args: map[string]any{"file_path": "secrets/api-key.txt"}},
		}
	},
	setup: func(t *testing.T, home, proj, model string) []string {
		writeJSON(t, filepath.Join(home, ".gemini", "settings.json"), map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}})
		writeJSON(t, filepath.Join(home, ".gemini", "trustedFolders.json"), map[string]any{proj: "TRUST_FOLDER"})
		return []string{"GEMINI_API_KEY=fake", "GOOGLE_GEMINI_BASE_URL=" + model, "GOOGLE_GENAI_USE_VERTEXAI=false"}
	},
	args: []string{"-p", "do it", "-m", "gemini-2.5-flash", "--approval-mode", "yolo"},
}, {
	name: "qwen", env: "BRIDLE_QWEN_BIN",
	calls: func(proj string) []agentclients.Call {
		return []agentclients.Call{
			{Name: "run_shell_command", Args: map[string]any{"command": "rm -rf build", "description": "clean"}},
			{Name: "run_shell_command", Args: map[string]any{"command": "touch ok.txt", "description": "mark"}},
			{Name: "read_file", Args: map[string]any{"file_path": filepath.Join(proj, ".env")}},
		}
	},
	setup: func(t *testing.T, home, _, model string) []string {
		writeJSON(t, filepath.Join(home, ".qwen", "settings.json"), map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}}, "model": map[string]any{"name": "fake"}})
		return []string{"OPENAI_API_KEY=fake", "OPENAI_BASE_URL=" + model + "/v1", "OPENAI_MODEL=fake", "QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}
	},
	args: []string{"-p", "do it", "--approval-mode", "yolo"},
}, {
	name: "copilot", env: "BRIDLE_COPILOT_BIN",
	calls: func(proj string) []agentclients.Call {
		return []agentclients.Call{
			{Name: "bash", Args: map[string]any{"command": "rm -rf build", "description": "clean"}},
			{Name: "bash", Args: map[string]any{"command": "touch ok.txt", "description": "mark"}},
			{Name: "view", Args: map[string]any{"path": filepath.Join(proj, ".env")}},
		}
	},
	setup: func(t *testing.T, home, proj, model string) []string {
		writeJSON(t, filepath.Join(home, ".copilot", "config.json"), map[string]any{"trustedFolders": []string{proj}})
		return []string{"COPILOT_HOME=" + filepath.Join(home, ".copilot"), "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + model + "/v1", "COPILOT_PROVIDER_API_KEY=fake", "COPILOT_MODEL=gpt-4.1"}
	},
	args: []string{"-p", "do it", "--allow-all-tools"},
}}

// TestRealHookSessions runs each harness's CLI in a real headless session
// against a fake model, in a git project whose committed rules forbid rm -rf
// and reading secrets, after bridle render --all wrote its hook: the
// forbidden command does not run and the read does not happen, the tool
// results the model gets name the guardrails, the allowed command runs, and
// no secret reaches the model.
func TestRealHookSessions(t *testing.T) {
	binDir := t.TempDir()
	build := sync.OnceValue(func() error {
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "bridle"), "github.com/bridle-dev/bridle/cmd/bridle").CombinedOutput()
		if err != nil {
			return fmt.Errorf("go build: %w\n%s", err, out)
		}
		return nil
	})
	for _, tc := range sessionCases {
		t.Run(tc.name, func(t *testing.T) {
			bin := agentclients.Bin(t, tc.env, tc.name)
			if err := build(); err != nil {
				t.Fatal(err)
			}
			proj, home := t.TempDir(), t.TempDir()
			env := []string{"HOME=" + home, "PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
				"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
				"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
			run := func(name string, args ...string) string {
				t.Helper()
				out, errOut, err := agentclients.Run(t, proj, env, "", name, args...)
				if err != nil {
					t.Fatalf("%s %s: %v\n%s\n%s", filepath.Base(name), strings.Join(args, " "), err, out, errOut)
				}
				return out + errOut
			}
			writeFile(t, filepath.Join(proj, "rules", "bridle.yaml"), sessionRules)
			run("git", "init", "-q", "-b", "main")
			run("git", "add", "rules")
			run("git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "rules")
			run(filepath.Join(binDir, "bridle"), "render", "--rules", "rules", "--all", "--out", ".")
			writeFile(t, filepath.Join(proj, "build", "main.o"), "object")
			writeFile(t, filepath.Join(proj, ".env"), "TOKEN="+canary+"\n")
			writeFile(t, filepath.Join(proj, "secrets", "api-key.txt"), canary+"\n")

			model := agentclients.NewFakeModel(t, tc.calls(proj)...)
			env = append(env, tc.setup(t, home, proj, model.URL)...)
			start := time.Now()
			output := agentclients.StripANSI(run(bin, tc.args...))
			t.Logf("%s session: %v", tc.name, time.Since(start).Round(100*time.Millisecond))

			got := map[string]string{}
			for _, r := range model.Results() {
				got[r.ID] = r.Text
				t.Logf("%s: %s", r.ID, r.Text)
			}
			for _, want := range []struct{ id, guardrail string }{
				{"call_0", "no-recursive-delete"},
				{"call_1", ""},
				{"call_2", "no-secret-read"},
			} {
				text, ok := got[want.id]
				switch {
				case !ok:
					t.Errorf("the model got no result for %s\n%s", want.id, output)
				case want.guardrail != "" && !strings.Contains(text, "forbidden by guardrail "+want.guardrail+": "):
					t.Errorf("%s: the model got %q, which does not name guardrail %s\n%s", want.id, text, want.guardrail, output)
				case want.guardrail == "" && strings.Contains(text, "guardrail"):
					t.Errorf("%s: an allowed command was refused: %q", want.id, text)
				}
			}
			if _, err := os.Stat(filepath.Join(proj, "build", "main.o")); err != nil {
				t.Errorf("the forbidden rm ran: %v\n%s", err, output)
			}
			if _, err := os.Stat(filepath.Join(proj, "ok.txt")); err != nil {
				t.Errorf("the allowed touch did not run: %v\n%s", err, output)
			}
			for i, body := range model.Requests() {
				if strings.Contains(body, canary) {
					t.Errorf("request %d to the model holds the secret", i)
				}
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b))
}
