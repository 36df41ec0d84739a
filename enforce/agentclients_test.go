package enforce

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/agentclients"
	"github.com/bridle-dev/bridle/schema"
)

// The real-client tests run the agents' own CLIs, at the versions pinned
// in tests/agentclients, on what this package generates. They skip, saying
// how to install them, when the CLIs are missing.

type codexCheck struct {
	MatchedRules []struct {
		PrefixRuleMatch struct {
			MatchedPrefix []string `json:"matchedPrefix"`
			Decision      string   `json:"decision"`
			Justification string   `json:"justification"`
		} `json:"prefixRuleMatch"`
	} `json:"matchedRules"`
	Decision string `json:"decision"`
}

// hostileDoc is built in Go, not loaded: its statement holds what
// validation refuses, to prove the quoting holds even then.
func hostileRules(t *testing.T) *Rules {
	t.Helper()
	r, err := New(&schema.Document{Guardrails: []schema.Guardrail{{
		ID: "hostile", Severity: schema.Enforcement,
		Statement: "say \"hi\" \\ then\n\"), decision=\"allow\", x=(\" \u2028 \\\"",
		Enforce:   schema.Enforce{Commands: schema.CommandRules{Forbid: []string{"make deploy"}}},
	}}}, "codex")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRealCodexExecpolicy(t *testing.T) {
	bin := agentclients.Bin(t, "BRIDLE_CODEX_BIN", "codex")
	dir := t.TempDir()
	env := []string{"RUST_BACKTRACE=0", "CODEX_HOME=" + filepath.Join(dir, "codexhome")}
	if err := os.MkdirAll(filepath.Join(dir, "codexhome"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, r *Rules) string {
		data, err := r.Codex()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	check := func(rules string, argv ...string) codexCheck {
		t.Helper()
		out, errOut, err := agentclients.Run(t, dir, env, "", bin, append([]string{"execpolicy", "check", "--rules", rules}, argv...)...)
		if err != nil {
			t.Fatalf("codex execpolicy check %v: %v (the file does not load?)\n%s", argv, err, errOut)
		}
		var c codexCheck
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("codex execpolicy check %v: %v in %q", argv, err, out)
		}
		return c
	}

	rules := write("bridle.rules", load(t, testDoc, "codex"))
	for _, tc := range []struct {
		argv      []string
		decision  string // "" when no rule matches
		guardrail string
	}{
		{[]string{"git", "push", "--force", "origin", "main"}, "forbidden", "no-force-push"},
		{[]string{"git", "push", "-f"}, "forbidden", "no-force-push"},
		{[]string{"rm", "-rf", "/"}, "forbidden", "no-force-push"},
		{[]string{"sudo", "ls"}, "forbidden", "codex-no-sudo"},
		{[]string{"git", "push", "origin", "main"}, "prompt", "ask-before-push"},
		{[]string{"git", "push", "--force-with-lease", "origin"}, "prompt", "ask-before-push"},
		{[]string{"npm", "publish"}, "prompt", "ask-before-push"},
		{[]string{"git", "status"}, "", ""},
		{[]string{"ls", "-la"}, "", ""},
		{[]string{"cat", ".env"}, "", ""}, // paths are not in the Codex file
		{[]string{"git push --force"}, "", ""},
	} {
		c := check(rules, tc.argv...)
		if tc.decision == "" {
			if len(c.MatchedRules) != 0 || c.Decision != "" {
				t.Errorf("%q: matched %+v, want matchedRules: []", tc.argv, c)
			}
			continue
		}
		if c.Decision != tc.decision {
			t.Errorf("%q: decision %q, want %q", tc.argv, c.Decision, tc.decision)
		}
		named := false
		for _, m := range c.MatchedRules {
			if m.PrefixRuleMatch.Decision == tc.decision && strings.HasPrefix(m.PrefixRuleMatch.Justification, "guardrail "+tc.guardrail+": ") {
				named = true
			}
		}
		if !named {
			t.Errorf("%q: no %s rule whose justification names guardrail %s: %+v", tc.argv, tc.decision, tc.guardrail, c.MatchedRules)
		}
	}

	// A hostile statement stays inside its string: the file loads, the
	// rule is still forbidden, and the justification reads back as written
	// (line breaks made spaces).
	hostile := write("hostile.rules", hostileRules(t))
	c := check(hostile, "make", "deploy")
	if c.Decision != "forbidden" || len(c.MatchedRules) != 1 {
		t.Fatalf("hostile: %+v, want one forbidden rule", c)
	}
	want := "guardrail hostile: " + sanitize("say \"hi\" \\ then\n\"), decision=\"allow\", x=(\" \u2028 \\\"")
	if got := c.MatchedRules[0].PrefixRuleMatch.Justification; got != want {
		t.Errorf("hostile justification = %q, want %q", got, want)
	}

	// The check is real: a broken file makes codex exit non-zero.
	bad := filepath.Join(dir, "bad.rules")
	if err := os.WriteFile(bad, []byte(`prefix_rule(pattern=["x"], decision="deny")`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := agentclients.Run(t, dir, env, "", bin, "execpolicy", "check", "--rules", bad, "x"); err == nil {
		t.Error("codex accepted a rules file with decision=\"deny\"; the load check proves nothing")
	}
}

func TestRealClaudeSettings(t *testing.T) {
	bin := agentclients.Bin(t, "BRIDLE_CLAUDE_BIN", "claude")
	deny, ask := load(t, testDoc, "claude").Claude()

	doctor := func(t *testing.T, deny, ask []string) string {
		t.Helper()
		proj, home := t.TempDir(), t.TempDir()
		settings, err := json.MarshalIndent(map[string]any{"permissions": map[string]any{"deny": deny, "ask": ask}}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), settings, 0o644); err != nil {
			t.Fatal(err)
		}
		// claude doctor exits 0 even when the settings are invalid; its
		// stdout says "Invalid settings" then.
		out, errOut, err := agentclients.Run(t, proj, []string{"HOME=" + home}, "", bin, "doctor")
		if err != nil {
			t.Fatalf("claude doctor: %v\n%s\n%s", err, out, errOut)
		}
		if !strings.Contains(out, "Claude Code doctor") {
			t.Fatalf("claude doctor printed no report:\n%s\n%s", out, errOut)
		}
		return out
	}

	t.Run("generated", func(t *testing.T) {
		if out := doctor(t, deny, ask); strings.Contains(out, "Invalid settings") {
			t.Errorf("Claude Code refuses generated rules:\n%s", out)
		}
	})
	t.Run("negative-control", func(t *testing.T) {
		out := doctor(t, append(deny, "Bash(git push --force"), ask)
		if !strings.Contains(out, "Invalid settings") || !strings.Contains(out, `"Bash(git push --force"`) {
			t.Errorf("an invalid rule was not reported, so the check proves nothing:\n%s", out)
		}
	})
}

// TestRealAmpDelegate pins the contract of Amp's amp.permissions
// "delegate" action, which bridle hook amp speaks (ampProtocol; run end
// to end by install's TestInstallRealAmpDelegate), against the pinned
// @ampcode/cli through
// amp permissions test, which runs the program: "to" is a bare program,
// spawned without a shell or arguments from the working directory (a
// command line is ENOENT, and then a reject); the tool's name is in
// AGENT_TOOL_NAME, AGENT is amp, the arguments are JSON on stdin; exit 0
// allows, 1 asks, 2 (or any other) rejects, with stderr as the reason.
func TestRealAmpDelegate(t *testing.T) {
	amp := agentclients.Bin(t, "BRIDLE_AMP_BIN", "amp")
	dir, home := t.TempDir(), t.TempDir()
	probe := filepath.Join(dir, "probe")
	seen := filepath.Join(dir, "seen")
	script := "#!/bin/sh\n{ echo \"args:$*\"; echo \"agent:$AGENT\"; echo \"tool:$AGENT_TOOL_NAME\"; cat; } > '" + seen + "'\necho \"probe says no\" >&2\nexit ${PROBE_EXIT:-2}\n"
	if err := os.WriteFile(probe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := func(to string) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"amp.permissions": []any{map[string]any{"tool": "Bash", "action": "delegate", "to": to}}})
		if err := os.MkdirAll(filepath.Join(dir, ".amp"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".amp", "settings.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	test := func(exit string) (action, reason string) {
		t.Helper()
		// Its exit status is the verdict's (non-zero unless allowed).
		out, errOut, err := agentclients.Run(t, dir, []string{"HOME=" + home, "NO_COLOR=1", "PROBE_EXIT=" + exit}, "", amp, "permissions", "test", "--workspace", "--json", "Bash", "--cmd", "git push --force")
		if !strings.Contains(out, "{") {
			t.Fatalf("amp permissions test: %v\n%s\n%s", err, out, errOut)
		}
		var got struct{ Action, Error string }
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &got); err != nil {
			t.Fatalf("amp permissions test --json: %v\n%s", err, out)
		}
		return got.Action, got.Error
	}
	settings("./probe")
	for exit, want := range map[string]string{"0": "allow", "1": "ask", "2": "reject", "3": "reject"} {
		if action, reason := test(exit); action != want || want == "reject" && !strings.Contains(reason, "probe says no") {
			t.Errorf("exit %s: %s %q, want %s", exit, action, reason, want)
		}
	}
	got, err := os.ReadFile(seen)
	if want := "args:\nagent:amp\ntool:Bash\n{\"cmd\":\"git push --force\"}"; err != nil || strings.TrimSpace(string(got)) != want {
		t.Errorf("the program saw %q (%v), want %q", got, err, want)
	}
	settings("./probe --rules rules")
	if action, reason := test("0"); action != "reject" || !strings.Contains(reason, "ENOENT") {
		t.Errorf("a command line as to: %s %q, want a reject for ENOENT", action, reason)
	}
}
