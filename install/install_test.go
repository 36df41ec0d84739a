package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/internal/jsonc"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

func TestClaudeMergesWithOtherServers(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".mcp.json")
	os.WriteFile(p, []byte(`{"mcpServers":{"github":{"command":"gh-mcp","args":["stdio"]}},"other":1}`), 0o600)
	o := Options{Client: "claude", ProjectDir: dir, Command: "/usr/local/bin/bridle", Rules: "rules"}
	res, err := Install(o)
	if err != nil || !res.Changed || res.Path != p {
		t.Fatalf("%+v %v", res, err)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
		Other int
	}
	b, _ := os.ReadFile(p)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.MCPServers["github"].Command != "gh-mcp" || doc.Other != 1 {
		t.Errorf("clobbered other content: %s", b)
	}
	br := doc.MCPServers["bridle"]
	if br.Command != "/usr/local/bin/bridle" || strings.Join(br.Args[len(br.Args)-2:], " ") != "--agent claude" {
		t.Errorf("bridle entry: %+v", br)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", st.Mode())
	}
	again, _ := Install(o)
	if again.Changed {
		t.Error("second install changed the file again")
	}
}

func TestCodexKeepsCommentsAndTables(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	orig := "# my codex config\nmodel = \"o4\"\n\n[mcp_servers.github]\ncommand = \"gh-mcp\" # keep me\n\n[mcp_servers.bridle]\ncommand = \"old\"\nargs = []\n\n[profiles.fast]\nmodel = \"mini\"\n"
	os.WriteFile(p, []byte(orig), 0o644)
	res, err := Install(Options{Client: "codex", ProjectDir: dir, Command: "bridle", Rules: "/r", Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	s := string(b)
	for _, keep := range []string{"# my codex config", "command = \"gh-mcp\" # keep me", "[profiles.fast]", "model = \"mini\""} {
		if !strings.Contains(s, keep) {
			t.Errorf("lost %q:\n%s", keep, s)
		}
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.MCPServers["bridle"].Args, " "); got != "mcp --rules /r --ref main --agent codex" || strings.Contains(s, `"old"`) {
		t.Errorf("bridle args %q\n%s", got, s)
	}
	if !strings.Contains(res.Diff, "-command = \"old\"") {
		t.Errorf("diff:\n%s", res.Diff)
	}
}

func TestDryRunAndBadFiles(t *testing.T) {
	dir := t.TempDir()
	res, err := Install(Options{Client: "kimi", Home: dir, Command: "bridle", Rules: ".", DryRun: true})
	if err != nil || !res.Changed || !strings.Contains(res.Diff, `"bridle"`) {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(res.Path); !os.IsNotExist(err) {
		t.Error("dry run wrote the file")
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"a\": not json"), 0o644)
	if _, err := Install(Options{Client: "claude", ConfigPath: bad, Command: "b", Rules: "."}); err == nil || !strings.Contains(err.Error(), bad+":2:8: ") {
		t.Errorf("bad JSON: %v", err)
	}
	if b, _ := os.ReadFile(bad); string(b) != "{\n  \"a\": not json" {
		t.Error("a file that could not be parsed was changed")
	}
	badToml := filepath.Join(dir, "bad.toml")
	os.WriteFile(badToml, []byte("a = 1\n[[[["), 0o644)
	if _, err := Install(Options{Client: "codex", ConfigPath: badToml, Command: "b", Rules: "."}); err == nil || !strings.Contains(err.Error(), badToml+":2:") {
		t.Errorf("bad TOML: %v", err)
	}
	if _, err := Install(Options{Client: "vim"}); !errors.Is(err, ErrUnknownClient) {
		t.Errorf("unknown client: %v", err)
	}
	if _, err := Install(Options{Client: "claude", ConfigPath: dir, Command: "b", Rules: "."}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory as the config: %v", err)
	}
}

// FuzzMerge: whatever is in a client's config file (JSON with comments, or
// TOML), merging never panics, and when it succeeds the result parses, the
// bridle entry is there as Bridle spells it, and every other server is kept.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"x":{"command":"y"}}}`), []byte("[mcp_servers.x]\ncommand = \"y\"\n"))
	f.Add([]byte(`[]`), []byte("[mcp_servers.bridle]\nargs = 1\n[a]\n"))
	f.Add([]byte(`{"mcpServers":null}`), []byte("x = \"\"\"\n[mcp_servers.bridle]\n\"\"\"\n"))
	f.Add([]byte("// c\n{\"mcpServers\": {\"a\": 1, /* b */ \"bridle\": [],},}"), []byte("[mcp_servers.bridle] # c\ncommand = \"x\"\n"))
	f.Add([]byte("{\"mcpServers\": {\"a\": {\"b\": \"\\u0000\"}}}\n\n"), []byte("[\"mcp_servers\".\"bridle\"]\n"))
	f.Add([]byte("{\"x\": 1 /* unterminated"), []byte("[mcp_servers]\nbridle = 1\n"))
	f.Add([]byte(`{"mcpServers":{"bridle":{"url":1,"httpUrl":"h","args":["--server",2,null,"--rules"]}}}`), []byte("[mcp_servers.bridle]\nargs = [\"--server\", 1, [\"x\"]]\nurl = 3\n"))
	f.Add([]byte(`{}`), []byte("mcpServers:\n  - name: bridle\n    command: x\n"))
	f.Add([]byte(`{}`), []byte("a: &a [1]\nmcpServers: *a\n---\nb: 2\n"))
	f.Add([]byte(`{}`), []byte("# only a comment\n"))
	f.Add([]byte(`{}`), []byte("mcpServers:\n  - name: bridle\n    args: [--server, 1, {x: y}]\n  - 3\n  - name: [bridle]\n"))
	f.Add([]byte(`{}`), []byte("extensions:\n  bridle: # mine\n    cmd: [x]\n  ? [a]\n  : 1\n  dev: {type: builtin}\nGOOSE_MODEL: m\n"))
	f.Add([]byte(`{}`), []byte("extensions: ~ # none yet\n"))
	claude, _ := clientConfig("claude")
	codex, _ := clientConfig("codex")
	goose, _ := clientConfig("goose")
	yamlCfg := &agents.Config{Format: agents.YAML, Servers: "mcpServers", Preamble: "name: B\nversion: 0.0.1\nschema: v1\n"}
	e := entry{command: "bridle", args: []string{"mcp", "--agent", "claude"}}
	f.Fuzz(func(t *testing.T, js, tm []byte) {
		// Reading the entry back (doctor, the other-kind check) never panics.
		for _, in := range []Entry{entryOf("f.json", js, claude, ServerName), entryOf("f.toml", tm, codex, ServerName)} {
			_ = in.Arg("--rules")
		}
		want := jsonEntry(claude, e)
		if out, err := mergeJSON("f.json", js, []string{"mcpServers", ServerName}, want); err == nil {
			doc, err := jsonc.Parse("out", out)
			if err != nil {
				t.Fatalf("the merge does not parse: %v\n%s", err, out)
			}
			if got, ok := doc.Get("mcpServers", ServerName); !ok || !jsonEqual(got, want) {
				t.Fatalf("no bridle entry: %s", out)
			}
			if old, err := jsonc.Parse("in", js); err == nil {
				for _, k := range old.Keys("mcpServers") {
					if !slices.Contains(doc.Keys("mcpServers"), k) {
						t.Fatalf("lost server %q: %s", k, out)
					}
				}
				for _, k := range old.Keys() {
					if !slices.Contains(doc.Keys(), k) {
						t.Fatalf("lost key %q: %s", k, out)
					}
				}
			}
		}
		// A YAML list of entries (Continue's), from the second input too:
		// the entry is there once, every other entry and key stays, and a
		// second merge changes nothing.
		_ = entryOf("f.yaml", tm, yamlCfg, ServerName).Arg("--rules")
		if out, err := mergeYAML("f.yaml", tm, yamlCfg, ServerName, want); err == nil {
			var got, old map[string]any
			if err := yaml.Unmarshal(out, &got); err != nil {
				t.Fatalf("the merge does not parse: %v\n%s", err, out)
			}
			list, _ := got["mcpServers"].([]any)
			n := 0
			for _, item := range list {
				if m, _ := item.(map[string]any); m != nil && m["name"] == ServerName {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d bridle entries:\n%s", n, out)
			}
			if yaml.Unmarshal(tm, &old) == nil {
				for k := range old {
					if _, ok := got[k]; !ok {
						t.Fatalf("lost key %q: %s", k, out)
					}
				}
				if was, _ := old["mcpServers"].([]any); len(list) < len(was) {
					t.Fatalf("lost entries: %s", out)
				}
			}
			if again, err := mergeYAML("f.yaml", out, yamlCfg, ServerName, want); err != nil || !bytes.Equal(again, out) {
				t.Fatalf("a second merge changed the file (%v):\n%s\n---\n%s", err, out, again)
			}
		}
		// A YAML mapping of entries (Goose's extensions), likewise: the
		// entry under its key once, every other extension and key kept.
		_ = entryOf("g.yaml", tm, goose, ServerName).Arg("--rules")
		gwant := jsonEntry(goose, e)
		if out, err := mergeYAML("g.yaml", tm, goose, ServerName, gwant); err == nil {
			var got, old map[string]any
			if err := yaml.Unmarshal(out, &got); err != nil {
				t.Fatalf("the merge does not parse: %v\n%s", err, out)
			}
			exts, _ := got["extensions"].(map[string]any)
			if m, _ := exts[ServerName].(map[string]any); m == nil || m["name"] != ServerName || m["cmd"] != "bridle" {
				t.Fatalf("no bridle extension:\n%s", out)
			}
			if yaml.Unmarshal(tm, &old) == nil {
				for k := range old {
					if _, ok := got[k]; !ok {
						t.Fatalf("lost key %q: %s", k, out)
					}
				}
				was, _ := old["extensions"].(map[string]any)
				for k := range was {
					if _, ok := exts[k]; !ok {
						t.Fatalf("lost extension %q: %s", k, out)
					}
				}
			}
			if again, err := mergeYAML("g.yaml", out, goose, ServerName, gwant); err != nil || !bytes.Equal(again, out) {
				t.Fatalf("a second merge changed the file (%v):\n%s\n---\n%s", err, out, again)
			}
		}
		if out, err := mergeTOML("f.toml", tm, "mcp_servers", ServerName, tomlBody(codex, e)); err == nil {
			var v map[string]any
			if toml.Unmarshal(out, &v) != nil {
				t.Fatalf("bad TOML merge: %s", out)
			}
		}
	})
}

func enforceDoc() *schema.Document {
	return &schema.Document{
		Project:       schema.Project{ID: "p"},
		AgentProfiles: map[string]schema.AgentProfile{"claude": {}, "codex": {}},
		Guardrails: []schema.Guardrail{{ID: "no-force-push", Severity: schema.Enforcement, Statement: "Never force-push.",
			Enforce: schema.Enforce{Commands: schema.CommandRules{Forbid: []string{"git push --force"}}}}},
	}
}

func TestClaudeWiresProjectSettings(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	settings := filepath.Join(dir, ".claude", "settings.json")
	os.WriteFile(settings, []byte(`{"permissions":{"allow":["Bash(go test:*)"]},"model":"opus"}`), 0o644)
	o := Options{Client: "claude", ProjectDir: dir, Command: "/usr/local/bin/bridle", Rules: filepath.Join(dir, "rules"), Doc: enforceDoc()}

	dry := o
	dry.DryRun = true
	res, err := Install(dry)
	if err != nil || len(res.Settings) != 2 || !strings.Contains(res.Settings[1].Diff, "bridle hook claude") {
		t.Fatalf("%+v %v", res, err)
	}
	if b, _ := os.ReadFile(settings); strings.Contains(string(b), "bridle") {
		t.Error("dry run wrote settings.json")
	}

	res, err = Install(o)
	if err != nil || !res.Changed || len(res.Settings) != 2 || !res.Settings[0].Changed || !res.Settings[1].Changed {
		t.Fatalf("%+v %v", res, err)
	}
	b, _ := os.ReadFile(settings)
	s := string(b)
	// Shareable: bridle from PATH, the rules relative to the project.
	if !strings.Contains(s, `"command": "bridle hook claude --rules \"$CLAUDE_PROJECT_DIR\"/rules"`) || strings.Contains(s, dir) {
		t.Errorf("hook entry not shareable:\n%s", s)
	}
	if !strings.Contains(s, `"Bash(go test:*)"`) || !strings.Contains(s, `"model": "opus"`) || !strings.Contains(s, `"Bash(git push --force:*)"`) {
		t.Errorf("settings:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude", "bridle.json")); err != nil {
		t.Error(err)
	}
	again, err := Install(o)
	if err != nil || again.Changed || again.Settings[0].Changed || again.Settings[1].Changed {
		t.Errorf("second install changed something: %+v %v", again, err)
	}
	if b2, _ := os.ReadFile(settings); string(b2) != s {
		t.Error("second install rewrote settings.json")
	}
}

// TestAgentRegistryDrivesEverything: each registered agent's defaults are
// what a bare profile resolves to, and its renderer is the one its format
// and style pick (install's files are its goldens', TestGoldens).
func TestAgentRegistryDrivesEverything(t *testing.T) {
	want := map[string]struct{ renderer, output string }{
		"claude":      {"claude-md", "CLAUDE.md"},
		"codex":       {"agents-md", "AGENTS.md"},
		"kimi":        {"agents-md-stepwise", "agents/kimi/AGENTS.md"},
		"qwen":        {"agents-md", "QWEN.md"},
		"copilot":     {"agents-md", ".github/instructions/bridle.instructions.md"},
		"cursor":      {"agents-md", ".cursor/rules/bridle.mdc"},
		"windsurf":    {"agents-md", ".windsurf/rules/bridle.md"},
		"deepseek":    {"agents-md-stepwise", "agents/deepseek/AGENTS.md"},
		"gemini":      {"agents-md", "GEMINI.md"},
		"opencode":    {"agents-md", ".opencode/bridle.md"},
		"kiro":        {"agents-md", ".kiro/steering/bridle.md"},
		"cline":       {"agents-md", ".clinerules/bridle.md"},
		"zed":         {"agents-md", ".rules"},
		"goose":       {"agents-md", ".goosehints"},
		"crush":       {"agents-md", "CRUSH.md"},
		"kilo":        {"agents-md", ".kilo/rules/bridle.md"},
		"warp":        {"agents-md", "WARP.md"},
		"amp":         {"agents-md", "AGENTS.md"},
		"continue":    {"agents-md", ".continue/rules/bridle.md"},
		"junie":       {"agents-md", ".junie/AGENTS.md"},
		"droid":       {"agents-md", ".factory/AGENTS.md"},
		"antigravity": {"agents-md", ".agents/rules/bridle.md"},
		"augment":     {"agents-md", ".augment/rules/bridle.md"},
		"aider":       {"agents-md", "CONVENTIONS.md"},
	}
	doc := &schema.Document{AgentProfiles: map[string]schema.AgentProfile{}}
	for _, a := range agents.All() {
		doc.AgentProfiles[a.Name] = schema.AgentProfile{}
	}
	for _, a := range agents.All() {
		w, ok := want[a.Name]
		if !ok {
			t.Errorf("agent %s: add its expected renderer and output to this table", a.Name)
			continue
		}
		p := doc.Resolved(a.Name)
		if p.DisplayName != a.DisplayName || p.Output != w.output || string(p.Style) != a.Style || !slices.Equal(p.MCPClients, a.MCPClients) {
			t.Errorf("%s resolves to %+v", a.Name, p)
		}
		if r := renderers.For(p).Name(); r != w.renderer {
			t.Errorf("%s renders with %s, want %s", a.Name, r, w.renderer)
		}
		if _, err := Path(Options{Client: a.Name, ProjectDir: "/p"}); (a.Harness == nil || a.Harness.Config == nil) != errors.Is(err, ErrUnknownClient) {
			t.Errorf("%s: install: %v", a.Name, err)
		}
	}
}

// TestNativeWiringIsRegistryDriven: install --project wires the native
// rendering the harness's registry entry names, whatever the agent: Codex's
// .codex/rules/bridle.rules as well as Claude Code's settings.
func TestNativeWiringIsRegistryDriven(t *testing.T) {
	dir := t.TempDir()
	res, err := Install(Options{Client: "codex", ProjectDir: dir, Command: "bridle", Rules: filepath.Join(dir, "rules"), Doc: enforceDoc()})
	if err != nil || len(res.Settings) != 1 || !res.Settings[0].Changed {
		t.Fatalf("%+v %v", res, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".codex", "rules", "bridle.rules"))
	if err != nil || !strings.Contains(string(b), `"git", "push", "--force"`) {
		t.Errorf("codex rules: %v\n%s", err, b)
	}
}

// TestNativeOverTheConfig: when the native rendering's file is the MCP
// config itself (Gemini CLI and OpenCode keep both in one file; here
// Claude's settings given as --config), it is rendered over the config as
// install leaves it: neither change loses the other, in a dry run's diff
// and on disk.
func TestNativeOverTheConfig(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte("{\n  \"model\": \"opus\"\n}\n"), 0o644)
	o := Options{Client: "claude", ProjectDir: dir, ConfigPath: settings, Command: "bridle", Rules: filepath.Join(dir, "rules"), Doc: enforceDoc()}
	dry := o
	dry.DryRun = true
	res, err := Install(dry)
	if err != nil {
		t.Fatal(err)
	}
	var diff string
	for _, s := range res.Settings {
		if s.Path == settings {
			diff = s.Diff
		}
	}
	if !strings.Contains(diff, "Bash(git push --force:*)") || strings.Contains(diff, "-  \"mcpServers\"") {
		t.Errorf("dry run's settings diff, over the MCP entry:\n%s", diff)
	}
	if _, err := Install(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(settings)
	for _, want := range []string{`"mcpServers"`, `"--agent",`, "Bash(git push --force:*)", `"model": "opus"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings.json lacks %s:\n%s", want, b)
		}
	}
}

// TestPaths: the project's file is the first of the registry's names that
// exists (opencode.jsonc beside opencode.json); a scope the agent has no file
// for is ErrNoScope, naming the file it has.
func TestPaths(t *testing.T) {
	dir := t.TempDir()
	if p, _ := Path(Options{Client: "opencode", ProjectDir: dir}); p != filepath.Join(dir, "opencode.json") {
		t.Errorf("no file yet: %s", p)
	}
	os.WriteFile(filepath.Join(dir, "opencode.jsonc"), []byte("{}"), 0o644)
	if p, _ := Path(Options{Client: "opencode", ProjectDir: dir}); p != filepath.Join(dir, "opencode.jsonc") {
		t.Errorf("opencode.jsonc there: %s", p)
	}
	for _, a := range agents.All() {
		if a.Harness == nil || a.Harness.Config == nil {
			continue
		}
		c := a.Harness.Config
		if _, err := Path(Options{Client: a.Name, ProjectDir: dir}); (c.Project == "") != errors.Is(err, ErrNoScope) || c.Project == "" && !strings.Contains(err.Error(), c.User) {
			t.Errorf("%s --project: %v", a.Name, err)
		}
		if _, err := Path(Options{Client: a.Name, Home: dir}); (c.User == "") != errors.Is(err, ErrNoScope) {
			t.Errorf("%s user: %v", a.Name, err)
		}
	}
}

// TestEntryNames: an agent whose entry may go into another harness's file
// (one it reads instead of its own) gets an entry name of its own, so that
// neither replaces the other.
func TestEntryNames(t *testing.T) {
	for _, name := range Clients() {
		n := EntryName(name)
		c, _ := clientConfig(name)
		files, instead := c.AlsoReads, c.Instead
		if (n != ServerName) != instead {
			t.Errorf("%s: entry %s", name, n)
		}
		for _, f := range files {
			for _, other := range ReadBy(name, f) {
				if p, _ := Path(Options{Client: other, ProjectDir: "/p"}); instead && p == "/p/"+f && EntryName(other) == n {
					t.Errorf("%s reads %s's %s instead of its own, and both name their entry %s", name, other, f, n)
				}
			}
		}
	}
	if got := ReadBy("claude", ".mcp.json"); !slices.Contains(got, "copilot") || !slices.Contains(got, "qwen") || slices.Contains(got, "claude") {
		t.Errorf("ReadBy .mcp.json: %v", got)
	}
	if got := ReadBy("copilot", ".mcp.json"); !slices.Contains(got, "claude") {
		t.Errorf("ReadBy .mcp.json, from copilot: %v", got)
	}
	if got := ReadInstead("claude", ".mcp.json"); !slices.Equal(got, []string{"copilot"}) {
		t.Errorf("ReadInstead .mcp.json: %v", got)
	}
}

// TestNativeSharesTheConfig: Gemini CLI keeps its MCP servers and its hooks
// and policies in one .gemini/settings.json; install --project writes
// Bridle's entry and its native rendering there, and a second install
// changes nothing.
func TestNativeSharesTheConfig(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte("{\n  // mine\n  \"theme\": \"dark\",\n}\n"), 0o644)
	doc := enforceDoc()
	doc.AgentProfiles["gemini"] = schema.AgentProfile{}
	o := Options{Client: "gemini", ProjectDir: dir, Command: "bridle", Rules: filepath.Join(dir, "rules"), Doc: doc}
	res, err := Install(o)
	if err != nil || len(res.Settings) == 0 {
		t.Fatalf("%+v %v", res, err)
	}
	b, _ := os.ReadFile(settings)
	for _, want := range []string{`"mcpServers"`, `"--agent",`, "bridle hook gemini", "// mine", `"theme": "dark"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings.json lacks %s:\n%s", want, b)
		}
	}
	again, err := Install(o)
	if err != nil || again.Changed || slices.ContainsFunc(again.Settings, func(r Result) bool { return r.Changed }) {
		t.Errorf("a second install changed something: %+v %v", again, err)
	}
}
