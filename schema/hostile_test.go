package schema

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// TestHostileInput feeds inputs meant to crash, hang or exhaust the loader.
// Each must give a positioned error diagnostic and no file.
func TestHostileInput(t *testing.T) {
	laughs := "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		laughs += n + ": &" + n + " [" + strings.Repeat("*"+prev+",", 9) + "*" + prev + "]\n"
		prev = n
	}
	tests := []struct {
		name string
		data string
		want string // substring of the first diagnostic
		line int
	}{
		{"empty", "", "file is empty", 1},
		{"whitespace", "  \n\n\t\n", "file is empty", 1},
		{"comments only", "# nothing here\n", "file is empty", 1},
		{"not utf-8", "schema_version: 1\nproject:\n  id: \xff\xfe\n", "not valid UTF-8", 3},
		{"utf-16", "\xff\xfes\x00c\x00", "not valid UTF-8", 1},
		{"huge", "schema_version: 1\n" + strings.Repeat("# padding\n", MaxSize/10+1), "larger than", 1},
		{"billion laughs", laughs, "through aliases", 0},
		{"deep nesting", "a: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n", "nested deeper than", 1},
		{"deep mappings", nested(100), "nested deeper than", 0},
		{"scalar document", "just a string\n", "must be a mapping", 1},
		{"list document", "- a\n- b\n", "must be a mapping", 1},
		{"two documents", "schema_version: 1\n---\nschema_version: 1\n", "more than one YAML document", 0},
		{"tab indentation", "project:\n\tid: x\n", "invalid YAML", 2},
		{"unclosed quote", "project:\n  id: \"x\n", "invalid YAML", 0},
		{"non-string key", "schema_version: 1\n[a, b]: c\nproject: {id: x}\n", "mapping key must be a plain string", 2},
		{"version as string", "schema_version: one\nproject: {id: x}\n", "schema_version: must be an integer", 1},
		{"no version", "project: {id: x}\n", `missing required key "schema_version"`, 1},
		{"null project", "schema_version: 1\nproject:\n", "project: must be an object", 2},
		{"nul byte", "schema_version: 1\nproject: {id: \"a\x00b\"}\n", "U+0000 NUL", 2},
		{"control char", "schema_version: 1\nproject: {id: x, name: \"a\\u0007b\"}\n", "control character", 2},
		{"unknown alias", "a: *nope\n", "invalid YAML", 1},
		// Aliases that refer to the value containing them: every recursive
		// pass (the walk, position lookups, typed decoding) would loop.
		{"merge of itself", "project: &p {<<: *p}\n", "alias *p refers to a value that contains it", 1},
		{"merge of itself, 47 bytes", "schema_version: 1\nproject: &p {id: x, <<: *p}\n", "alias *p refers to a value", 2},
		{"merge list of itself", "schema_version: 1\nproject: &p\n  id: x\n  <<: [*p]\n", "alias *p refers", 4},
		{"sequence of itself", "a: &a [*a]\n", "alias *a refers", 1},
		{"mapping of itself", "a: &a {b: *a}\n", "alias *a refers", 1},
		{"merge of an ancestor", "a: &a\n  b:\n    c: [{<<: *a}]\n", "alias *a refers", 3},
		{"alias of an ancestor's ancestor", "x: &x {y: &y {z: [*y, *x]}}\n", "alias *y refers", 1},
		{"typed field of itself", "schema_version: 1\nproject: &p {id: x, name: *p}\n", "alias *p refers", 2},
		{"guardrails of themselves", "schema_version: 1\nproject: {id: x}\nguardrails: &g [{id: a, statement: s, severity: guidance, applies_to: *g}]\n", "alias *g refers", 3},
		{"nesting through aliases", aliasChain(40, "[*%s]"), "nested deeper than", 0},
		{"nesting through merges", aliasChain(70, "{<<: *%s}"), "nested deeper than", 0},
		{"merge chain without keys", aliasChain(900, "{<<: *%s}"), "nested deeper than", 0},
		{"mapping with too many keys", "schema_version: 1\nproject: {id: x}\n" + strings.Repeat("k: 1\n", MaxKeys+1), "more than the 1000 allowed", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, diags := Load("bridle.yaml", []byte(tt.data))
			if !diags.HasErrors() {
				t.Fatalf("no error diagnostic (file %v)", f != nil)
			}
			d := diags[0]
			if d.Line < 1 || d.Col < 1 || d.File != "bridle.yaml" {
				t.Errorf("diagnostic has no position: %+v", d)
			}
			if tt.line != 0 && d.Line != tt.line {
				t.Errorf("line = %d, want %d (%s)", d.Line, tt.line, d)
			}
			if tt.want != "" && !strings.Contains(diags.Error(), tt.want) {
				t.Errorf("diagnostics = %q, want one containing %q", diags.Error(), tt.want)
			}
		})
	}
}

