package enforce

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bridle-dev/bridle/schema"
)

const testDoc = `schema_version: 1
project: {id: demo}
guardrails:
  - id: no-force-push
    statement: Never force-push; push a new commit instead.
    severity: enforcement
    enforce:
      commands:
        forbid: ["git push --force", "git push -f", "rm -rf /"]
  - id: ask-before-push
    statement: Ask before pushing.
    severity: hard-instruction
    enforce:
      commands:
        ask: ["git push", "npm publish"]
  - id: no-secrets
    statement: Never read secrets.
    severity: enforcement
    enforce:
      paths:
        no_read: [".env", "./secrets/**", "**/*.pem"]
  - id: migrations-by-hand
    statement: Never edit an applied migration.
    severity: hard-instruction
    applies_to: [claude]
    enforce:
      paths:
        no_write: ["migrations/**"]
  - id: codex-no-sudo
    statement: No sudo.
    severity: enforcement
    applies_to: [codex]
    enforce:
      commands:
        forbid: ["sudo"]
agent_profiles:
  claude: {}
  codex: {}
`

func load(t testing.TB, src, agent string) *Rules {
	t.Helper()
	f, diags := schema.Load("bridle.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("test document is invalid:\n%s", diags.Error())
	}
	f.Doc.Normalize()
	r, err := New(&f.Doc, agent)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCheckCommand(t *testing.T) {
	r := load(t, testDoc, "claude")
	for _, tc := range []struct {
		cmd     string
		verdict Verdict
		id      string // deciding guardrail
		matched string
	}{
		{"git push --force origin main", Forbid, "no-force-push", "git push --force"},
		{"git push --force", Forbid, "no-force-push", "git push --force"},
		// options match by meaning: -f is --force, and the first entry
		// meaning it decides
		{"git push -f", Forbid, "no-force-push", "git push --force"},
		{"git push --force-with-lease origin", Forbid, "no-force-push", "git push --force"}, // a force push too
		{"git push origin main", Ask, "ask-before-push", "git push"},
		{"git push origin main --force", Forbid, "no-force-push", "git push --force"}, // order is free
		{"git status", Allow, "", ""},
		{"go test ./...", Allow, "", ""},
		{"", Allow, "", ""},
		{"# git push --force", Allow, "", ""},
		{"echo 'git push --force'", Allow, "", ""},
		{"git pushx --force", Allow, "", ""},
		// compound commands, each part on its own
		{"cd /tmp && git push --force origin main", Forbid, "no-force-push", "git push --force"},
		{"echo ok; git push -f", Forbid, "no-force-push", "git push --force"},
		{"git status | git push --force", Forbid, "no-force-push", "git push --force"},
		{"true || git push --force &", Forbid, "no-force-push", "git push --force"},
		{"(cd x; git push --force)", Forbid, "no-force-push", "git push --force"},
		{"{ git push --force; }", Forbid, "no-force-push", "git push --force"},
		{"if true; then git push --force; fi", Forbid, "no-force-push", "git push --force"},
		{"for i in 1; do git push -f; done", Forbid, "no-force-push", "git push --force"},
		{"echo $(git push --force)", Forbid, "no-force-push", "git push --force"},
		{"echo `git push --force`", Forbid, "no-force-push", "git push --force"},
		{"f() { git push --force; }", Forbid, "no-force-push", "git push --force"},
		{"git push origin && git push --force", Forbid, "no-force-push", "git push --force"}, // forbid beats ask
		// assignments, paths to programs, quoting
		{"GIT_X=1 git push --force", Forbid, "no-force-push", "git push --force"},
		{"A=1 B=2 /usr/bin/git push --force", Forbid, "no-force-push", "git push --force"},
		{"./git push --force", Forbid, "no-force-push", "git push --force"},
		{`'git' "push" --for\ce`, Forbid, "no-force-push", "git push --force"},
		{`git push "--force"`, Forbid, "no-force-push", "git push --force"},
		{"git push --\\\nforce", Forbid, "no-force-push", "git push --force"},
		// git's global options
		{"git -C . push --force origin main", Forbid, "no-force-push", "git push --force"},
		{"git -c core.x=1 --no-pager push -f", Forbid, "no-force-push", "git push --force"},
		{"git --git-dir=.git push --force", Forbid, "no-force-push", "git push --force"},
		{"git --work-tree . push --force", Forbid, "no-force-push", "git push --force"},
		// wrappers
		{"sudo git push --force", Forbid, "no-force-push", "git push --force"},
		{"sudo -u root -E git push --force", Forbid, "no-force-push", "git push --force"},
		{"sudo -uroot git push --force", Forbid, "no-force-push", "git push --force"},
		{"env FOO=1 git push --force", Forbid, "no-force-push", "git push --force"},
		{"env -i -u HOME FOO=1 git push --force", Forbid, "no-force-push", "git push --force"},
		{"env -S 'git push --force'", Forbid, "no-force-push", "git push --force"},
		{"command git push --force", Forbid, "no-force-push", "git push --force"},
		{"command -v git", Allow, "", ""},
		{"exec git push --force", Forbid, "no-force-push", "git push --force"},
		{"nohup nice -n 5 git push --force", Forbid, "no-force-push", "git push --force"},
		{"timeout -s KILL 30 git push --force", Forbid, "no-force-push", "git push --force"},
		{"time git push --force", Forbid, "no-force-push", "git push --force"},
		{"/usr/bin/time -p git push --force", Forbid, "no-force-push", "git push --force"},
		{"echo x | xargs git push --force", Forbid, "no-force-push", "git push --force"},
		{"xargs -n 1 -I {} git push --force", Forbid, "no-force-push", "git push --force"},
		{"sudo env A=1 command git -C . push --force", Forbid, "no-force-push", "git push --force"},
		// shells
		{"bash -c 'git push --force'", Forbid, "no-force-push", "git push --force"},
		{"sh -c \"cd x && git push -f\"", Forbid, "no-force-push", "git push --force"},
		{"bash -lc 'git push --force'", Forbid, "no-force-push", "git push --force"},
		{"bash -o pipefail -c 'git push --force'", Forbid, "no-force-push", "git push --force"},
		{"sh -c 'bash -c \"git push --force\"'", Forbid, "no-force-push", "git push --force"},
		{"eval git push --force", Forbid, "no-force-push", "git push --force"},
		{"eval 'git push' --force", Forbid, "no-force-push", "git push --force"},
		{"bash <<< 'git push --force'", Forbid, "no-force-push", "git push --force"},
		{"bash <<'EOF'\ngit push --force\nEOF\n", Forbid, "no-force-push", "git push --force"},
		{"busybox sh -c 'git push --force'", Forbid, "no-force-push", "git push --force"},
		{"bash deploy.sh", Allow, "", ""}, // a script file: not looked into
		{"bash -c 'echo hi'", Allow, "", ""},
		{"rm -rf /", Forbid, "no-force-push", "rm -rf /"},
		{"rm -rf /tmp/x", Allow, "", ""},
		{"npm publish --tag next", Ask, "ask-before-push", "npm publish"},
		// not knowable before it runs: ask
		{"git push $FLAG", Ask, "no-force-push", "git push --force"},
		{"git push --forc*", Ask, "no-force-push", "git push --force"},
		{"git push --{force,x}", Ask, "no-force-push", "git push --force"},
		{"$GIT push --force", Ask, "no-force-push", "git push --force"},
		{"\"$(which git)\" status", Ask, "ask-before-push", "git push"}, // one word: only two-word prefixes fit
		{"git $SUB", Ask, "no-force-push", "git push --force"},          // unquoted: any number of words
		{"git \"$SUB\"", Ask, "ask-before-push", "git push"},
		{"git \"$SUB\" x y", Ask, "no-force-push", "git push --force"},
		{"bash -c \"$CMD\"", Ask, "", ""},
		{"eval \"$CMD\"", Ask, "", ""},
		{"git push 'unterminated", Ask, "", ""},
		{"sh -c 'git push \"'", Ask, "", ""},
		{"git status $FLAG", Ask, "", ""}, // the words before it already differ, but $FLAG may name a protected file
		// the nesting bound
		{"sh -c \"sh -c 'sh -c \\\"sh -c \\\\\\\"sh -c ls\\\\\\\"\\\"'\"", Ask, "", ""},
		// path rules, best-effort
		{"cat .env", Forbid, "no-secrets", ".env"},
		{"cat ./.env", Forbid, "no-secrets", ".env"},
		{"head -1 secrets/key", Forbid, "no-secrets", "secrets/**"},
		{"cp keys/server.pem /tmp", Forbid, "no-secrets", "**/*.pem"},
		{"cat < .env", Forbid, "no-secrets", ".env"},
		{"grep --file=.env x", Forbid, "no-secrets", ".env"},
		{"cat .en?", Ask, "no-secrets", ".env"},
		{"cat secrets/*", Ask, "no-secrets", "**/*.pem"}, // may expand to secrets/x.pem
		{"cat secrets/k*", Ask, "no-secrets", "secrets/**"},
		{"cat secr*/key", Ask, "no-secrets", "secrets/**"},
		{"cat docs/*.md", Allow, "", ""},
		{"echo x > migrations/001.sql", Forbid, "migrations-by-hand", "migrations/**"},
		{"echo x >> migrations/001.sql", Forbid, "migrations-by-hand", "migrations/**"},
		{"sed -i s/a/b/ migrations/001.sql", Ask, "migrations-by-hand", "migrations/**"},
		{"cat migrations/001.sql", Ask, "migrations-by-hand", "migrations/**"},
		{"cat README.md", Allow, "", ""},
		{"cat /etc/hosts", Allow, "", ""},
		{"echo x > $OUT", Allow, "", ""},
	} {
		got := r.CheckCommand(tc.cmd)
		if got.Verdict != tc.verdict || got.Guardrail != tc.id || got.Matched != tc.matched {
			t.Errorf("CheckCommand(%q) = %s %q %q (%s), want %s %q %q", tc.cmd, got.Verdict, got.Guardrail, got.Matched, got.Reason,
				tc.verdict, tc.id, tc.matched)
		}
		if got.Verdict != Allow && got.Reason == "" {
			t.Errorf("CheckCommand(%q) = %s without a reason", tc.cmd, got.Verdict)
		}
		if got.Verdict != Allow && got.Guardrail != "" && got.Statement == "" {
			t.Errorf("CheckCommand(%q): guardrail %s without its statement", tc.cmd, got.Guardrail)
		}
	}
}

func TestCheckCommandPerAgent(t *testing.T) {
	claude, codex := load(t, testDoc, "claude"), load(t, testDoc, "codex")
	if d := claude.CheckCommand("sudo ls"); d.Verdict != Allow {
		t.Errorf("claude: sudo ls = %s, want allow (codex-no-sudo applies to codex only)", d.Verdict)
	}
	if d := codex.CheckCommand("sudo ls"); d.Verdict != Forbid || d.Guardrail != "codex-no-sudo" {
		t.Errorf("codex: sudo ls = %s %s, want forbid codex-no-sudo", d.Verdict, d.Guardrail)
	}
	if d := codex.CheckCommand("echo > migrations/x"); d.Verdict != Allow {
		t.Errorf("codex: migrations write = %s, want allow (migrations-by-hand applies to claude only)", d.Verdict)
	}
	empty := load(t, "schema_version: 1\nproject: {id: demo}\n", "claude")
	if d := empty.CheckCommand("git push 'unterminated"); d.Verdict != Allow {
		t.Errorf("no rules: unparseable command = %s, want allow", d.Verdict)
	}
}

func TestCheckPath(t *testing.T) {
	r := load(t, testDoc, "claude")
	for _, tc := range []struct {
		path    string
		op      Op
		verdict Verdict
		matched string
	}{
		{".env", Read, Forbid, ".env"},
		{"./.env", Read, Forbid, ".env"},
		{"a/../.env", Read, Forbid, ".env"},
		{".env", Write, Allow, ""},
		{".env.local", Read, Allow, ""},
		{"sub/.env", Read, Allow, ""}, // globs are anchored at the root
		{"secrets/key", Read, Forbid, "secrets/**"},
		{"secrets/a/b/c", Read, Forbid, "secrets/**"},
		{"secrets", Read, Forbid, "secrets/**"}, // doublestar: ** matches zero segments too
		{"x/y/tls.pem", Read, Forbid, "**/*.pem"},
		{"tls.pem", Read, Forbid, "**/*.pem"},
		{"migrations/001.sql", Write, Forbid, "migrations/**"},
		{"migrations/001.sql", Read, Allow, ""},
		{"README.md", Read, Allow, ""},
		{"/etc/passwd", Read, Ask, ""},
		{"~/.ssh/id", Read, Ask, ""},
		{"../other/.env", Read, Ask, ""},
		{"a/../../x", Write, Ask, ""},
		{"", Read, Ask, ""},
	} {
		got := r.CheckPath(tc.path, tc.op)
		if got.Verdict != tc.verdict || got.Matched != tc.matched {
			t.Errorf("CheckPath(%q, %s) = %s %q (%s), want %s %q", tc.path, tc.op, got.Verdict, got.Matched, got.Reason, tc.verdict, tc.matched)
		}
	}
}

func TestNewRefusesInvalid(t *testing.T) {
	for _, g := range []schema.Guardrail{
		{ID: "a", Statement: "s", Severity: schema.Guidance, Enforce: schema.Enforce{Commands: schema.CommandRules{Ask: []string{"git push"}}}},
		{ID: "b", Statement: "s", Severity: schema.Enforcement, Enforce: schema.Enforce{Commands: schema.CommandRules{Forbid: []string{"a | b"}}}},
		{ID: "c", Statement: "s", Severity: schema.Enforcement, Enforce: schema.Enforce{Commands: schema.CommandRules{Forbid: []string{"  "}}}},
		{ID: "d", Statement: "s", Severity: schema.Enforcement, Enforce: schema.Enforce{Paths: schema.PathRules{NoRead: []string{"../x"}}}},
		{ID: "e", Statement: "s", Severity: schema.Enforcement, Enforce: schema.Enforce{Paths: schema.PathRules{NoWrite: []string{"/etc/**"}}}},
	} {
		_, err := New(&schema.Document{Guardrails: []schema.Guardrail{g}}, "claude")
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("guardrail %s: err = %v, want ErrInvalid", g.ID, err)
		}
	}
}

