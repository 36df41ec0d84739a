package renderers

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/enforce"
)

// TestDroidHookFile: Droid's hook is merged into .factory/settings.json
// beside the person's own hook and keys, and a project whose hooks live in
// .factory/hooks.json (which Droid then reads instead) is refused with
// ErrHooksShadowed rather than given a hook that would never run.
func TestDroidHookFile(t *testing.T) {
	doc := harnessDoc("droid", true)
	files := map[string]string{".factory/settings.json": `{
  // the person's
  "model": "x",
  "hooks": {"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command", "command": "./guard.py"}]}]}
}`}
	read := func(p string) ([]byte, error) {
		if c, ok := files[p]; ok {
			return []byte(c), nil
		}
		return nil, nil
	}
	n, err := RenderNativeFrom(read, doc, NativeOptions{RulesPath: "rules"})
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Files) != 1 || n.Files[0].Path != ".factory/settings.json" {
		t.Fatalf("files %+v, want .factory/settings.json", n.Files)
	}
	got := n.Files[0].Content
	for _, want := range []string{"// the person's", `"model": "x"`, "./guard.py", `bridle hook droid --rules \"$FACTORY_PROJECT_DIR\"/rules`} {
		if !strings.Contains(got, want) {
			t.Errorf("settings lost %q:\n%s", want, got)
		}
	}
	files[".factory/hooks.json"] = `{"PreToolUse": []}`
	if _, err := RenderNativeFrom(read, doc, NativeOptions{RulesPath: "rules"}); !errors.Is(err, ErrHooksShadowed) {
		t.Errorf("with .factory/hooks.json: %v, want ErrHooksShadowed", err)
	}
}

// TestClineHookFile: Cline's hook file is Bridle's own executable script,
// written with mode 0755; when bridle is not on PATH the script itself
// answers a cancel in Cline's format (a hook that fails to run would let
// the call through); the person's own PreToolUse is never replaced
// (ErrHookFileTaken); and with no enforce entries left Bridle's file is an
// orphan.
func TestClineHookFile(t *testing.T) {
	doc := harnessDoc("cline", true)
	files := map[string]string{}
	read := func(p string) ([]byte, error) {
		if c, ok := files[p]; ok {
			return []byte(c), nil
		}
		return nil, nil
	}
	n, err := RenderNativeFrom(read, doc, NativeOptions{RulesPath: "rules"})
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Files) != 1 || n.Files[0].Path != ClineHookPath || !n.Files[0].Executable {
		t.Fatalf("files %+v, want an executable %s", n.Files, ClineHookPath)
	}
	dir := t.TempDir()
	if _, err := Write(dir, n.Files); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, filepath.FromSlash(ClineHookPath))
	st, err := os.Stat(script)
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("%s: %v, %v; want mode 0755", script, st, err)
	}
	cmd := exec.Command(script)
	cmd.Dir = t.TempDir() // Cline may start it anywhere
	cmd.Env = []string{"PATH=/nonexistent"}
	cmd.Stdin = strings.NewReader(`{"tool_call":{"name":"run_commands","input":{"commands":["ls"]}}}`)
	out, err := cmd.Output()
	var answer struct {
		Cancel       bool   `json:"cancel"`
		ErrorMessage string `json:"errorMessage"`
	}
	if err != nil || json.Unmarshal(out, &answer) != nil || !answer.Cancel || !strings.Contains(answer.ErrorMessage, "not on PATH") {
		t.Errorf("without bridle the hook answered %q, %v; want a cancel saying so", out, err)
	}

	files[ClineHookPath] = "#!/bin/sh\n./my-checks\n"
	if _, err := RenderNativeFrom(read, doc, NativeOptions{RulesPath: "rules"}); !errors.Is(err, ErrHookFileTaken) {
		t.Errorf("over the person's hook: %v, want ErrHookFileTaken", err)
	}
	files[ClineHookPath] = n.Files[0].Content
	n, err = RenderNativeFrom(read, harnessDoc("cline", false), NativeOptions{RulesPath: "rules"})
	if err != nil || len(n.Orphans) != 1 || n.Orphans[0].Path != ClineHookPath {
		t.Errorf("with no entries: %+v, %v; want Bridle's hook file an orphan", n, err)
	}
}

// TestHookCannotAsk: the registry's HookCannotAsk, which the renders and
// explain read, agrees with each hook protocol: a harness that cannot ask
// gets a deny saying a human must approve for a verdict to ask, and one
// that can gets no such deny.
func TestHookCannotAsk(t *testing.T) {
	for _, a := range agents.All() {
		if a.Harness == nil || a.Harness.Hook == "" {
			continue
		}
		p, ok := enforce.ProtocolFor(a.Harness.Hook)
		if !ok {
			t.Fatalf("%s: no protocol %q", a.Name, a.Harness.Hook)
		}
		r := p.Output(enforce.Decision{Verdict: enforce.Ask, Reason: "x"})
		refused := strings.Contains(string(r.Stdout)+string(r.Stderr), "A human must approve this first")
		if refused != a.Harness.HookCannotAsk {
			t.Errorf("%s: HookCannotAsk is %v, but its hook's answer to ask is %q %q", a.Name, a.Harness.HookCannotAsk, r.Stdout, r.Stderr)
		}
	}
}