// aliasChain defines n anchors, each repeating the one before through
// format (which holds one %s for the previous anchor's name).
func aliasChain(n int, format string) string {
	var b strings.Builder
	b.WriteString("a0: &a0 {k: v}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "a%d: &a%d "+format+"\n", i, i, fmt.Sprintf("a%d", i-1))
	}
	return b.String()
}

func nested(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat("  ", i) + "k:\n")
	}
	return b.String()
}

// TestProjectIDHostile: ProjectID decodes without validating, so it must
// refuse the same cyclic graphs Load does.
func TestProjectIDHostile(t *testing.T) {
	for _, data := range []string{
		"project: &p {<<: *p}\n",
		"project: &p {id: x, <<: *p}\n",
		"project: &p {id: [*p]}\n",
		aliasChain(5000, "{<<: *%s}"),
	} {
		if got := ProjectID([]byte(data)); got != "unknown" {
			t.Errorf("ProjectID(%q) = %q, want unknown", data, got)
		}
	}
	if got := ProjectID([]byte("project: {id: shop}\n")); got != "shop" {
		t.Errorf("ProjectID = %q, want shop", got)
	}
}

// TestExampleIsValid keeps the shipped example valid and warning-free.
func TestExampleIsValid(t *testing.T) {
	data, err := os.ReadFile("../examples/runic-gateway/bridle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, diags := Load("bridle.yaml", data)
	if len(diags) > 0 {
		t.Fatalf("example has diagnostics:\n%s", diags.Error())
	}
	if got := len(f.Doc.Guardrails); got < 10 {
		t.Errorf("example has %d guardrails, want at least 10", got)
	}
}

// FuzzLoad checks that no input makes Load panic, and that every
// diagnostic it returns carries a position.
func FuzzLoad(f *testing.F) {
	seeds := []string{
		"",
		"schema_version: 1\nproject: {id: x}\nagent_profiles: {codx: {}, claude: {harness: x}}\npermissions: {codex: {}, codx: {}}\n",
		"schema_version: 1\nproject: {id: x}\n",
		"a: &a [x]\nb: [*a, *a]\n",
		"schema_version: 1\nproject:\n  id: x\n  id: y\n",
		"<<: {a: 1}\n",
		"project: &p {<<: *p}\n",
		"schema_version: 1\nproject: &p {id: x, <<: *p}\n",
		"a: &a [*a]\n",
		"x: &x {y: &y {z: [*y, *x]}}\n",
		"a: &a {k: v}\nb: &b {<<: [*a, *a]}\nc: {<<: *b, d: *a}\n",
		"schema_version: 1\nproject: {id: x, overview: \"```\\n# h\\n<!--\"}\n",
		"schema_version: 1\nproject: {id: x, name: \"a\\u202eb\"}\n",
		"schema_version: 1\nproject: {id: \"a\x00b\"}\n",
	}
	if data, err := os.ReadFile("../examples/runic-gateway/bridle.yaml"); err == nil {
		seeds = append(seeds, string(data))
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hang is a failure too: crash the worker so the fuzzer keeps the input.
		watchdog := time.AfterFunc(10*time.Second, func() { panic("Load took more than 10s") })
		defer watchdog.Stop()
		_ = ProjectID(data)
		file, diags := Load("bridle.yaml", data)
		for _, d := range diags {
			if d.Line < 1 || d.Col < 1 || d.Message == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		if file == nil && !diags.HasErrors() {
			t.Fatal("no file and no error")
		}
		if !diags.HasErrors() {
			file.Doc.Normalize()
		}
	})
}

// BenchmarkYAMLFloor measures go-yaml v3 parsing a 1,000-guardrail document
// into its node tree and nothing else: the floor under Load and Compile.
func BenchmarkYAMLFloor(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("schema_version: 1\nproject: {id: big}\nguardrails:\n")
	for i := range 1000 {
		fmt.Fprintf(&sb, "  - id: rule-%04d\n    statement: Rule %d says to keep the module boundaries described in the overview.\n    severity: guidance\n    applies_to: [all_agents]\n    provenance: {source: agent, agent: claude, agent_session: s-%d, approved_by: ann, approved_at: 2026-01-02T03:04:05Z}\n", i, i, i)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTextCharacters: invisible, bidi and control characters are refused in
// every string, at the character's own line and column when it is written
// as itself, naming the code point.
func TestTextCharacters(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		want      string
		line, col int
	}{
		{"raw NUL", "schema_version: 1\nproject: {id: x, name: \"ab\x00\"}\n", "U+0000 NUL", 2, 27},
		{"raw escape char", "schema_version: 1\nproject:\n  id: x\n  name: a\x1bb\n", "U+001B ESCAPE", 4, 10},
		{"raw DEL", "schema_version: 1\nproject: {id: x}\n# \x7f\n", "U+007F DELETE", 3, 3},
		{"bidi override in a statement", "schema_version: 1\nproject: {id: x}\nguardrails:\n  - id: g\n    statement: Never \u202epush\n    severity: guidance\n", "U+202E RIGHT-TO-LEFT OVERRIDE at character 7", 5, 22},
		{"bidi isolate, escaped", "schema_version: 1\nproject: {id: x, name: \"a\\u2066b\"}\n", "U+2066 LEFT-TO-RIGHT ISOLATE", 2, 24},
		{"zero width space in a key", "schema_version: 1\nproject: {id: x}\nagent_profiles:\n  cla\u200bude: {}\n", "U+200B ZERO WIDTH SPACE", 4, 6},
		{"BOM mid-text", "schema_version: 1\nproject: {id: x, name: \"a\ufeffb\"}\n", "U+FEFF", 2, 26},
		{"line separator", "schema_version: 1\nproject: {id: x, name: \"a\\Lb\"}\n", "U+2028 LINE SEPARATOR", 2, 24},
		{"tag characters", "schema_version: 1\nproject:\n  id: x\n  overview: |\n    ok\n    hidden \U000E0041\U000E0042\n", "TAG CHARACTER", 6, 12},
		{"carriage return escape", "schema_version: 1\nproject: {id: x, overview: \"a\\r## b\"}\n", "U+000D CARRIAGE RETURN", 2, 28},
		{"escaped NUL", "schema_version: 1\nproject: {id: x, name: \"a\\0b\"}\n", "U+0000 NUL", 2, 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Load("bridle.yaml", []byte(tt.data))
			for _, d := range diags {
				if strings.Contains(d.Message, tt.want) {
					if d.Line != tt.line || d.Col != tt.col {
						t.Errorf("at %d:%d, want %d:%d: %s", d.Line, d.Col, tt.line, tt.col, d)
					}
					return
				}
			}
			t.Errorf("no diagnostic naming %q; got:\n%s", tt.want, diags.Error())
		})
	}
}

// TestProseRefused: each construct that could swallow or restructure the
// sections after the overview is refused, at its line in the file.
func TestProseRefused(t *testing.T) {
	for _, text := range []string{
		"Intro.\n\n```\nall that follows is code", "~~~\nx", "a\n   ```\nx", "````\nx\n```", "- ```\n  x", "> ```\n> x",
		"a\n## Injected", "- # Injected", "Injected\n===", "Injected\n---", "Injected\n-", "a\n\n***", "a\n\n- - -",
		"a\n<!-- hidden", "<h1>x</h1>", "<script>", "<div>", "<?php", "<![CDATA[", "<!DOCTYPE html>", "</div>",
		"[x]: https://evil.example", "a <textarea> b",
	} {
		doc := "schema_version: 1\nproject:\n  id: x\n  overview: |\n" + indentBy(text, "    ") + "agent_profiles: {claude: {}}\n"
		_, diags := Load("bridle.yaml", []byte(doc))
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "project.overview: line ") {
			t.Errorf("overview %q: no diagnostic; got:\n%s", text, diags.Error())
			continue
		}
		for _, d := range diags {
			if d.Line < 5 || d.Fix == "" {
				t.Errorf("overview %q: diagnostic not inside the text, or without a fix: %+v", text, d)
			}
		}
	}
}