func TestClaude(t *testing.T) {
	deny, ask := load(t, testDoc, "claude").Claude()
	wantDeny := []string{
		"Bash(git push --force)", "Bash(git push --force:*)", "Bash(git push -f)", "Bash(git push -f:*)",
		"Bash(rm -rf /)", "Bash(rm -rf /:*)",
		"Edit(./migrations/**)",
		"Read(./**/*.pem)", "Read(./.env)", "Read(./secrets/**)",
	}
	wantAsk := []string{"Bash(git push)", "Bash(git push:*)", "Bash(npm publish)", "Bash(npm publish:*)"}
	if diff := cmp.Diff(wantDeny, deny); diff != "" {
		t.Errorf("deny (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantAsk, ask); diff != "" {
		t.Errorf("ask (-want +got):\n%s", diff)
	}
	var hooks []string
	for _, h := range load(t, testDoc, "claude").NeedsHook() {
		hooks = append(hooks, h.Entry.String())
	}
	wantHooks := []string{
		`commands.ask "git push"`, `commands.forbid "git push --force"`, `commands.forbid "git push -f"`,
		`commands.forbid "rm -rf /"`, `paths.no_write "migrations/**"`,
		`paths.no_read "**/*.pem"`, `paths.no_read ".env"`, `paths.no_read "secrets/**"`,
	}
	if diff := cmp.Diff(wantHooks, hooks); diff != "" {
		t.Errorf("NeedsHook (-want +got):\n%s", diff)
	}
}

func TestClaudeDenyWinsOverAsk(t *testing.T) {
	r := load(t, `schema_version: 1
project: {id: demo}
guardrails:
  - {id: a, statement: s, severity: enforcement, enforce: {commands: {forbid: ["make deploy"]}}}
  - {id: b, statement: s, severity: enforcement, enforce: {commands: {ask: ["make deploy", "make"]}}}
`, "claude")
	deny, ask := r.Claude()
	if diff := cmp.Diff([]string{"Bash(make deploy)", "Bash(make deploy:*)"}, deny); diff != "" {
		t.Errorf("deny (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Bash(make)", "Bash(make:*)"}, ask); diff != "" {
		t.Errorf("ask (-want +got):\n%s", diff)
	}
}

func TestCodex(t *testing.T) {
	got, err := load(t, testDoc, "codex").Codex()
	if err != nil {
		t.Fatal(err)
	}
	want := `# Generated by Bridle from the rules document (bridle.yaml). DO NOT EDIT:
# change the guardrails' enforce blocks through a proposal and render again;
# edits here are overwritten. One broken .rules file makes Codex drop every rule.
# Agent: codex

prefix_rule(
    pattern = ["git", "push"],
    decision = "prompt",
    justification = "guardrail ask-before-push: Ask before pushing.",
    match = [["git", "push"]],
)

prefix_rule(
    pattern = ["npm", "publish"],
    decision = "prompt",
    justification = "guardrail ask-before-push: Ask before pushing.",
    match = [["npm", "publish"]],
)

prefix_rule(
    pattern = ["sudo"],
    decision = "forbidden",
    justification = "guardrail codex-no-sudo: No sudo.",
    match = [["sudo"]],
)

prefix_rule(
    pattern = ["git", "push", "--force"],
    decision = "forbidden",
    justification = "guardrail no-force-push: Never force-push; push a new commit instead.",
    match = [["git", "push", "--force"]],
)

prefix_rule(
    pattern = ["git", "push", "-f"],
    decision = "forbidden",
    justification = "guardrail no-force-push: Never force-push; push a new commit instead.",
    match = [["git", "push", "-f"]],
)

prefix_rule(
    pattern = ["rm", "-rf", "/"],
    decision = "forbidden",
    justification = "guardrail no-force-push: Never force-push; push a new commit instead.",
    match = [["rm", "-rf", "/"]],
)

# Not expressible in Codex rules, so stated in AGENTS.md only:
#   paths.no_read "**/*.pem" (guardrail no-secrets)
#   paths.no_read ".env" (guardrail no-secrets)
#   paths.no_read "secrets/**" (guardrail no-secrets)
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Codex() (-want +got):\n%s", diff)
	}
	again, _ := load(t, testDoc, "codex").Codex()
	if string(again) != string(got) {
		t.Error("Codex() output differs between runs")
	}
}

func TestStarlarkString(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:            `"plain"`,
		`say "hi"`:         `"say \"hi\""`,
		`back\slash`:       `"back\\slash"`,
		`end\`:             `"end\\"`,
		"two\nlines\r\x00": `"two lines  "`,
		"bidi\u202e\u2028": `"bidi  "`,
		"bad\xffutf8":      `"bad utf8"`,
		`"), x=("`:         `"\"), x=(\""`,
	} {
		if got := StarlarkString(in); got != want {
			t.Errorf("StarlarkString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestReport(t *testing.T) {
	rep := load(t, testDoc, "claude").Report()
	type row struct {
		entry, target string
		m             Mechanism
	}
	var got []row
	for _, tr := range rep {
		if tr.Why == "" {
			t.Errorf("%s %s: no reason", tr.Entry, tr.Target)
		}
		if tr.Guardrail == "ask-before-push" || tr.Guardrail == "migrations-by-hand" {
			got = append(got, row{tr.Entry, tr.Target, tr.Mechanism})
		}
	}
	want := []row{
		{`commands.ask "git push"`, TargetClaude, Hook},
		{`commands.ask "git push"`, TargetCodex, Native},
		{`commands.ask "git push"`, TargetOther, ProseOnly},
		{`commands.ask "npm publish"`, TargetClaude, Native},
		{`commands.ask "npm publish"`, TargetCodex, Native},
		{`commands.ask "npm publish"`, TargetOther, ProseOnly},
		{`paths.no_write "migrations/**"`, TargetClaude, Hook},
		{`paths.no_write "migrations/**"`, TargetCodex, ProseOnly},
		{`paths.no_write "migrations/**"`, TargetOther, ProseOnly},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(row{})); diff != "" {
		t.Errorf("Report (-want +got):\n%s", diff)
	}
}

// TestDecisionString keeps the sentence an agent sees readable.
func TestDecisionString(t *testing.T) {
	d := load(t, testDoc, "claude").CheckCommand("sudo git push --force origin")
	want := `forbidden by guardrail no-force-push: Never force-push; push a new commit instead. (git push --force origin matches "git push --force")`
	if got := d.String(); got != want {
		t.Errorf("String() = %s\nwant       %s", got, want)
	}
	if got := load(t, testDoc, "claude").CheckCommand("git push 'x").String(); !strings.HasPrefix(got, "needs approval: Bridle cannot parse") {
		t.Errorf("String() = %s", got)
	}
}
