package renderers

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/enforce"
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
				for _, keep := range []string{"guard.sh", "// my settings", "qwen3-coder", "// mine", "format.sh", "audit.py"} {
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
