package renderers

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/schema"
)

// TestAiderRead: Bridle's read: entry in .aider.conf.yml is merged into the
// person's file keeping their keys, comments and files, found again by its
// comment (a second merge changes nothing; a new render path replaces it),
// and taken out when no profile runs Aider; what it cannot merge is an
// error, the file left as it was.
func TestAiderRead(t *testing.T) {
	const mine = "# my settings\nmodel: sonnet # paid\nread: [docs/STYLE.md, notes.md]\n"
	tests := []struct {
		name, in, want string
		out            string // "" for the input unchanged; "-" for no file
		err            string
	}{
		{name: "new file", in: "", want: "CONVENTIONS.md",
			out: "read:\n  - CONVENTIONS.md # " + aiderMarker + "\n"},
		{name: "the person's list", in: mine, want: "CONVENTIONS.md",
			out: "# my settings\nmodel: sonnet # paid\nread:\n  - docs/STYLE.md\n  - notes.md\n  - CONVENTIONS.md # " + aiderMarker + "\n"},
		{name: "one file of theirs", in: "read: docs/STYLE.md # theirs\n", want: "CONVENTIONS.md",
			out: "read:\n  - docs/STYLE.md # theirs\n  - CONVENTIONS.md # " + aiderMarker + "\n"},
		{name: "null", in: "read:\nmodel: x\n", want: "CONVENTIONS.md",
			out: "read:\n  - CONVENTIONS.md # " + aiderMarker + "\nmodel: x\n"},
		{name: "already there", in: "read:\n  - a.md\n  - CONVENTIONS.md # " + aiderMarker + "\n", want: "CONVENTIONS.md"},
		{name: "moved", in: "read:\n  - a.md\n  - old/CONVENTIONS.md # " + aiderMarker + "\n", want: "CONVENTIONS.md",
			out: "read:\n  - a.md\n  - CONVENTIONS.md # " + aiderMarker + "\n"},
		{name: "the person's own CONVENTIONS.md stays theirs", in: "read: [CONVENTIONS.md]\n", want: "CONVENTIONS.md",
			out: "read:\n  - CONVENTIONS.md\n  - CONVENTIONS.md # " + aiderMarker + "\n"},
		{name: "removed", in: "model: x\nread:\n  - a.md\n  - CONVENTIONS.md # " + aiderMarker + "\n", want: "",
			out: "model: x\nread:\n  - a.md\n"},
		{name: "removed with its key", in: "model: x\nread:\n  - CONVENTIONS.md # " + aiderMarker + "\n", want: "",
			out: "model: x\n"},
		{name: "nothing else: no file", in: "read:\n  - CONVENTIONS.md # " + aiderMarker + "\n", want: "", out: "-"},
		{name: "nothing of Bridle's", in: mine, want: ""},
		{name: "two documents", in: "model: x\n---\nmodel: y\n", want: "CONVENTIONS.md", err: "more than one YAML document"},
		{name: "read is a mapping", in: "read:\n  a: b\n", want: "CONVENTIONS.md", err: "neither a file nor a list"},
		{name: "not a mapping", in: "- a\n- b\n", want: "CONVENTIONS.md", err: "not a YAML mapping"},
		{name: "broken", in: "read: [a\n", want: "CONVENTIONS.md", err: "yaml:"},
		{name: "a key twice", in: "model: a\nmodel: b\n", want: "CONVENTIONS.md", err: "already defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mergeAiderRead([]byte(tc.in), tc.want)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tc.out
			switch want {
			case "":
				want = tc.in
			case "-":
				want = ""
			}
			if string(got) != want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, want)
			}
			if got == nil {
				return
			}
			again, err := mergeAiderRead(got, tc.want)
			if err != nil || string(again) != string(got) {
				t.Errorf("a second merge changed it (%v):\n%s", err, again)
			}
		})
	}
}

// FuzzAiderRead: whatever .aider.conf.yml holds, the merge refuses it or
// keeps every top-level key and holds Bridle's entry once; merging again
// changes nothing, and taking Bridle's entry out leaves none.
func FuzzAiderRead(f *testing.F) {
	for _, s := range []string{"", "read: a.md\n", "read: [a, b]\nmodel: x # c\n", "read:\n  - CONVENTIONS.md # " + aiderMarker + "\n",
		"# only a comment\n", "a: &x [1]\nread: *x\n", "read: {a: b}\n", "- 1\n", "read: [a\n", "x: 1\n---\ny: 2\n", "read: null\n", "? [a]\n: b\nread: c\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := mergeAiderRead(data, "CONVENTIONS.md")
		if err != nil {
			return
		}
		if n, err := bridleEntries(out); err != nil || n != 1 {
			t.Fatalf("Bridle's entry %d times (%v):\n%s", n, err, out)
		}
		var before, after map[string]any
		if yaml.Unmarshal(data, &before) == nil && yaml.Unmarshal(out, &after) == nil {
			for k := range before {
				if _, ok := after[k]; !ok {
					t.Fatalf("lost key %q:\n%s", k, out)
				}
			}
		}
		again, err := mergeAiderRead(out, "CONVENTIONS.md")
		if err != nil || string(again) != string(out) {
			t.Fatalf("a second merge changed it (%v):\n%s\n---\n%s", err, out, again)
		}
		gone, err := mergeAiderRead(out, "")
		if n, perr := bridleEntries(gone); err != nil || perr != nil || n != 0 {
			t.Fatalf("taking Bridle's entry out (%v, %v): %d left:\n%s", err, perr, n, gone)
		}
	})
}

