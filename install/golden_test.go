package install

import (
	"errors"
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
)

var update = flag.Bool("update", false, "rewrite the install goldens (testdata/AGENT.txtar), keeping their inputs (in/…)")

// goldenCase is one install a golden records: the options (dir is the
// case's own directory, the project or the home), and the input files it
// starts from (the archive's in/NAME/… files).
type goldenCase struct {
	name string
	opts func(dir string) Options
	// input names the archive's in/NAME/ files copied into dir first.
	input string
	// optional: a case run only when the golden has its inputs.
	optional bool
}

// scope is how a case reaches the agent's file: the project's, or the
// user's for an agent that reads no project's.
func scope(cfg *agents.Config, dir string, o Options) Options {
	if cfg.Project == "" {
		o.Home = dir
	} else {
		o.ProjectDir = dir
	}
	return o
}

func goldenCases(cfg *agents.Config) []goldenCase {
	local := func(dir string) Options {
		return scope(cfg, dir, Options{Command: "bridle", Rules: filepath.Join(dir, "rules")})
	}
	return []goldenCase{
		// A project's shareable stdio entry: bridle from PATH, the rules
		// relative to the project.
		{name: "project", opts: func(dir string) Options {
			return Options{ProjectDir: dir, Command: "bridle", Rules: filepath.Join(dir, "rules")}
		}},
		// A user's: this binary and the rules by absolute path.
		{name: "user", opts: func(dir string) Options {
			return Options{Home: dir, Command: "/usr/local/bin/bridle", Rules: "/srv/rules", Ref: "release"}
		}},
		// Rules from Gitea: the token is the client's environment's.
		{name: "gitea", opts: func(dir string) Options {
			return scope(cfg, dir, Options{Command: "bridle", GiteaURL: "https://gitea.example.com", GiteaRepo: "team/rules"})
		}},
		// The gateway: the client's HTTP entry, or the stdio bridge.
		{name: "server", opts: func(dir string) Options {
			return scope(cfg, dir, Options{Command: "bridle", Server: "https://bridle.example.com/", GatewayProject: "runic-gateway"})
		}},
		{name: "hostile", input: "hostile", opts: local},
		// Another harness's file the agent reads instead of its own:
		// Bridle's entry goes there, beside the other harness's.
		{name: "shared", input: "shared", opts: local, optional: true},
		{name: "malformed", input: "malformed", opts: local},
		{name: "notobject", input: "notobject", opts: local},
	}
}

// TestGoldens: for every installable agent, testdata/AGENT.txtar holds
// what install writes for it, read from the agents registry: a project's
// stdio entry, a user's, one serving rules from Gitea, the gateway's entry
// (HTTP or the bridge), the merge into a hostile file of the person's own
// (comments, trailing commas, unknown keys, another server, their hooks
// and permissions), and the refusals of a file that does not parse and of
// a servers key that is not an object. An installable agent without a
// golden fails. Each install is run twice: the second changes nothing.
//
//	go test ./install -run Goldens -update
//
// rewrites every file but the inputs (in/…), which are the person's to
// edit (a new agent's are generated from its registry entry).
func TestGoldens(t *testing.T) {
	for _, name := range Clients() {
		t.Run(name, func(t *testing.T) {
			cfg, _ := clientConfig(name)
			file := filepath.Join("testdata", name+".txtar")
			ar, err := txtar.ParseFile(file)
			switch {
			case errors.Is(err, os.ErrNotExist) && *update:
				ar = &txtar.Archive{Files: defaultInputs(name, cfg)}
			case err != nil:
				t.Fatalf("%v: every installable agent has install goldens (go test ./install -run Goldens -update writes them)", err)
			}
			var inputs, want []txtar.File
			for _, f := range ar.Files {
				if strings.HasPrefix(f.Name, "in/") {
					inputs = append(inputs, f)
				} else {
					want = append(want, f)
				}
			}
			var got []txtar.File
			for _, c := range goldenCases(cfg) {
				got = append(got, runCase(t, name, c, inputs)...)
			}
			if *update {
				a, _ := agents.Lookup(name)
				ar.Comment = fmt.Appendf(nil, "What bridle install writes for %s (%s), from the agents registry.\n"+
					"go test ./install -run Goldens -update rewrites every file but the inputs (in/CASE/…).\n", name, a.DisplayName)
				ar.Files = append(inputs, got...)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(archiveMap(want), archiveMap(got)); diff != "" {
				t.Errorf("%s (-golden +got; go test ./install -run Goldens -update rewrites it):\n%s", file, diff)
			}
		})
	}
}

func archiveMap(files []txtar.File) map[string]string {
	m := map[string]string{}
	for _, f := range files {
		m[f.Name] = string(f.Data)
	}
	return m
}

// runCase installs c into a new directory and returns what it recorded:
// each file written (CASE/PATH), a summary (CASE.result) or the error
// (CASE.err), with the directory spelled $DIR.
func runCase(t *testing.T, client string, c goldenCase, inputs []txtar.File) []txtar.File {
	t.Helper()
	dir := t.TempDir()
	norm := func(s string) string { return strings.ReplaceAll(s, dir, "$DIR") }
	before := map[string]string{}
	prefix := "in/" + c.input + "/"
	for _, f := range inputs {
		if c.input == "" || !strings.HasPrefix(f.Name, prefix) {
			continue
		}
		rel := strings.TrimPrefix(f.Name, prefix)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			t.Fatal(err)
		}
		before[p] = string(f.Data)
	}
	if c.input != "" && len(before) == 0 {
		if c.optional {
			return nil
		}
		t.Fatalf("case %s: the golden has no in/%s/ file", c.name, c.input)
	}
	o := c.opts(dir)
	o.Client = client
	if p, err := Path(o); err == nil && c.input != "" && before[p] == "" {
		t.Fatalf("case %s: no in/%s/ file is the agent's config %s (its registry entry changed? delete the golden's in/ files, then -update)", c.name, c.input, strings.TrimPrefix(p, dir+string(filepath.Separator)))
	}
	res, err := Install(o)
	if err != nil {
		for p, b := range before {
			if got, _ := os.ReadFile(p); string(got) != b {
				t.Errorf("case %s: a refused install changed %s", c.name, p)
			}
		}
		return []txtar.File{{Name: c.name + ".err", Data: []byte(norm(err.Error()) + "\n")}}
	}
	if !res.Changed {
		t.Errorf("case %s: nothing changed", c.name)
	}
	if again, err := Install(o); err != nil || again.Changed {
		t.Errorf("case %s: a second install changed something: %+v %v", c.name, again, err)
	}
	if st, err := os.Stat(res.Path); err == nil && len(before) > 0 && st.Mode().Perm() != 0o600 {
		t.Errorf("case %s: the file's mode changed to %v", c.name, st.Mode())
	}
	rel, _ := filepath.Rel(dir, res.Path)
	b, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	summary := fmt.Sprintf("entry %s\nhttp %v\n", res.Entry, res.HTTP)
	if res.TokenEnv != "" {
		summary += "token variable " + res.TokenEnv + "\n"
	}
	if len(res.Env) > 0 {
		summary += "passes " + strings.Join(res.Env, " ") + "\n"
	}
	return []txtar.File{
		{Name: c.name + "/" + filepath.ToSlash(rel), Data: []byte(norm(string(b)))},
		{Name: c.name + ".result", Data: []byte(summary)},
	}
}

