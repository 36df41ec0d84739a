package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
)

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name)
	}
	return out
}

// selfGrant is the example with claude given everything it is denied.
func selfGrant(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "    rules: {propose: true, approve: false}\n    secrets: {read: false}\n    memory: {read: true, write: true, forget: false}\n",
		"    rules: {propose: true, approve: true}\n    secrets: {read: true}\n    memory: {read: true, write: true, forget: true}\n", 1)
	if s == string(src) {
		t.Fatal("the example's claude permissions moved; update selfGrant")
	}
	return []byte(s)
}

// TestAgentCannotGrantItself: an agent that edits the rules repository's
// bridle.yaml — uncommitted, or committed straight to main — gains nothing:
// the sidecar serves committed main, and a change no approved merge
// produced is served as unapproved and grants no permission.
func TestAgentCannotGrantItself(t *testing.T) {
	for _, mode := range []string{"edit the work tree", "commit to main", "edit the work tree (authoring mode)"} {
		t.Run(mode, func(t *testing.T) {
			dir := exampleRepo(t, t.TempDir())
			now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			clock := func() time.Time { return now }
			opts := Options{Rules: dir, Now: clock, Refresh: time.Second,
				Proposals: func() (proposals.Backend, error) { return proposals.OpenLocal(dir, "test") },
				Memory: func() (memory.Store, memory.Embedder, error) {
					s, err := memory.OpenSQLite(filepath.Join(t.TempDir(), "m.db"))
					return s, memory.Hashing{}, err
				}}
			if strings.Contains(mode, "authoring") {
				opts.Worktree = true
			}
			f := newFixture(t, opts)
			cs := f.connect(t, "claude-code", "", nil)
			before := toolNames(t, cs)
			if slices.Contains(before, "approve_proposal") || slices.Contains(before, "forget") {
				t.Fatalf("claude may approve or forget before any change: %v", before)
			}

			if strings.Contains(mode, "commit") {
				commitRules(t, dir, selfGrant(t))
			} else if err := os.WriteFile(filepath.Join(dir, "bridle.yaml"), selfGrant(t), 0o644); err != nil {
				t.Fatal(err)
			}
			now = now.Add(5 * time.Second)

			after := toolNames(t, cs)
			if slices.Contains(after, "approve_proposal") || slices.Contains(after, "forget") {
				t.Errorf("after the agent's own edit, claude sees %v", after)
			}
			got, isErr := callText(t, cs, "approve_proposal", map[string]any{"number": 1})
			if !isErr || !strings.Contains(got, "rules.approve") {
				t.Errorf("approve_proposal after a self-grant: %v %s", isErr, got)
			}
			rules, _ := callText(t, cs, "get_rules", nil)
			if mode == "edit the work tree" {
				if strings.Contains(rules, "UNAPPROVED") {
					t.Errorf("main is unchanged, yet the rules say they hold unapproved changes")
				}
				return
			}
			if !strings.Contains(rules, "UNAPPROVED CHANGES") || !strings.Contains(rules, "`permissions:claude` changed") {
				t.Errorf("get_rules does not flag the unapproved change:\n%.1500s", rules)
			}
			if strings.Contains(mode, "authoring") && !strings.Contains(rules, "Authoring mode") {
				t.Errorf("authoring mode is not labelled:\n%.600s", rules)
			}
			list, _ := callText(t, cs, "list_guardrails", nil)
			if !strings.Contains(list, `"subject":"permissions:claude"`) {
				t.Errorf("list_guardrails does not list the unapproved change: %.600s", list)
			}
		})
	}
}

// TestRulesOutsideGit: the sidecar does not serve a bridle.yaml that was
// never committed, and says how to fix it; authoring mode serves it with
// no permissions at all.
func TestRulesOutsideGit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bridle.yaml"), selfGrant(t), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := newFixture(t, Options{Rules: dir}).connect(t, "claude-code", "", nil)
	got, isErr := callText(t, cs, "get_rules", nil)
	if !isErr || !strings.Contains(got, "committed rules only") || !strings.Contains(got, "--worktree") {
		t.Errorf("uncommitted rules: %v %.400s", isErr, got)
	}

	cs = newFixture(t, Options{Rules: dir, Worktree: true}).connect(t, "claude-code", "", nil)
	got, isErr = callText(t, cs, "get_rules", nil)
	if isErr || !strings.Contains(got, "Authoring mode") || !strings.Contains(got, "never committed") {
		t.Errorf("authoring mode outside git: %v %.800s", isErr, got)
	}
	if names := toolNames(t, cs); slices.Contains(names, "propose_guardrail") || slices.Contains(names, "remember") {
		t.Errorf("authoring mode outside git grants tools: %v", names)
	}
}