// bridleEntries counts the read: entries carrying Bridle's comment.
func bridleEntries(conf []byte) (int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(conf, &doc); err != nil || doc.Kind == 0 {
		return 0, err
	}
	root, n := doc.Content[0], 0
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "read" {
			continue
		}
		for _, item := range root.Content[i+1].Content {
			if strings.Contains(item.LineComment, aiderMarker) {
				n++
			}
		}
	}
	return n, nil
}

// TestNoMCPRender: an Aider profile's render names none of Bridle's tools
// and claims no enforcement it cannot have; explain says each enforce
// entry is prose only, because nothing checks it there.
func TestNoMCPRender(t *testing.T) {
	doc := harnessDoc("aider", true)
	doc.Guardrails[0].ScopeApproval = true
	f, err := Render(doc, "aider", Meta{})
	if err != nil {
		t.Fatal(err)
	}
	body := f.Content[strings.Index(f.Content, "-->"):] // the header names the propose tool to a human
	for _, tool := range []string{"get_rules", "check_command", "check_path", "propose_guardrail", "request_scope_approval", "Enforced by Bridle.", "Bridle refuses"} {
		if strings.Contains(body, tool) {
			t.Errorf("the render names %q:\n%s", tool, body)
		}
	}
	e, err := ExplainAll(doc, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Enforcement) != 4 {
		t.Fatalf("explain: %+v", e.Enforcement)
	}
	for _, tr := range e.Enforcement {
		if tr.Mechanism != enforce.ProseOnly || !strings.Contains(tr.Why, "Aider has no MCP client") {
			t.Errorf("explain: %+v", tr)
		}
	}
	// The stepwise render of the same profile names none of them either.
	sdoc := harnessDoc("aider", true)
	sdoc.Guardrails[0].ScopeApproval = true
	p := sdoc.AgentProfiles["aider"]
	p.Style = schema.Stepwise
	sdoc.AgentProfiles["aider"] = p
	sf, err := Render(sdoc, "aider", Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if sf.Renderer != "agents-md-stepwise" {
		t.Fatalf("rendered by %s", sf.Renderer)
	}
	sbody := sf.Content[strings.Index(sf.Content, "-->"):]
	for _, tool := range []string{"get_rules", "check_command", "check_path", "propose_guardrail", "request_scope_approval", "Bridle tools", "Bridle refuses", "Bridle will refuse", "through Bridle"} {
		if strings.Contains(sbody, tool) {
			t.Errorf("the stepwise render names %q:\n%s", tool, sbody)
		}
	}
	// Codex's render, on the same rules, still names them.
	c, err := Render(harnessDoc("codex", true), "codex", Meta{})
	if err != nil || !strings.Contains(c.Content, "get_rules") {
		t.Errorf("codex's render lost get_rules (%v)", err)
	}
}

// TestCrushHookFile: Crush merges crush.json and .crush.json, so Bridle's
// hook goes into the one the project has (the person's crush.json, beside
// their own hook), and into .crush.json only when it has neither.
func TestCrushHookFile(t *testing.T) {
	doc := harnessDoc("crush", true)
	for _, tc := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{}, ".crush.json"},
		{map[string]string{"crush.json": `{"hooks": {"PreToolUse": [{"matcher": "^bash$", "command": "./no-haskell.sh"}]}}`}, "crush.json"},
		{map[string]string{"crush.json": `{}`, ".crush.json": `{"mcp": {}}`}, ".crush.json"},
	} {
		n, err := RenderNativeFrom(func(p string) ([]byte, error) {
			if c, ok := tc.files[p]; ok {
				return []byte(c), nil
			}
			return nil, nil
		}, doc, NativeOptions{RulesPath: "rules"})
		if err != nil {
			t.Fatal(err)
		}
		if len(n.Files) != 1 || n.Files[0].Path != tc.want || !strings.Contains(n.Files[0].Content, "bridle hook crush") {
			t.Errorf("%v: %+v, want the hook in %s", tc.files, n.Files, tc.want)
			continue
		}
		if strings.Contains(tc.files["crush.json"], "no-haskell") && !strings.Contains(n.Files[0].Content, "no-haskell") {
			t.Errorf("the person's hook is gone:\n%s", n.Files[0].Content)
		}
	}
}