// defaultInputs are a new agent's inputs, made from its registry entry:
// a hostile file of the person's own in the agent's project file (or the
// last of its other names, which install must find), one that does not
// parse, and one whose servers key is not an object.
func defaultInputs(client string, cfg *agents.Config) []txtar.File {
	file := cfg.Project
	if n := len(cfg.ProjectAlso); n > 0 {
		file = cfg.ProjectAlso[n-1]
	}
	if file == "" {
		file = cfg.User
	}
	entry := EntryName(client)
	var hostile, malformed, notObject string
	switch cfg.Format {
	case agents.TOML:
		hostile = fmt.Sprintf(`# my own config: Bridle keeps every byte that is not its entry
model = "o4" # a trailing comment

[%[1]s.github]
command = "gh-mcp" # keep me
args = ["stdio"]

[%[1]s.%[2]s]
command = "old-bridle"
args = []

[profiles.fast]
model = "mini"
`, cfg.Servers, entry)
		malformed = "model = \"o4\"\n[" + cfg.Servers + ".github]\ncommand = \"unterminated\n"
		notObject = cfg.Servers + " = [\"github\"]\n"
	case agents.YAML:
		hostile = fmt.Sprintf(`# my own config: Bridle keeps every entry, key and comment that is not its entry
name: My servers # a trailing comment
version: 0.0.1
schema: v1
%[1]s:
  # the person's own server
  - name: github
    command: gh-mcp # keep me
    args: [stdio]
  - name: %[2]s # replaced
    command: old-bridle
models:
  - name: mine
    provider: ollama
    model: llama3
`, cfg.Servers, entry)
		malformed = cfg.Servers + ":\n  - name: github\n    command: [unterminated\n"
		notObject = "# a mapping where a list belongs\n" + cfg.Servers + ":\n  github:\n    command: gh-mcp\n"
	default:
		hostile = fmt.Sprintf(`// my own settings: Bridle keeps every byte that is not its entry
{
  "theme": "dark", // a trailing comment
  /* a block comment */
  %[1]q: {
    "github": {"command": "gh-mcp", "args": ["stdio"],},
    %[2]q: {"command": "old-bridle"}, // replaced
  },
  "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "my-hook"}]}]},
  "permissions": {"deny": ["Bash(rm -rf:*)"], "allow": ["Bash(go test:*)"]},
  "unknownKey": {"nested": [1, 2, 3,],},
}
`, cfg.Servers, entry)
		malformed = fmt.Sprintf("{\n  %q: {\n    \"github\": {\"command\": \"gh-mcp\"\n  }\n}\n", cfg.Servers)
		notObject = fmt.Sprintf("{\n  // a list where an object belongs\n  %q: [\"github\"]\n}\n", cfg.Servers)
	}
	out := []txtar.File{
		{Name: "in/hostile/" + file, Data: []byte(hostile)},
		{Name: "in/malformed/" + file, Data: []byte(malformed)},
		{Name: "in/notobject/" + file, Data: []byte(notObject)},
	}
	if cfg.Instead {
		for _, f := range cfg.AlsoReads {
			out = append(out, txtar.File{Name: "in/shared/" + f, Data: []byte(fmt.Sprintf(`{
  // another harness's entry, which stays
  %q: {
    %q: {"type": "stdio", "command": "bridle", "args": ["mcp", "--agent", "claude"]}
  }
}
`, cfg.Servers, ServerName))})
		}
	}
	return out
}

// TestGoldensComplete: no golden is left for an agent that is no longer
// installable.
func TestGoldensComplete(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".txtar"); !slices.Contains(Clients(), name) {
			t.Errorf("%s: %s is not an installable agent", f, name)
		}
	}
}
