package main

import (
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/audit"
)

// aligned checks that out starts with a header row holding cols, and that
// every column starts at the same offset on every row (text/tabwriter).
func aligned(t *testing.T, name, out string, cols ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("%s: want a header and rows, got:\n%s", name, out)
	}
	header := lines[0]
	for _, c := range cols {
		at := strings.Index(header, c)
		if at < 0 {
			t.Fatalf("%s: header %q lacks %s", name, header, c)
		}
		for _, row := range lines[1:] {
			if len(row) <= at || (at > 0 && row[at-1] != ' ') || row[at] == ' ' {
				t.Errorf("%s: column %s (at %d) is not aligned in %q", name, c, at, row)
			}
		}
	}
}

// TestListsHaveHeaders: every list prints a header row and aligned columns.
func TestListsHaveHeaders(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	proposeGuardrail(t, dir, "first-rule", "--as", "jonas")
	proposeGuardrail(t, dir, "a-second-rule-with-a-longer-id", "--as", "jonas")
	if code, _, stderr := bridle(t, "approve", "1", "--rules", dir); code != 0 {
		t.Fatalf("approve: %s", stderr)
	}
	remember(t, "acme", "We chose SQLite for the queue.")
	remember(t, "acme", "The outbox queue is drained every second.")
	dirLog, _ := audit.DefaultDir()
	audit.Open(dirLog, "acme", nil).Append(audit.Event{Kind: audit.KindRefusal, Agent: "kimi", Permission: "rules.approve", Summary: "refused approve"})

	_, out, _ := bridle(t, "proposals", "list", "--rules", dir, "--state", "all")
	aligned(t, "proposals list", out, "STATE", "TITLE")
	_, out, _ = bridle(t, "memory", "list", "--rules", dir)
	aligned(t, "memory list", out, "CREATED", "KIND", "AGENT", "TEXT")
	_, out, _ = bridle(t, "memory", "search", "queue", "--rules", dir)
	aligned(t, "memory search", out, "SCORE", "CREATED", "KIND", "AGENT", "TEXT")
	_, out, _ = bridle(t, "patterns", "list", "--rules", example)
	aligned(t, "patterns list", out, "REFERENCE TAG", "CHUNKS", "LAST INDEXED", "URL")
	code, out, stderr := bridle(t, "audit", "--rules", dir)
	aligned(t, "audit", out, "KIND", "AGENT", "SUMMARY")
	if code != 0 || !strings.Contains(out, "(proposed by jonas, approved by Mira Okafor)") {
		t.Errorf("audit does not name the proposer: %d\n%s\n%s", code, out, stderr)
	}
}

// TestMemorySearchLabelsScores: a score is in a SCORE column, not a bare
// number in parentheses.
func TestMemorySearchLabelsScores(t *testing.T) {
	isolated(t)
	remember(t, "p", "We chose SQLite for the queue.")
	_, out, _ := bridle(t, "memory", "search", "queue", "--project", "p")
	if !strings.HasPrefix(out, "ID") || !strings.Contains(out, "SCORE") || strings.Contains(out, "(0.") {
		t.Errorf("memory search:\n%s", out)
	}
}

// TestEmptyListsSayHowToAddOne: an empty list prints nothing on stdout and,
// on stderr, that there is none yet and the command that adds one.
func TestEmptyListsSayHowToAddOne(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"proposals", "list", "--rules", dir}, "no open proposals yet — add one with bridle propose"},
		{[]string{"proposals", "list", "--rules", dir, "--state", "merged"}, "no merged proposals yet — approve one with bridle approve"},
		{[]string{"memory", "list", "--rules", dir}, "no memories yet — add one with bridle memory remember TEXT; agents add them with the remember tool of bridle mcp"},
		{[]string{"memory", "search", "anything", "--rules", dir}, "no memories match — add one with bridle memory remember TEXT; agents add them with the remember tool of bridle mcp"},
		{[]string{"patterns", "list", "--rules", dir}, "no pattern examples yet — add one with bridle propose pattern"},
		{[]string{"audit", "--rules", dir}, "no events yet for project acme — bridle approve"},
	} {
		code, out, stderr := bridle(t, tt.args...)
		if code != 0 || out != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want on stderr %q", tt.args, code, out, stderr, tt.want)
		}
	}
}

// TestShowHidesTheDraftEncoding: proposals show prints the recorded change
// decoded, never the base64 copy Bridle keeps in the description.
func TestShowHidesTheDraftEncoding(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	proposeGuardrail(t, dir, "shown-rule", "--as", "jonas")
	code, out, stderr := bridle(t, "proposals", "show", "1", "--rules", dir)
	if code != 0 || !strings.Contains(out, "id: shown-rule") || !strings.Contains(out, "## Rationale") {
		t.Fatalf("show: exit %d\n%s\n%s", code, out, stderr)
	}
	if strings.Contains(out, "bridle-draft") || strings.Contains(out, "eyJ") {
		t.Errorf("show prints the encoded draft:\n%s", out)
	}
}
