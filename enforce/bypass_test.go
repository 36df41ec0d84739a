package enforce

import "testing"

// reviewDoc holds the rules of the security review that ran Claude Code
// against bridle hook claude.
const reviewDoc = `schema_version: 1
project: {id: demo}
guardrails:
  - id: no-force
    statement: Never force-push, rm -rf or curl.
    severity: enforcement
    enforce:
      commands:
        forbid: ["git push --force", "git push -f", "rm -rf", "curl"]
        ask: ["git push"]
      paths:
        no_read: [".env", "secrets/**"]
        no_write: ["migrations/**"]
`

// TestReviewBypasses: every command the review found allowed although it
// runs a forbidden prefix or reads a protected file. Each is now forbidden
// or asked about; none is allowed.
func TestReviewBypasses(t *testing.T) {
	r := load(t, reviewDoc, "claude")
	for _, tc := range []struct {
		name, cmd string
		verdict   Verdict
	}{
		// B1 inline aliases
		{"B1", "alias g=git\ng push --force origin main", Forbid},
		{"B1", "alias g='git push --force'\ng", Forbid},
		{"B1", "alias g='git push'; g --force", Forbid},
		{"B1", "alias g='cd x && git'; g push --force", Ask},
		// B2 trap
		{"B2", `trap "git push --force" EXIT`, Forbid},
		{"B2", `trap -- 'git push --force' DEBUG`, Forbid},
		{"B2", `trap 'curl x' ERR RETURN`, Forbid},
		{"B2", `trap "$CMD" EXIT`, Ask},
		// B3 variables bash runs as code
		{"B3", "PS4='$(git push --force)'; set -x; :", Forbid},
		{"B3", "export PS4='`git push -f`'; set -x; :", Forbid},
		{"B3", "PROMPT_COMMAND='git push --force' bash -i", Forbid},
		{"B3", "PS1='$(curl x)' bash -i", Forbid},
		{"B3", "BASH_ENV=x.sh bash -c :", Ask},
		{"B3", "env ENV='$(git push --force)' sh -c :", Forbid},
		{"B3", `PS4="$X"; set -x`, Ask},
		// B4 ${x@P}
		{"B4", "x='$(git push --force)'; echo ${x@P}", Ask},
		// B5 arithmetic on variables
		{"B5", "x='a[$(git push --force)]'; echo $((x))", Ask},
		{"B5", "x='a[$(git push --force)]'; [[ $x -eq 0 ]]", Ask},
		{"B5", "declare -i n; n='a[$(git push --force)]'", Ask},
		{"B5", "(( x ))", Ask},
		{"B5", "let x", Ask},
		{"B5", "echo ${a[x]}", Ask},
		{"B5", "echo ${s:x}", Ask},
		// B6 mapfile -C
		{"B6", "mapfile -C 'git push --force #' -c 1 <<< x", Forbid},
		{"B6", "readarray -t -C'curl x #' -c 1 a <<< x", Forbid},
		// B7 xargs reading its arguments
		{"B7", "echo push --force origin main | xargs git", Ask},
		{"B7", "echo 'git push --force' | xargs -0 sh -c", Ask},
		{"B7", "echo -rf / | xargs rm", Ask},
		{"B7", "echo x | xargs sudo", Ask},
		{"B7", "echo x | xargs -a f git -C .", Ask},
		// B8 shells reading their program from standard input
		{"B8", "echo 'git push --force' | bash", Ask},
		{"B8", "bash /dev/stdin <<< 'git push --force'", Forbid},
		{"B8", "sh -s < <(echo git push --force)", Ask},
		{"B8", "bash -s x y", Ask},
		{"B8", "bash - x", Ask},
		{"B8", "bash /dev/fd/3 3< <(echo curl x)", Ask},
		{"B8", "wget -qO- x | bash", Ask},
		// B9 git aliases from the command line or the environment
		{"B9", "git -c alias.p=push p --force", Ask},
		{"B9", "git -c 'alias.p=!git push --force' p", Ask},
		{"B9", "git -c ALIAS.p=push p --force", Ask},
		{"B9", "git -c include.path=x p", Ask},
		{"B9", "git --config-env alias.p=P p", Ask},
		{"B9", "git --config-env=alias.p=P p", Ask},
		{"B9", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p --force", Ask},
		{"B9", "export GIT_CONFIG_PARAMETERS=x; git p", Ask},
		{"B9", "env GIT_CONFIG_GLOBAL=x git p", Ask},
		{"B9", "git config alias.p 'push --force'", Ask},
		// B10 git global options
		{"B10", "git --attr-source HEAD push --force", Forbid},
		{"B10", "git --future-option x push --force", Ask},
		// B11 env --split-string=
		{"B11", "env --split-string='git push --force'", Forbid},
		{"B11", "env -i --split-string=curl\\ x", Forbid},
		// B12 source of standard input
		{"B12", ". <(echo git push --force)", Ask},
		{"B12", "source /dev/stdin <<< 'git push --force'", Ask},
		{"B12", "source /dev/fd/3", Ask},
		{"B12", `source "$F"`, Ask},
		// P1 braces
		{"P1", "cat {.env,x}", Forbid},
		{"P1", "cat .env{,}", Forbid},
		{"P1", "cat {secrets/a,b}", Forbid},
		{"P1", "cat {a,b}{1..100}", Ask},
		{"P1", "echo x > {migrations/1,b}", Forbid},
		// P2 variables naming files
		{"P2", "f=.env; cat $f", Forbid},
		{"P2", `f=secrets/k; cat "$f"`, Forbid},
		{"P2", "cat $F", Ask},
		{"P2", "cat < $F", Ask},
		{"P2", "for f in .env; do cat $f; done", Ask},
		{"P2", "f=x; for f in .env; do cat $f; done", Ask},
		{"P2", "f=x; read f; cat $f", Ask},
		// P3 recursive readers of a directory holding protected files
		{"P3", "grep -r SECRET .", Ask},
		{"P3", "grep -r . .", Ask},
		{"P3", "grep -rn x", Ask},
		{"P3", "grep --recursive x secrets/..", Ask},
		{"P3", "rg x", Ask},
		{"P3", "rg -uu x .", Ask},
		{"P3", "tar c .", Ask},
		{"P3", "zip -r /tmp/a.zip .", Ask},
		{"P3", "cp -r . /tmp/x", Ask},
		{"P3", "rsync -a ./ host:x", Ask},
		{"P3", "find . -exec cat {} +", Ask},
		{"P3", "find -type f -exec cat {} +", Ask},
		{"P3", "grep -r x secr*", Ask},
		{"P3", "git grep x", Ask},
		{"P3", "git archive HEAD", Ask},
		// P4 git reading a file from history
		{"P4", "git show :.env", Forbid},
		{"P4", "git show HEAD:.env", Forbid},
		{"P4", "git cat-file -p HEAD:.env", Forbid},
		{"P4", "git show :0:.env", Forbid},
		{"P4", "git -C . show main:secrets/k", Forbid},
		// self-protection
		{"self", "echo '{}' > .claude/settings.json", Forbid},
		{"self", "cat x >> .codex/rules/bridle.rules", Forbid},
		{"self", "sed -i s/deny/allow/ .claude/settings.local.json", Ask},
	} {
		got := r.CheckCommand(tc.cmd)
		if got.Verdict != tc.verdict {
			t.Errorf("%s: CheckCommand(%q) = %s (%s), want %s", tc.name, tc.cmd, got.Verdict, got.Reason, tc.verdict)
		}
		if got.Verdict != Allow && got.Reason == "" {
			t.Errorf("%s: CheckCommand(%q) = %s without a reason", tc.name, tc.cmd, got.Verdict)
		}
	}
}

// TestReviewStillAllowed: the fixes do not ask about the ordinary forms
// of the same constructs.
func TestReviewStillAllowed(t *testing.T) {
	r := load(t, reviewDoc, "claude")
	for _, cmd := range []string{
		"alias ll='ls -l'; ll",
		"trap 'rm -f /tmp/x' EXIT",
		"trap - EXIT",
		"PS4='+ '; set -x; ls",
		"echo $((1 + 2))",
		"[[ 3 -eq 3 ]]",
		"[ \"$x\" -eq 0 ]",
		"mapfile -t lines < list.txt",
		"find . -name '*.go' | xargs grep -n TODO",
		"ls | xargs -n1 echo",
		"bash deploy.sh",
		"bash -c 'go test ./...'",
		"bash <<< 'go vet ./...'",
		"git -c core.pager=cat log",
		"git --no-pager --attr-source HEAD log",
		"git --exec-path",
		"env --split-string='ls -l'",
		"source scripts/env.sh",
		"cat {README,CHANGES}.md",
		"f=README.md; cat $f",
		"echo $HOME",
		"grep -r TODO src",
		"grep TODO main.go",
		"cp -r docs /tmp/docs",
		"find . -name '*.go'",
		"git show HEAD:README.md",
		"go test ./...",
	} {
		if got := r.CheckCommand(cmd); got.Verdict != Allow {
			t.Errorf("CheckCommand(%q) = %s (%s), want allow", cmd, got.Verdict, got.Reason)
		}
	}
}

func TestSelfProtected(t *testing.T) {
	for _, r := range []*Rules{load(t, reviewDoc, "claude"), load(t, "schema_version: 1\nproject: {id: demo}\n", "claude"), {}} {
		for _, p := range []string{".claude/settings.json", ".claude/settings.local.json", ".claude/bridle.json", ".codex/rules/bridle.rules", "./.codex/rules/x/y"} {
			d := r.CheckPath(p, Write)
			if d.Verdict != Forbid || d.Guardrail != SelfProtectedGuardrail || d.Statement != SelfProtectedStatement {
				t.Errorf("CheckPath(%q, write) = %+v, want forbid by %s", p, d, SelfProtectedGuardrail)
			}
			if d := r.CheckPath(p, Read); d.Verdict != Allow {
				t.Errorf("CheckPath(%q, read) = %s, want allow", p, d.Verdict)
			}
		}
		if d := r.CheckCommand("echo x > .claude/settings.json"); d.Verdict != Forbid {
			t.Errorf("echo x > .claude/settings.json = %s, want forbid", d.Verdict)
		}
	}
	got := SelfProtected()
	want := []string{".claude/settings.json", ".claude/settings.local.json", ".claude/bridle.json", ".codex/rules/**"}
	if len(got) != len(want) {
		t.Fatalf("SelfProtected() = %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("SelfProtected()[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	got[0] = "x"
	if SelfProtected()[0] != want[0] {
		t.Error("SelfProtected returns its own slice")
	}
	for _, e := range load(t, reviewDoc, "claude").Entries() {
		if e.Guardrail == SelfProtectedGuardrail {
			t.Errorf("Entries() holds %s; the renderers add the self-protection themselves", e)
		}
	}
}

// TestVariablesWithoutPathRules: $VAR as an argument is asked about only
// when a no_read rule could protect the file it names.
func TestVariablesWithoutPathRules(t *testing.T) {
	r := load(t, `schema_version: 1
project: {id: demo}
guardrails:
  - {id: a, statement: s, severity: enforcement, enforce: {commands: {forbid: ["git push --force"]}}}
`, "claude")
	for _, cmd := range []string{"git status $FLAG", "cat $F", "grep -r x ."} {
		if d := r.CheckCommand(cmd); d.Verdict != Allow {
			t.Errorf("CheckCommand(%q) = %s (%s), want allow", cmd, d.Verdict, d.Reason)
		}
	}
}