func indentBy(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}

// TestDiagnosticsBounded: however many problems a document has and however
// long its values, the report stays small and quick — at most
// MaxDiagnostics and one saying how many more, each message bounded, each
// quoted value cut to MaxQuote characters.
func TestDiagnosticsBounded(t *testing.T) {
	big := strings.Repeat("x", MaxSize-200)
	var many, manyKeys, manySev strings.Builder
	many.WriteString("schema_version: 1\nproject: {id: x}\nguardrails:\n")
	for i := 0; many.Len() < MaxSize-100; i++ {
		fmt.Fprintf(&many, "  - {id: g, statement: \"# s\", severity: hard}\n")
	}
	manyKeys.WriteString("schema_version: 1\nproject: {id: x}\n")
	for i := 0; manyKeys.Len() < MaxSize-100; i++ {
		fmt.Fprintf(&manyKeys, "k%d: 1\n", i)
	}
	manySev.WriteString("schema_version: 1\nproject: {id: x}\nagent_profiles:\n")
	for i := 0; manySev.Len() < MaxSize-100; i++ {
		fmt.Fprintf(&manySev, "  a%d: {style: s%d}\n", i, i)
	}
	tests := []struct{ name, data string }{
		{"many problems", many.String()},
		{"many unknown keys", manyKeys.String()},
		{"many agents with a bad style", manySev.String()},
		{"huge enum value", "schema_version: 1\nproject: {id: x}\nguardrails:\n  - {id: g, statement: s, severity: " + big + "}\n"},
		{"huge unknown key", "schema_version: 1\nproject: {id: x}\n" + big + ": 1\n"},
		{"huge id", "schema_version: 1\nproject: {id: \"" + big + "\"}\n"},
		{"huge duplicate key", "schema_version: 1\nproject: {id: x}\n" + big[:MaxSize/2-100] + ": 1\n" + big[:MaxSize/2-100] + ": 2\n"},
		{"huge agent name", "schema_version: 1\nproject: {id: x}\nagent_profiles: {\"" + big + "\": {}}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, diags := Load("bridle.yaml", []byte(tt.data))
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("Load took %v", d)
			}
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			if len(diags) > MaxDiagnostics+1 {
				t.Errorf("%d diagnostics, want at most %d", len(diags), MaxDiagnostics+1)
			}
			if len(diags) == MaxDiagnostics+1 && !strings.Contains(diags[MaxDiagnostics].Message, "more problems not shown") {
				t.Errorf("the last diagnostic does not say how many were left out: %s", diags[MaxDiagnostics])
			}
			for _, d := range diags {
				if len(d.String()) > 2000 || len(d.Fix) > 2000 {
					t.Errorf("diagnostic of %d bytes: %.200s…", len(d.String()), d)
				}
				if strings.Contains(d.String(), strings.Repeat("x", MaxQuote+1)) {
					t.Errorf("diagnostic quotes more than %d characters of a value: %.200s…", MaxQuote, d)
				}
			}
		})
	}
}