// TestNoSelfApprovalFromTheAgentsSide: an agent whose approved rules grant
// rules.approve still cannot approve its own proposal, from this session
// or from another one; the refusal is audited.
func TestNoSelfApprovalFromTheAgentsSide(t *testing.T) {
	dir := commitRules(t, t.TempDir(), selfGrant(t)) // the owner's baseline grants approve
	open := func() (proposals.Backend, error) { return proposals.OpenLocal(dir, "test") }
	f := newFixture(t, Options{Rules: dir, Proposals: open})
	cs := f.connect(t, "claude-code", "", nil)
	if _, isErr := callText(t, cs, "propose_guardrail", map[string]any{"id": "log-request-ids",
		"statement": "Log the request id with every error.", "severity": "guidance", "why": "debugging"}); isErr {
		t.Fatal("propose failed")
	}
	got, isErr := callText(t, cs, "approve_proposal", map[string]any{"number": 1})
	if !isErr || !strings.Contains(got, "cannot be approved by whoever proposed it") {
		t.Errorf("self-approval in the same session: %v %s", isErr, got)
	}
	other := newFixture(t, Options{Rules: dir, Proposals: open, StateDir: f.state}).connect(t, "claude-code", "", nil)
	if got, isErr := callText(t, other, "approve_proposal", map[string]any{"number": 1}); !isErr || !strings.Contains(got, "agent claude proposed it") {
		t.Errorf("self-approval from another session: %v %s", isErr, got)
	}
	l, _ := proposals.OpenLocal(dir, "test")
	if p, _ := l.Get(context.Background(), 1); p.State != proposals.Open {
		t.Errorf("proposal is %s after refused approvals", p.State)
	}
	refusals, _, _ := audit.Open(f.state, "runic-gateway", nil).Read(audit.Filter{Kind: audit.KindRefusal})
	if len(refusals) < 2 {
		t.Errorf("refusals audited: %d, want 2", len(refusals))
	}
}

// TestMainMovedBackwards: resetting main to an older commit (to undo a
// change that took a permission away), or to an unrelated history with its
// own "baseline", is refused: the sidecar keeps serving what it served.
func TestMainMovedBackwards(t *testing.T) {
	dir := exampleRepo(t, t.TempDir())
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := repo.Head()
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	commitRules(t, dir, []byte(strings.Replace(string(src), "    memory: {read: true, write: true, forget: false}\n", "    memory: {read: true}\n", 1)))
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	f := newFixture(t, Options{Rules: dir, Now: func() time.Time { return now }, Refresh: time.Second,
		Memory: func() (memory.Store, memory.Embedder, error) {
			s, err := memory.OpenSQLite(filepath.Join(t.TempDir(), "m.db"))
			return s, memory.Hashing{}, err
		}})
	cs := f.connect(t, "claude-code", "", nil)
	if slices.Contains(toolNames(t, cs), "remember") {
		t.Fatal("remember is offered after memory.write was taken away")
	}
	if err := repo.Storer.SetReference(plumbing.NewHashReference("refs/heads/main", before.Hash())); err != nil {
		t.Fatal(err)
	}
	now = now.Add(5 * time.Second)
	if slices.Contains(toolNames(t, cs), "remember") {
		t.Error("resetting main gave memory.write back")
	}
	got, _ := callText(t, cs, "get_rules", nil)
	if !strings.Contains(got, "Stale rules") || !strings.Contains(got, "does not descend") {
		t.Errorf("get_rules after main moved back:\n%.600s", got)
	}
}

// TestCheckTools: any agent can ask whether a command or a file access is
// allowed, and is told which guardrail decides.
func TestCheckTools(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rules := strings.Replace(string(src), "guardrails:\n", "guardrails:\n  - id: no-force-push\n    statement: Never force-push to shared branches.\n    severity: enforcement\n"+
		"    enforce:\n      commands: {forbid: [\"git push --force\"], ask: [\"git push\"]}\n      paths: {no_read: [\".env\"]}\n", 1)
	dir := commitRules(t, t.TempDir(), []byte(rules))
	cs := newFixture(t, Options{Rules: dir}).connect(t, "deepseek-cli", "", nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"check_command", map[string]any{"command": "cd x && git push --force origin"}, `"verdict":"forbid"`},
		{"check_command", map[string]any{"command": "git push origin"}, `"verdict":"ask"`},
		{"check_command", map[string]any{"command": "git status"}, `"verdict":"allow"`},
		{"check_path", map[string]any{"path": ".env", "op": "read"}, `"guardrail":"no-force-push"`},
		{"check_path", map[string]any{"path": "main.go", "op": "write"}, `"verdict":"allow"`},
	} {
		got, isErr := callText(t, cs, c.tool, c.args)
		if isErr || !strings.Contains(got, c.want) {
			t.Errorf("%s %v: %v %s, want %s", c.tool, c.args, isErr, got, c.want)
		}
	}
	if got, isErr := callText(t, cs, "check_path", map[string]any{"path": "x", "op": "delete"}); !isErr {
		t.Errorf("check_path with a bad op: %s", got)
	}
}

// TestCheckToolsHostileInput: oversized and hostile arguments are refused
// or answered, never crash, and a secret in the command is masked.
func TestCheckToolsHostileInput(t *testing.T) {
	const canary = "gtea_check_canary_8c2d"
	src, _ := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	dir := commitRules(t, t.TempDir(), src)
	cs := newFixture(t, Options{Rules: dir, Redactor: redact.New(canary)}).connect(t, "kimi-cli", "", nil)
	if got, isErr := callText(t, cs, "check_command", map[string]any{"command": strings.Repeat("a ", 15000)}); !isErr {
		t.Errorf("a 30 kB command was accepted: %.200s", got)
	}
	if got, isErr := callText(t, cs, "check_path", map[string]any{"path": strings.Repeat("x/", 3000), "op": "read"}); !isErr {
		t.Errorf("a 6 kB path was accepted: %.200s", got)
	}
	for _, c := range []string{"kubectl get secret $(printf '\\x00') && vault read " + canary, "'unclosed", "((((", "\x00\x01"} {
		got, _ := callText(t, cs, "check_command", map[string]any{"command": c})
		if strings.Contains(got, canary) {
			t.Errorf("check_command echoed the secret: %s", got)
		}
	}
}