// TestAmpHookFile: Amp's delegate is Bridle's own executable script,
// written 0755, named by Bridle's amp.permissions entries, which come
// before the person's own; without bridle on PATH the script itself
// rejects (exit 2, the reason on stderr); the person's own file there is
// never replaced (ErrHookFileTaken); a project keeping .amp/settings.jsonc
// gets the entries there; with no enforce entries left Bridle's script is
// an orphan and its entries leave, the person's stay.
func TestAmpHookFile(t *testing.T) {
	doc := harnessDoc("amp", true)
	mine := `{"amp.permissions": [{"tool": "Bash", "action": "allow", "matches": {"cmd": "make *"}}, {"tool": "mcp__*", "action": "reject"}]}`
	files := map[string]string{".amp/settings.jsonc": mine}
	read := func(p string) ([]byte, error) {
		if c, ok := files[p]; ok {
			return []byte(c), nil
		}
		return nil, nil
	}
	n, err := RenderNativeFrom(read, doc, NativeOptions{RulesPath: "rules"})
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Files) != 2 || n.Files[0].Path != AmpHookPath || !n.Files[0].Executable || n.Files[1].Path != ".amp/settings.jsonc" {
		t.Fatalf("files %+v, want an executable %s and .amp/settings.jsonc", n.Files, AmpHookPath)
	}
	var settings struct {
		Perms []struct{ Tool, Action, To string } `json:"amp.permissions"`
	}
	if err := json.Unmarshal([]byte(n.Files[1].Content), &settings); err != nil {
		t.Fatal(err)
	}
	if p := settings.Perms; len(p) != len(ampTools)+2 || p[0] != (struct{ Tool, Action, To string }{"Bash", "delegate", AmpHookPath}) ||
		p[len(p)-2].Action != "allow" || p[len(p)-1].Tool != "mcp__*" {
		t.Errorf("amp.permissions %+v: want Bridle's delegates first, then the person's allow and their reject of another tool", p)
	}
	// A restriction of the person's on a tool Bridle's entries decide would
	// never apply behind them: refused, naming it, not lost.
	for _, entry := range []string{
		`{"tool": "Bash", "action": "reject", "matches": {"cmd": "*sudo*"}}`,
		`{"tool": "*", "action": "ask"}`,
		`{"tool": "*_file", "action": "delegate", "to": "./mine"}`,
		`{"tool": "shell_command", "action": "reject"}`,
	} {
		shadowed := map[string]string{".amp/settings.json": `{"amp.permissions": [` + entry + `]}`}
		_, err := RenderNativeFrom(func(p string) ([]byte, error) {
			if c, ok := shadowed[p]; ok {
				return []byte(c), nil
			}
			return nil, nil
		}, doc, NativeOptions{RulesPath: "rules"})
		if !errors.Is(err, ErrPermissionsShadowed) || !strings.Contains(err.Error(), "amp.permissions[0]") {
			t.Errorf("with the person's %s: %v, want ErrPermissionsShadowed naming amp.permissions[0]", entry, err)
		}
	}
	dir := t.TempDir()
	if _, err := Write(dir, n.Files); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, filepath.FromSlash(AmpHookPath))
	st, err := os.Stat(script)
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("%s: %v, %v; want mode 0755", script, st, err)
	}
	cmd := exec.Command(script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/nonexistent", "AGENT=amp", "AGENT_TOOL_NAME=Bash"}
	cmd.Stdin = strings.NewReader(`{"cmd":"ls"}`)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), "not on PATH") {
		t.Errorf("without bridle the script ended %v, %q; want exit 2 saying so", err, stderr.String())
	}

	files[AmpHookPath] = "#!/bin/sh\nexit 0\n"
	if _, err := RenderNativeFrom(read, doc, NativeOptions{RulesPath: "rules"}); !errors.Is(err, ErrHookFileTaken) {
		t.Errorf("over the person's script: %v, want ErrHookFileTaken", err)
	}
	files[AmpHookPath], files[".amp/settings.jsonc"] = n.Files[0].Content, n.Files[1].Content
	n, err = RenderNativeFrom(read, harnessDoc("amp", false), NativeOptions{RulesPath: "rules"})
	if err != nil || len(n.Orphans) != 1 || n.Orphans[0].Path != AmpHookPath || len(n.Files) != 1 || strings.Contains(n.Files[0].Content, "delegate") || !strings.Contains(n.Files[0].Content, "make *") {
		t.Errorf("with no entries: %+v, %v; want Bridle's script an orphan and only the person's entry left", n, err)
	}
}

// Every tool Bridle's Amp entries delegate is one enforce's Amp protocol
// checks (a call of it is never "other", left unchecked): the list the
// settings get and the protocol agree.
func TestAmpToolsAreChecked(t *testing.T) {
	proto, ok := enforce.ProtocolFor("amp")
	if !ok {
		t.Fatal("no amp protocol")
	}
	input := `{"cmd": "ls", "command": "ls", "path": "a.txt", "patchText": "*** Begin Patch\n*** Update File: a.txt\n*** End Patch", "filePattern": "*.go", "pattern": "x"}`
	for _, tool := range ampShadowed() {
		call, err := enforce.ParseCall(proto, []byte(input), func(k string) string {
			if k == "AGENT_TOOL_NAME" {
				return tool
			}
			return ""
		})
		if err != nil || call.Kind == enforce.Other {
			t.Errorf("Amp's %s: %+v, %v; Bridle delegates it, so the hook must check it", tool, call, err)
		}
	}
}
