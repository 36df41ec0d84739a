package compiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

const v1 = `schema_version: 1
project: {id: demo}
guardrails:
  - {id: first, statement: The first rule., severity: guidance}
agent_profiles: {claude: {}, kimi: {}}
`

const v2 = `schema_version: 1
project: {id: demo}
guardrails:
  - {id: first, statement: The first rule., severity: guidance}
  - {id: second, statement: The second rule., severity: enforcement}
agent_profiles: {claude: {}, kimi: {}}
`

// gitRepo makes a repository whose main branch holds rules/bridle.yaml = v1,
// then leaves v2 in the work tree, uncommitted.
func gitRepo(t *testing.T) (dir, commit string) {
	t.Helper()
	dir = t.TempDir()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: "refs/heads/main"}})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "rules", "bridle.yaml"), v1)
	wt, _ := repo.Worktree()
	if _, err := wt.Add("rules/bridle.yaml"); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit("rules v1", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1e9, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "rules", "bridle.yaml"), v2)
	return dir, h.String()
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGitRefReadsObjectsNotWorkTree(t *testing.T) {
	dir, commit := gitRepo(t)
	for _, rules := range []string{filepath.Join(dir, "rules"), filepath.Join(dir, "rules", "bridle.yaml")} {
		snap, diags, err := Compile(Options{Rules: rules, Ref: "main", BridleVersion: "test"})
		if err != nil || snap == nil {
			t.Fatalf("%s: compile: %v %s", rules, err, diags.Error())
		}
		if n := len(snap.Document.Guardrails); n != 1 {
			t.Errorf("%s: read %d guardrails from main, want 1 (the committed version)", rules, n)
		}
		want := Source{Kind: "git", Path: "rules/bridle.yaml", Repo: absPath(dir), Ref: "main", Commit: commit}
		if snap.Source != want {
			t.Errorf("source = %+v, want %+v", snap.Source, want)
		}
		r, _ := snap.Render("claude")
		if !strings.Contains(r.Content, "source: commit "+commit[:12]+" (main)") {
			t.Errorf("header does not name the commit:\n%s", r.Content[:400])
		}
	}
}

func TestWorkTreeSourceRecordsDirtyCommit(t *testing.T) {
	dir, commit := gitRepo(t)
	snap, diags, err := Compile(Options{Rules: filepath.Join(dir, "rules"), BridleVersion: "test"})
	if err != nil || snap == nil {
		t.Fatalf("compile: %v %s", err, diags.Error())
	}
	if n := len(snap.Document.Guardrails); n != 2 {
		t.Errorf("read %d guardrails from the work tree, want 2", n)
	}
	if snap.Source.Commit != commit || !snap.Source.Dirty {
		t.Errorf("source = %+v, want commit %s and dirty", snap.Source, commit)
	}
	write(t, filepath.Join(dir, "rules", "bridle.yaml"), v1)
	snap, _, _ = Compile(Options{Rules: filepath.Join(dir, "rules")})
	if snap.Source.Dirty {
		t.Error("work tree equal to HEAD reported dirty")
	}
}

func TestSourceErrors(t *testing.T) {
	dir, _ := gitRepo(t)
	empty := t.TempDir()
	tests := []struct {
		name    string
		opts    Options
		wantErr error
		diag    string
	}{
		{"missing path", Options{Rules: filepath.Join(dir, "nope")}, ErrNotFound, ""},
		{"dir without rules", Options{Rules: empty}, nil, "no bridle.yaml in"},
		{"unknown ref", Options{Rules: filepath.Join(dir, "rules"), Ref: "no-such-branch"}, ErrBadRef, ""},
		{"not a repo", Options{Rules: empty, Ref: "main"}, ErrNotRepo, ""},
		{"file not on ref", Options{Rules: dir, Ref: "main"}, nil, "no bridle.yaml at main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, diags, err := Compile(tt.opts)
			if snap != nil {
				t.Fatal("got a snapshot")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.diag != "" && !strings.Contains(diags.Error(), tt.diag) {
				t.Errorf("diagnostics = %q, want %q", diags.Error(), tt.diag)
			}
		})
	}
}

// TestHashIgnoresFormatting: comments, key order and flow style do not
// change the content hash; a changed statement does.
func TestHashIgnoresFormatting(t *testing.T) {
	a := `schema_version: 1
project: {id: demo}
guardrails: [{id: g, statement: S., severity: guidance}]
agent_profiles: {claude: {}}
`
	b := `# a comment
agent_profiles:
  claude: {}
guardrails:
  - severity: guidance   # reordered keys
    statement: S.
    id: g
project:
  id: demo
schema_version: 1
`
	ha := mustCompile(t, a).ContentHash
	if hb := mustCompile(t, b).ContentHash; ha != hb {
		t.Errorf("formatting changed the hash: %s vs %s", ha, hb)
	}
	if hc := mustCompile(t, strings.Replace(a, "S.", "T.", 1)).ContentHash; hc == ha {
		t.Error("a changed statement kept the hash")
	}
}

