package panel

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/schema"
)

const editSrc = `schema_version: 1

# Tiers: guidance, hard-instruction, enforcement.
guardrails:
  # Reviews stay small.
  - id: small-changes
    statement: Keep each change small.   # a line comment
    severity: guidance

  - id: no-secrets
    statement: "Never print secrets."
    severity: enforcement
    applies_to: [claude, codex]
    enforced_by: [secrets.read]

# Profiles next.
agent_profiles:
  claude: {}
  codex: {}
`

// An edit changes the guardrail's lines only: comments, blank lines and
// every other line stay as written.
func TestEditGuardrailChangesOnlyItsLines(t *testing.T) {
	for _, c := range []struct {
		name, id string
		was, to  guardrailFields
		want     string
	}{
		{"statement and tier", "small-changes",
			guardrailFields{Statement: "Keep each change small.", Severity: "guidance"},
			guardrailFields{Statement: "Keep each change small enough to review at once.", Severity: "hard-instruction", AppliesTo: []string{"claude"}},
			strings.Replace(editSrc, "    statement: Keep each change small.   # a line comment\n    severity: guidance\n",
				"    statement: Keep each change small enough to review at once. # a line comment\n    severity: hard-instruction\n    applies_to: [claude]\n", 1)},
		{"the last one, quoted, to all agents", "no-secrets",
			guardrailFields{Statement: "Never print secrets.", Severity: "enforcement", AppliesTo: []string{"claude", "codex"}},
			guardrailFields{Statement: "Never print, log or copy secrets: true", Severity: "enforcement"},
			strings.Replace(editSrc, "    statement: \"Never print secrets.\"\n    severity: enforcement\n    applies_to: [claude, codex]\n",
				"    statement: \"Never print, log or copy secrets: true\"\n    severity: enforcement\n", 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := editGuardrail([]byte(editSrc), c.id, c.was, c.to)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("edited:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestEditGuardrailRefusesStaleAndMissing(t *testing.T) {
	to := guardrailFields{Statement: "x", Severity: "guidance"}
	if _, err := editGuardrail([]byte(editSrc), "small-changes", guardrailFields{Statement: "Something else", Severity: "guidance"}, to); !errors.Is(err, errStale) {
		t.Errorf("an edit of what main no longer says: %v", err)
	}
	if _, err := editGuardrail([]byte(editSrc), "nope", guardrailFields{}, to); !errors.Is(err, errNoGuardrail) {
		t.Errorf("an edit of no guardrail: %v", err)
	}
}

// On a real document (the example) every guardrail's edit
// is a valid document that differs from main in that guardrail only.
func TestEditGuardrailOnRealDocuments(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "examples", "runic-gateway", "bridle.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f, diags := schema.Load("bridle.yaml", src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, g := range f.Doc.Guardrails {
		was := guardrailFields{Statement: g.Statement, Severity: string(g.Severity), AppliesTo: g.AppliesTo}
		to := guardrailFields{Statement: g.Statement + " Always.", Severity: "hard-instruction", AppliesTo: []string{"claude"}}
		out, err := editGuardrail(src, g.ID, was, to)
		if err != nil {
			t.Fatalf("%s: %v", g.ID, err)
		}
		edited, diags := schema.Load("bridle.yaml", out)
		if diags.HasErrors() {
			t.Fatalf("%s: the edit is invalid: %v\n%s", g.ID, diags, out)
		}
		for _, h := range edited.Doc.Guardrails {
			if h.ID == g.ID && (h.Statement != to.Statement || h.Severity != schema.HardInstruction || strings.Join(h.AppliesTo, ",") != "claude") {
				t.Errorf("%s: edited to %+v", g.ID, h)
			}
		}
		if removed, added := lineDiff(string(src), string(out)); removed > 4 || added > 4 {
			t.Errorf("%s: %d lines removed and %d added: more than the guardrail's", g.ID, removed, added)
		}
	}
}

// lineDiff counts the lines of a not in b and of b not in a.
func lineDiff(a, b string) (removed, added int) {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[l]--
	}
	for _, n := range count {
		if n > 0 {
			removed += n
		} else {
			added -= n
		}
	}
	return removed, added
}
