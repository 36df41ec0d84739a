package scaffold

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/rhysd/actionlint"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// TestWorkflowsLint runs actionlint over the rules repository's workflow and
// Bridle's own.
func TestWorkflowsLint(t *testing.T) {
	workflows := map[string][]byte{
		"rules repository": Layout{ID: "x", Rules: "."}.workflow(),
		"rules folder":     Layout{ID: "x", Rules: "rules", BridleURL: "https://gitea.example.com/bridle"}.workflow(),
	}
	own, _ := filepath.Glob("../.gitea/workflows/*.yaml")
	if len(own) == 0 {
		t.Fatal("Bridle has no .gitea/workflows")
	}
	for _, p := range own {
		b, _ := os.ReadFile(p)
		workflows[p] = b
	}
	for name, content := range workflows {
		var out bytes.Buffer
		l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		errs, err := l.Lint(name, content, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range errs {
			t.Errorf("%s:%d:%d: %s [%s]", name, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}

// TestScaffoldIsCurrent: a new rules repository validates, and its committed
// renders pass render --check.
func TestScaffoldIsCurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Acme Rules!")
	res, err := Init(dir, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit == "" || len(res.Files) < 5 {
		t.Fatalf("init: %+v", res)
	}
	snap, diags, err := compiler.Compile(compiler.Options{Rules: dir, Ref: "main", BridleVersion: "test", NoHistory: true})
	if err != nil || snap == nil {
		t.Fatalf("compile at main: %v %s", err, diags.Error())
	}
	if snap.Document.Project.ID != "acme-rules" {
		t.Errorf("project id = %q", snap.Document.Project.ID)
	}
	findings, err := renderers.Check(filepath.Join(dir, RenderDir), snap.Renders)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if f.State != renderers.Current {
			t.Errorf("%s: %s\n%s", f.Path, f.State, f.Diff)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, RenderDir, "CLAUDE.md"))
	if !strings.Contains(string(b), "source: the rules in the commit that holds this file") {
		t.Errorf("committed render header:\n%.400s", b)
	}
	if _, err := Init(dir, testOptions()); err == nil {
		t.Error("second init did not refuse")
	}
}

func testOptions() Options {
	return Options{Version: "test", Author: &object.Signature{Name: "Mira", Email: "mira@example.com", When: time.Unix(1e9, 0)}}
}

// TestCommittedIsWhatAProposalCommits: the committed renders (a header
// rewrite of the snapshot's, renderers.Committed) are byte for byte what
// rendering the document afresh with a committed header gives.
func TestCommittedIsWhatAProposalCommits(t *testing.T) {
	for _, rules := range [][]byte{Rules("acme"), mustRead(t, "../examples/runic-gateway/bridle.yaml")} {
		snap, diags := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml", Data: rules}, "v1.2.3")
		if snap == nil {
			t.Fatal(diags.Error())
		}
		got := Renders(snap, "v1.2.3")
		agents := snap.Document.Agents()
		if len(got) != len(agents) {
			t.Fatalf("%d files for %d agents", len(got), len(agents))
		}
		for i, a := range agents {
			want, err := renderers.Render(&snap.Document, a, renderers.Meta{BridleVersion: "v1.2.3", ContentHash: snap.ContentHash, SelfCommit: true})
			if err != nil {
				t.Fatal(err)
			}
			if got[i].Path != want.Path || got[i].Content != want.Content {
				t.Errorf("%s differs from a fresh committed render", want.Path)
			}
		}
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestChosenAgents: a project that chooses its agents gets a profile and
// permissions for each, and only those; the rules validate as written; an
// unknown agent is refused with a suggestion.
func TestChosenAgents(t *testing.T) {
	src := Layout{ID: "p", Rules: ".", Agents: []string{"claude", "gemini", "cursor", "deepseek"}}.rulesFile()
	f, diags := schema.Load("bridle.yaml", src)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), src)
	}
	if got := f.Doc.Agents(); !slices.Equal(got, []string{"claude", "cursor", "deepseek", "gemini"}) {
		t.Errorf("profiles %v", got)
	}
	if !f.Doc.Permissions["cursor"].Rules.Propose || f.Doc.Permissions["deepseek"].Rules.Propose {
		t.Errorf("permissions %+v", f.Doc.Permissions)
	}
	for _, bad := range [][]string{{"gemni"}, {"claude", "claude"}} {
		if err := CheckAgents(bad); err == nil {
			t.Errorf("CheckAgents(%v) took it", bad)
		}
	}
	if err := CheckAgents([]string{"gemni"}); !errors.Is(err, ErrUnknownAgent) || !strings.Contains(err.Error(), `did you mean "gemini"`) {
		t.Errorf("CheckAgents(gemni) = %v", err)
	}
}