func mustCompile(t testing.TB, src string) *Snapshot {
	t.Helper()
	snap, diags := CompileBytes(Input{Name: "bridle.yaml", Data: []byte(src)}, "test")
	if snap == nil {
		t.Fatalf("compile: %s", diags.Error())
	}
	return snap
}

// generated returns a valid document with n guardrails across all tiers,
// several agents and applies_to filters.
func generated(n int) string {
	var b strings.Builder
	b.WriteString("schema_version: 1\nproject:\n  id: big\n  overview: A generated project.\n  conventions:\n")
	for i := range 50 {
		fmt.Fprintf(&b, "    - {id: conv-%d, statement: Convention number %d holds.}\n", i, i)
	}
	b.WriteString("guardrails:\n")
	tiers := []string{"guidance", "hard-instruction", "enforcement"}
	applies := []string{"[all_agents]", "[claude]", "[codex, kimi]", "[deepseek]"}
	for i := range n {
		fmt.Fprintf(&b, "  - id: rule-%04d\n    statement: Rule %d says to keep the module boundaries described in the overview.\n    severity: %s\n    applies_to: %s\n    provenance: {source: agent, agent: claude, agent_session: s-%d, approved_by: ann, approved_at: 2026-01-02T03:04:05Z}\n",
			i, i, tiers[i%3], applies[i%4], i)
	}
	b.WriteString("agent_profiles: {claude: {}, codex: {}, kimi: {}, deepseek: {}}\n")
	b.WriteString("permissions: {claude: {rules: {propose: true}}}\n")
	return b.String()
}

// BenchmarkCompile1000 compiles and renders (for all four agents) a document
// with 1,000 guardrails: parse, schema validation, semantic checks,
// normalisation, hashing and rendering. Target: ≤ 20 ms an op.
func BenchmarkCompile1000(b *testing.B) {
	src := []byte(generated(1000))
	in := Input{Name: "bridle.yaml", Data: src}
	if snap, diags := CompileBytes(in, "bench"); snap == nil {
		b.Fatal(diags.Error())
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		CompileBytes(in, "bench")
	}
}

// BenchmarkCompileExample is the shipped example, in process.
func BenchmarkCompileExample(b *testing.B) {
	src, err := os.ReadFile("../examples/runic-gateway/bridle.yaml")
	if err != nil {
		b.Fatal(err)
	}
	in := Input{Name: "bridle.yaml", Data: src}
	// As BenchmarkCompile1000: once before the loop, so that the loop
	// measures compiling, not what the first compile in a process does once
	// (the JSON Schema metaschemas, third_party/README.md).
	if snap, diags := CompileBytes(in, "bench"); snap == nil {
		b.Fatal(diags.Error())
	}
	b.ReportAllocs()
	for b.Loop() {
		CompileBytes(in, "bench")
	}
}

// TestCompileCache: unchanged input is served from the cache, byte for byte
// the same snapshot; any change to the rules misses.
func TestCompileCache(t *testing.T) {
	dir, _ := gitRepo(t)
	c := Cache{Dir: t.TempDir()}
	opts := Options{Rules: filepath.Join(dir, "rules"), BridleVersion: "test"}
	a, _, hit, err := CompileCached(opts, c)
	if err != nil || a == nil || hit {
		t.Fatalf("first: %v hit=%v", err, hit)
	}
	b, _, hit, _ := CompileCached(opts, c)
	if !hit {
		t.Fatal("second compile of the same input missed the cache")
	}
	ja, _ := a.JSON()
	jb, _ := b.JSON()
	if string(ja) != string(jb) {
		t.Error("cached snapshot differs")
	}
	write(t, filepath.Join(dir, "rules", "bridle.yaml"), strings.Replace(v2, "The second rule.", "The 2nd rule.", 1))
	if _, _, hit, _ := CompileCached(opts, c); hit {
		t.Error("changed rules hit the cache")
	}
	write(t, filepath.Join(dir, "rules", "bridle.yaml"), "schema_version: 1\nproject: {id: BAD}\n")
	if s, diags, _, _ := CompileCached(opts, c); s != nil || !diags.HasErrors() {
		t.Error("invalid rules compiled")
	}
	if s, _, hit, _ := CompileCached(opts, c); s != nil || hit {
		t.Error("invalid rules were cached")
	}
}
