package renderers

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/internal/jsonc"
	"github.com/bridle-dev/bridle/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/harness")

// TestEveryHarness is derived from the agents registry: every harness's
// native rendering and hook protocol exist, and it has a golden of what
// render --all writes for it and a page in the docs.
func TestEveryHarness(t *testing.T) {
	for _, a := range agents.All() {
		h := a.Harness
		if h == nil {
			continue
		}
		if h.Native != "" && !slices.Contains(NativeKinds(), NativeKind(h.Native)) {
			t.Errorf("%s: native rendering %q is not implemented (renderers.natives)", a.Name, h.Native)
		}
		if h.Hook != "" && !slices.Contains(enforce.Protocols(), h.Hook) {
			t.Errorf("%s: hook protocol %q is not implemented (enforce.protocols)", a.Name, h.Hook)
		}
		if _, err := os.Stat(filepath.Join("testdata", "harness", a.Name+".txtar")); err != nil && !*update {
			t.Errorf("%s: no golden testdata/harness/%s.txtar (go test ./renderers -run Harness -update)", a.Name, a.Name)
		}
		if _, err := os.Stat(filepath.Join("..", "docs", "agents", a.Name+".md")); err != nil {
			t.Errorf("%s: no page docs/agents/%s.md", a.Name, a.Name)
		}
	}
	for _, k := range NativeKinds() {
		if !slices.ContainsFunc(agents.All(), func(a agents.Agent) bool { return a.Harness != nil && a.Harness.Native == string(k) }) {
			t.Errorf("native rendering %s: no harness names it", k)
		}
	}
}

// harnessDoc has one profile, for harness, and with enforce a guardrail
// with command and path entries.
func harnessDoc(harness string, withEnforce bool) *schema.Document {
	g := schema.Guardrail{ID: "no-force-push", Severity: schema.Enforcement, Statement: "Never force-push; never read .env."}
	if withEnforce {
		g.Enforce = schema.Enforce{
			Commands: schema.CommandRules{Forbid: []string{"git push --force"}, Ask: []string{"npm publish"}},
			Paths:    schema.PathRules{NoRead: []string{".env"}, NoWrite: []string{"migrations/**"}},
		}
	}
	doc := &schema.Document{
		Project:       schema.Project{ID: "p", Overview: "A project."},
		AgentProfiles: map[string]schema.AgentProfile{harness: {}},
		Guardrails:    []schema.Guardrail{g},
	}
	doc.Normalize()
	return doc
}

// userFiles are files a person already has where a harness's native
// rendering merges: comments, trailing commas, their own hooks and keys.
var userFiles = map[string]string{
	".gemini/settings.json": "{\n  // my settings\n  \"theme\": \"Dracula\",\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\"matcher\": \"run_shell_command\", \"hooks\": [{\"type\": \"command\", \"command\": \"./guard.sh\"}]},\n    ],\n  },\n}\n",
	".qwen/settings.json":   "{\n  \"model\": {\"name\": \"qwen3-coder\"}, // mine\n}\n",
	".cursor/hooks.json":    "{\n  \"version\": 1,\n  \"hooks\": {\"afterFileEdit\": [{\"command\": \"./format.sh\"}]}\n}\n",
	".windsurf/hooks.json":  "{\n\t\"hooks\": {\n\t\t\"pre_run_command\": [{\"command\": \"python3 audit.py\"}]\n\t}\n}\n",
	".amp/settings.json":    "{\n  // mine\n  \"amp.mcpServers\": {\"docs\": {\"command\": \"docs-mcp\"}},\n  \"amp.permissions\": [{\"tool\": \"Bash\", \"action\": \"allow\", \"matches\": {\"cmd\": \"make *\"}}],\n}\n",
	".aider.conf.yml":       "# my aider settings\nmodel: sonnet # the one we pay for\nread: docs/STYLE.md\n",
}

