package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/memory"
)

// isolated points every store of the CLI (audit log, memory, caches) at
// fresh directories and gives the test a git identity.
func isolated(t *testing.T) {
	t.Helper()
	asPerson(t, "Mira Okafor")
	t.Setenv("BRIDLE_STATE_DIR", t.TempDir())
	t.Setenv("BRIDLE_DATA_DIR", t.TempDir())
	t.Setenv("BRIDLE_CACHE_DIR", t.TempDir())
	for _, v := range []string{"QDRANT_URL", "EMBEDDINGS_URL", "EMBEDDINGS_MODEL", "GITEA_URL", "BRIDLE_GITEA_REPO", "GITHUB_ACTIONS", "GITEA_ACTIONS"} {
		t.Setenv(v, "")
	}
}

// remember stores a memory of project, as an agent's remember tool would.
func remember(t *testing.T, project, text string) memory.Record {
	t.Helper()
	st, emb, err := memory.OpenProject(memory.ConfigFrom(os.Getenv, memory.Config{}), project)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := (&memory.Memory{Store: st, Embedder: emb, Project: project}).Remember(context.Background(),
		memory.Entry{Text: text, Kind: "decision", Agent: "claude", Tags: []string{"db"}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func invalidRules(t *testing.T) string {
	t.Helper()
	bad := filepath.Join(t.TempDir(), "bridle.yaml")
	if err := os.WriteFile(bad, []byte("schema_version: 1\nproject: {id: x}\nguardrails: [{id: a, statement: s, severity: hard}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return bad
}

// oneDocument fails unless out is exactly one JSON value.
func oneDocument(t *testing.T, out string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if err := dec.Decode(&v); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout holds more than one JSON document (jq would print both, and a decoder of one fails):\n%s", out)
	}
}

// TestJSONIsOneDocument runs every command that has --json, on valid and
// on invalid rules, and decodes stdout as exactly one JSON document.
func TestJSONIsOneDocument(t *testing.T) {
	builtHelper(t) // before isolated: it moves HOME, and with it Go's build cache
	isolated(t)
	dir := rulesInit(t)
	for _, id := range []string{"to-approve", "to-reject", "to-rebase"} {
		if code, _, stderr := proposeGuardrail(t, dir, id, "--as", "jonas"); code != 0 {
			t.Fatalf("propose %s: %s", id, stderr)
		}
	}
	mem := remember(t, "json-test", "We chose SQLite for the queue.")
	remember(t, "json-test", "The outbox is drained every second.")
	bad := invalidRules(t)
	gwURL, gwAdmin := testGateway(t, "json-test", dir)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/guide.md" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Guide\n\n- Always run the tests before you commit.\n"))
	}))
	defer page.Close()
	gwEnv := map[string]string{"BRIDLE_SERVER": gwURL, "BRIDLE_ADMIN_TOKEN_FILE": gwAdmin}
	secretsEnv, recipient := secretsSetUp(t, dir)

	cases := []struct {
		args []string
		code int
		env  map[string]string
	}{
		{args: []string{"validate", "--rules", dir}},
		{args: []string{"import", filepath.Join(importProjectRoot(t), "rules")}},
		{args: []string{"validate", "--rules", bad}, code: exitInvalid},
		{args: []string{"render", "--rules", dir, "--all", "--out", filepath.Join(dir, "rendered"), "--check"}},
		{args: []string{"render", "--rules", dir, "--all", "--out", t.TempDir(), "--check"}, code: exitOutdated},
		{args: []string{"render", "--rules", bad, "--all", "--out", t.TempDir(), "--check"}, code: exitInvalid},
		{args: []string{"compile", "--rules", dir, "-o", "-"}},
		{args: []string{"compile", "--rules", dir, "-o", filepath.Join(t.TempDir(), "snapshot.json")}},
		{args: []string{"compile", "--rules", bad, "-o", "-"}, code: exitInvalid},
		{args: []string{"explain", "--rules", example, "--agent", "claude"}},
		{args: []string{"explain", "--rules", bad, "--agent", "claude"}, code: exitInvalid},
		{args: []string{"patterns", "list", "--rules", example}},
		{args: []string{"patterns", "list", "--rules", bad}, code: exitInvalid},
		{args: []string{"memory", "search", "queue", "--project", "json-test"}},
		{args: []string{"memory", "list", "--project", "json-test"}},
		{args: []string{"memory", "remember", "A person's note.", "--project", "json-test"}},
		{args: []string{"memory", "forget", mem.ID, "--project", "json-test"}},
		{args: []string{"memory", "purge", "--yes", "--project", "json-test"}},
		{args: []string{"audit", "--rules", dir}},
		{args: []string{"doctor", "--rules", dir, "--project", filepath.Dir(dir)}},
		{args: []string{"audit", "--rules", dir, "--agent", "nobody"}},
		{args: []string{"propose", "guardrail", "--rules", dir, "--id", "one-more", "--statement", "One more.", "--why", "x"}},
		{args: []string{"propose", "rules", "--rules", dir, "--section", "project.overview", "--value", "New scope.", "--why", "x"}},
		{args: []string{"propose", "pattern", "--rules", dir, "--file", patternFile(t), "--why", "x"}},
		{args: []string{"propose", "edit", "--rules", dir, "--from", editedRules(t, dir), "--why", "x"}},
		{args: []string{"propose", "promote", "--rules", dir, "--agent", "claude", "--suggestion", "nope", "--why", "x"}, code: exitUsage},
		{args: []string{"approve", "1", "--rules", dir}},
		{args: []string{"reject", "2", "--rules", dir}},
		{args: []string{"proposals", "rebase", "3", "--rules", dir}},
		{args: []string{"proposals", "show", "3", "--rules", dir}},
		{args: []string{"proposals", "list", "--rules", dir, "--state", "all"}},
		{args: []string{"proposals", "list", "--rules", dir, "--state", "closed"}},
		{args: []string{"proposals", "check", "--rules", dir, "--base", "main", "--head", "bridle/user/jonas/guardrail-to-rebase"}},
		{args: []string{"vendor", "sync", "--rules", vendorRules(t, page.URL+"/guide.md")}},
		{args: []string{"vendor", "sync", "--rules", vendorRules(t, page.URL+"/gone.md")}, code: exitFailure},
		{args: []string{"vendor", "promote", "claude", "nope", "--rules", dir}, code: exitUsage},
		{args: []string{"vendor", "dismiss", "claude", "--rules", dir}, code: exitUsage},
		{args: []string{"agents", "add", "--project", "json-test", "--agent", "claude"}, env: gwEnv},
		{args: []string{"agents", "list", "--project", "json-test"}, env: gwEnv},
		{args: []string{"agents", "rotate", "--project", "json-test", "--agent", "claude"}, env: gwEnv},
		{args: []string{"agents", "revoke", "--project", "json-test", "--agent", "claude"}, env: gwEnv},
		{args: []string{"secrets", "set", "json-secret", "--rules", dir, "--from-file", valueFile(t, "json-secret-value-1")}, env: secretsEnv},
		{args: []string{"secrets", "rotate", "json-secret", "--rules", dir, "--from-file", valueFile(t, "json-secret-value-2")}, env: secretsEnv},
		{args: []string{"secrets", "list", "--rules", dir}, env: secretsEnv},
		{args: []string{"secrets", "revoke", "json-secret", "--rules", dir}, env: secretsEnv},
		{args: []string{"secrets", "rekey", "--rules", dir, "--recipient", recipient}, env: secretsEnv},
		{args: []string{"secrets", "list", "--project", "json-test"}, env: gwEnv},
		// In CI, the check also annotates: the annotations must not join the document.
		{args: []string{"proposals", "check", "--rules", dir, "--base", "main", "--head", handBranch(t, dir)}, env: map[string]string{"GITHUB_ACTIONS": "true"}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		cmd, _, err := newRoot(&streams{}).Find(c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		covered[cmd.CommandPath()] = true
		args := append(c.args, "--json")
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			code, out, stderr := bridle(t, args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if c.code == exitUsage {
				return // refused before anything ran: no document
			}
			oneDocument(t, out)
		})
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("json") != nil && !covered[c.CommandPath()] {
			t.Errorf("%s has --json but no case here", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&streams{}))
}

// handBranch commits a hand-made grant of a permission on a new branch off
// main and returns the branch; main stays checked out.
func handBranch(t *testing.T, dir string) string {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("hand-made"), Create: true}); err != nil {
		t.Fatal(err)
	}
	directCommit(t, dir, func(s string) string {
		return strings.Replace(s, "  claude:\n    rules: {propose: true}", "  claude:\n    rules: {propose: true, approve: true}", 1)
	})
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("main")}); err != nil {
		t.Fatal(err)
	}
	return "hand-made"
}

// patternFile is a custom pattern in YAML, as propose pattern reads it.
func patternFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "outbox.yaml")
	if err := os.WriteFile(p, []byte("name: outbox\ndescription: Write events to an outbox table in the same transaction.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// editedRules writes main's bridle.yaml with one edit to a file of its own.
func editedRules(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "edited.yaml")
	const was = "  codex:\n    rules: {propose: true}\n    memory: {read: true, write: true}"
	if !strings.Contains(string(b), was) {
		t.Fatalf("bridle init's document has no %q to edit:\n%s", was, b)
	}
	os.WriteFile(p, []byte(strings.Replace(string(b), was, "  codex:\n    rules: {propose: true}\n    memory: {read: true}", 1)), 0o644)
	return p
}