// TestHarnessGoldens renders every harness's files into a project that
// already holds the person's own settings, twice (the second render
// changes nothing and --check finds all current), compares them with
// testdata/harness/NAME.txtar, then renders the rules without enforce
// entries: Bridle's entries leave, the person's stay.
func TestHarnessGoldens(t *testing.T) {
	for _, a := range agents.All() {
		if a.Harness == nil {
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			dir := t.TempDir()
			for p, c := range userFiles {
				writeFile(t, dir, p, c)
			}
			doc := harnessDoc(a.Name, true)
			meta := Meta{BridleVersion: "test", ContentHash: "sha256:0", Commit: "0123456789abcdef", Ref: "main"}
			md, err := Render(doc, a.Name, meta)
			if err != nil {
				t.Fatal(err)
			}
			n, err := RenderNative(dir, doc, NativeOptions{RulesPath: "rules"})
			if err != nil {
				t.Fatal(err)
			}
			files := append([]File{md}, n.Files...)
			if _, err := Write(dir, files); err != nil {
				t.Fatal(err)
			}
			again, err := RenderNative(dir, doc, NativeOptions{RulesPath: "rules"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fileMap(n.Files), fileMap(again.Files)); diff != "" {
				t.Errorf("a second render differs (-first +second):\n%s", diff)
			}
			findings, err := CheckNative(dir, again)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findings {
				if f.State != Current {
					t.Errorf("check after render: %s is %s", f.Path, f.State)
				}
			}
			golden := filepath.Join("testdata", "harness", a.Name+".txtar")
			got := &txtar.Archive{Comment: []byte("What bridle render --all writes for a " + a.DisplayName + " profile whose guardrail has command and path\nentries, in a project that already holds the person's own settings.\n")}
			for _, f := range files {
				got.Files = append(got.Files, txtar.File{Name: f.Path, Data: []byte(f.Content)})
			}
			if *update {
				if err := os.WriteFile(golden, txtar.Format(got), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				want, err := txtar.ParseFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(txtar.Format(want)), string(txtar.Format(got))); diff != "" {
					t.Errorf("%s differs (-want +got; go test ./renderers -run Harness -update):\n%s", golden, diff)
				}
			}

			// Without enforce entries, Bridle's part leaves.
			off, err := RenderNative(dir, harnessDoc(a.Name, false), NativeOptions{RulesPath: "rules"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Write(dir, off.Files); err != nil {
				t.Fatal(err)
			}
			if _, err := RemoveOrphans(dir, off.Orphans); err != nil {
				t.Fatal(err)
			}
			for p, c := range userFiles {
				b, err := os.ReadFile(filepath.Join(dir, p))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(b), hookMarker) {
					t.Errorf("%s still holds Bridle's hook:\n%s", p, b)
				}
				for _, keep := range []string{"guard.sh", "// my settings", "qwen3-coder", "// mine", "format.sh", "audit.py", "# my aider settings", "# the one we pay for", "docs/STYLE.md"} {
					if strings.Contains(c, keep) && !strings.Contains(string(b), keep) {
						t.Errorf("%s lost the person's %q:\n%s", p, keep, b)
					}
				}
			}
			for _, f := range n.Files {
				if _, user := userFiles[f.Path]; user || f.kind == kindMarkdown {
					continue
				}
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
				if err == nil && strings.Contains(string(b), hookMarker) {
					t.Errorf("%s (Bridle's own) is still there with its hook", f.Path)
				}
			}
		})
	}
}

func fileMap(fs []File) map[string]string {
	m := map[string]string{}
	for _, f := range fs {
		m[f.Path] = f.Content
	}
	return m
}

func writeFile(t *testing.T, dir, p, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExplainSaysWhatEachHarnessReads: a harness that reads another
// profile's render (AGENTS.md) is told so, and a hook harness's entries are
// reported as enforced by its hook.
func TestExplainSaysWhatEachHarnessReads(t *testing.T) {
	doc := harnessDoc("codex", true)
	for _, a := range []string{"opencode", "kimi", "gemini", "cursor"} {
		doc.AgentProfiles[a] = schema.AgentProfile{}
	}
	doc.Normalize()
	reads := func(agent string) map[string]Read {
		f, err := Render(doc, agent, Meta{})
		if err != nil {
			t.Fatal(err)
		}
		e, err := ExplainAll(doc, f)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]Read{}
		for _, r := range e.Reads {
			m[r.Path] = r
		}
		if agent == "gemini" {
			if len(e.Enforcement) != 4 || e.Enforcement[0].Mechanism != enforce.Hook || !strings.Contains(e.Enforcement[0].Why, "bridle hook gemini") {
				t.Errorf("gemini's enforcement: %+v", e.Enforcement)
			}
		}
		return m
	}
	if r := reads("opencode"); !r[".opencode/bridle.md"].Own || r["AGENTS.md"].Agent != "codex" {
		t.Errorf("opencode reads %+v", r)
	}
	if r := reads("kimi"); r["AGENTS.md"].Agent != "codex" || r["AGENTS.md"].Own {
		t.Errorf("kimi reads %+v", r)
	}
	if r := reads("cursor"); !r[".cursor/rules/bridle.mdc"].Own || r["AGENTS.md"].Agent != "codex" {
		t.Errorf("cursor reads %+v", r)
	}
	if r := reads("gemini"); len(r) != 1 || !r["GEMINI.md"].Own {
		t.Errorf("gemini reads %+v", r)
	}
}

// TestReadmeAgents: the README's agent table is the registry's.
func TestReadmeAgents(t *testing.T) {
	const begin, end = "<!-- agents:begin (generated from the agents registry by go test ./renderers -run ReadmeAgents -update) -->\n", "<!-- agents:end -->"
	var b strings.Builder
	b.WriteString(begin)
	b.WriteString("| agent | reads | MCP configuration | enforcement | checked with |\n|---|---|---|---|---|\n")
	for _, a := range agents.All() {
		h := a.Harness
		if h == nil {
			fmt.Fprintf(&b, "| [%s](docs/agents/%s.md) `%s` | a model: `agents/%s/AGENTS.md`, or its harness's file (`harness:`) | its harness's | its harness's | — |\n", a.DisplayName, a.Name, a.Name, a.Name)
			continue
		}
		reads := "`" + h.Instructions + "`"
		if len(h.Reads) > 0 {
			reads += " (also " + strings.Join(h.Reads, ", ") + ")"
		}
		mcpCfg := "—"
		if c := h.Config; c != nil {
			var files []string
			if c.Project != "" {
				files = append(files, "`"+c.Project+"`")
			}
			files = append(files, "`~/"+c.User+"`")
			mcpCfg = strings.Join(files, ", ")
		}
		enf := "prose; `check_command` / `check_path`"
		switch {
		case h.NoMCP:
			enf = "prose only (no MCP client)"
		case h.Native != "":
			enf = "`" + h.Native + "`"
			if h.Hook != "" {
				enf += " + `bridle hook " + a.Name + "`"
			}
		}
		checked := "its documented format"
		if h.Client != "" {
			checked = "`" + h.Client + "`"
		}
		fmt.Fprintf(&b, "| [%s](docs/agents/%s.md) `%s` | %s | %s | %s | %s |\n", a.DisplayName, a.Name, a.Name, reads, mcpCfg, enf, checked)
	}
	b.WriteString(end)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatal("README.md has no agents block")
	}
	got := s[:i] + b.String() + s[j+len(end):]
	if got == s {
		return
	}
	if *update {
		if err := os.WriteFile("../README.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's agent table is not the registry's (go test ./renderers -run ReadmeAgents -update):\n%s", b.String())
}

// FuzzMergeHookSettings: whatever a person's .gemini/settings.json holds,
// rendering Bridle's hook into it either refuses with an error or keeps
// every other top-level key and holds the hook once; rendering again
// changes nothing.
func FuzzMergeHookSettings(f *testing.F) {
	for _, s := range []string{"", "{}", userFiles[".gemini/settings.json"], `{"hooks": []}`, `{"hooks": {"BeforeTool": {}}}`,
		`{"hooks": {"BeforeTool": [{"hooks": [{"command": "bridle hook gemini --rules old"}]}]}, "policyPaths": "x"}`, "// c\n{\"a\": [1,],}"} {
		f.Add([]byte(s))
	}
	doc := harnessDoc("gemini", true)
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(files map[string][]byte) func(string) ([]byte, error) {
			return func(p string) ([]byte, error) { return files[p], nil }
		}
		files := map[string][]byte{".gemini/settings.json": data}
		n, err := RenderNativeFrom(read(files), doc, NativeOptions{RulesPath: "rules"})
		if err != nil {
			return
		}
		var out []byte
		for _, file := range n.Files {
			files[file.Path] = []byte(file.Content)
			if file.Path == ".gemini/settings.json" {
				out = []byte(file.Content)
			}
		}
		d, err := jsonc.Parse("settings.json", out)
		if err != nil {
			t.Fatalf("the merged file does not parse: %v\n%s", err, out)
		}
		// The person's own keys may hold anything, that text included:
		// count in the hook list only.
		if list, _ := d.Get("hooks", "BeforeTool"); strings.Count(string(list), "bridle hook gemini") != 1 {
			t.Fatalf("the hook is not in hooks.BeforeTool once:\n%s", out)
		}
		again, err := RenderNativeFrom(read(files), doc, NativeOptions{RulesPath: "rules"})
		if err != nil {
			t.Fatalf("a second render refused what the first wrote: %v\n%s", err, out)
		}
		for _, file := range again.Files {
			if string(files[file.Path]) != file.Content {
				t.Fatalf("a second render changed %s:\n%s\n---\n%s", file.Path, files[file.Path], file.Content)
			}
		}
	})
}
