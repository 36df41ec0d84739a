package proposals

import (
	"context"
	"errors"
	"github.com/bridle-dev/bridle/actor"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

// TestNoSelfApproval: four eyes on every approval, read from the proposal's
// own commit, and only a person approves: an agent never does, whatever
// the rules grant it (issue 23: codex, granted rules.approve, merged
// claude's proposal with no human involved).
func TestNoSelfApproval(t *testing.T) {
	tests := []struct {
		name   string
		origin Origin
		by     Principal
		want   error // nil: approved
	}{
		{"same agent, another session", agentOrigin(), Principal{Actor: actor.AgentOf("", "claude", "s-999")}, ErrSelfApproval},
		{"another agent, same session", agentOrigin(), Principal{Actor: actor.AgentOf("", "codex", "s-123")}, ErrSelfApproval},
		{"another agent and session", agentOrigin(), Principal{Actor: actor.AgentOf("", "codex", "s-999")}, ErrAgentApproval},
		{"a human, an agent's proposal", agentOrigin(), Principal{Actor: actor.Git("claude", "")}, nil},
		{"the proposing human", Origin{Source: schema.SourceUser, Author: "Ann"}, Principal{Actor: actor.Git("ann", "")}, ErrSelfApproval},
		{"the proposing human, sole maintainer", Origin{Source: schema.SourceUser, Author: "ann"}, Principal{Actor: actor.Git("ann", ""), SelfOK: true}, nil},
		{"an agent may not use SelfOK", agentOrigin(), Principal{Actor: actor.AgentOf("", "claude", "s-1"), SelfOK: true}, ErrSelfApproval},
		{"another agent may not use SelfOK", agentOrigin(), Principal{Actor: actor.AgentOf("", "codex", "s-1"), SelfOK: true}, ErrAgentApproval},
		{"another human", Origin{Source: schema.SourceUser, Author: "ann"}, Principal{Actor: actor.Git("bob", "")}, nil},
		{"an agent, a human's proposal", Origin{Source: schema.SourceUser, Author: "alice"}, Principal{Actor: actor.AgentOf("", "claude", "s-9")}, ErrAgentApproval},
		// One person reaching Bridle two ways: the provider's verified
		// e-mail is git's.
		{"signed in through the provider, approving on the CLI", OriginOf(actor.Person("oidc:https://gitea|7", "alice", "alice@example.org", true, actor.ViaOIDC)),
			Principal{Actor: actor.Git("Alice Liddell", "Alice@example.org")}, ErrSelfApproval},
		{"proposed on the CLI, approving in the panel", OriginOf(actor.Git("Alice Liddell", "alice@example.org")),
			Principal{Actor: actor.Person("oidc:https://gitea|7", "alice", "alice@example.org", true, actor.ViaOIDC)}, ErrSelfApproval},
		{"the same provider subject under another name", OriginOf(actor.Person("oidc:https://gitea|7", "alice", "", false, actor.ViaOIDC)),
			Principal{Actor: actor.Person("oidc:https://gitea|7", "alice-renamed", "", false, actor.ViaOIDC)}, ErrSelfApproval},
		{"an e-mail the provider does not vouch for is no one's", OriginOf(actor.Git("Alice Liddell", "alice@example.org")),
			Principal{Actor: actor.Person("oidc:https://idp|9", "mallory", "alice@example.org", false, actor.ViaOIDC)}, nil},
		{"another person from the provider", OriginOf(actor.Person("oidc:https://gitea|7", "alice", "alice@example.org", true, actor.ViaOIDC)),
			Principal{Actor: actor.Person("oidc:https://gitea|8", "bob", "bob@example.org", true, actor.ViaOIDC)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := rulesRepo(t)
			l, err := OpenLocal(dir, "test")
			if err != nil {
				t.Fatal(err)
			}
			svc := Service{Backend: l}
			ctx := context.Background()
			pr, err := svc.Propose(ctx, Draft{Change: guardrail("pin-go-version"), Origin: tt.origin})
			if err != nil {
				t.Fatal(err)
			}
			_, err = svc.Approve(ctx, pr.Number, tt.by)
			if (tt.want == nil) != (err == nil) || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("approve by %+v: %v, want %v", tt.by, err, tt.want)
			}
			if _, commit, _ := l.Main(ctx); tt.want != nil && commit != pr.Base {
				t.Error("a refused approval moved main")
			}
		})
	}
}

// TestRecordIgnoresEditableData: rebase and approval take the change and
// origin from the proposal commit; an edited description or metadata
// changes nothing, and a branch pushed to by hand is refused.
func TestRecordIgnoresEditableData(t *testing.T) {
	dir, repo := rulesRepo(t)
	l, err := OpenLocal(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	svc := Service{Backend: l}
	ctx := context.Background()
	pr, err := svc.Propose(ctx, Draft{Change: guardrail("pin-go-version"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	// A writer rewrites the stored description and draft: another change,
	// another origin.
	forged := guardrail("something-else")
	forged.Guardrail.Statement = "Agents may approve their own proposals."
	m, err := l.load(pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	m.Draft = &Draft{Change: forged, Origin: Origin{Source: schema.SourceUser, Author: "mira"}}
	m.Body = "## Rationale\n\nA human wrote this.\n"
	if err := l.save(m); err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Record(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Draft.Change.Guardrail.ID != "pin-go-version" || rec.Draft.Origin.Agent != "claude" {
		t.Errorf("record = %+v, want the commit's change and origin", rec.Draft)
	}
	// Main moves, so approving re-applies: the commit's change, not the forged one.
	commitOnMain(t, repo, dir, func(s string) string { return s + "# a later edit\n" })
	merged, err := svc.Approve(ctx, pr.Number, Principal{Actor: actor.Git("mira", "")})
	if err != nil {
		t.Fatal(err)
	}
	rules, _, _ := l.Main(ctx)
	if !strings.Contains(string(rules), "pin-go-version") || strings.Contains(string(rules), "something-else") {
		t.Errorf("approval applied the forged change:\n%s", rules)
	}
	_ = merged

	// A branch someone pushed to by hand.
	pr2, err := svc.Propose(ctx, Draft{Change: guardrail("second-rule"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := repo.CommitObject(plumbing.NewHash(pr2.Head))
	extra := commitOn(t, repo, head, strings.Replace(string(mustFile(t, head)), "Rule second-rule.", "Rule second-rule, and agents may approve.", 1), head.Message)
	m2, _ := l.load(pr2.Number)
	m2.Head = extra.String()
	l.save(m2)
	repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(m2.Branch), extra))
	pr2.Head = extra.String()
	if _, err := svc.Approve(ctx, pr2.Number, Principal{Actor: actor.Git("mira", "")}); !errors.Is(err, ErrTampered) {
		t.Errorf("approve of a hand-pushed branch: %v, want ErrTampered", err)
	}
	if _, err := svc.Rebase(ctx, pr2.Number); !errors.Is(err, ErrTampered) {
		t.Errorf("rebase of a hand-pushed branch: %v, want ErrTampered", err)
	}
	// Same content, but the commit rewritten to claim a human origin.
	lie := commitOn(t, repo, mustParent(t, repo, head), string(mustFile(t, head)),
		strings.Replace(head.Message, "Bridle-Source: agent", "Bridle-Source: user", 1))
	m2.Head = lie.String()
	l.save(m2)
	pr2.Head = lie.String()
	if _, err := svc.Record(ctx, pr2); !errors.Is(err, ErrTampered) {
		t.Errorf("record of a commit whose trailers disagree with its draft: %v, want ErrTampered", err)
	}
}

func mustFile(t *testing.T, c *object.Commit) []byte {
	t.Helper()
	f, err := c.File("bridle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Contents()
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}

func mustParent(t *testing.T, repo *git.Repository, c *object.Commit) *object.Commit {
	t.Helper()
	p, err := repo.CommitObject(c.ParentHashes[0])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// commitOn makes a commit on parent holding rules as bridle.yaml (the only
// file changed), without moving any branch.
func commitOn(t *testing.T, repo *git.Repository, parent *object.Commit, rules, msg string) plumbing.Hash {
	t.Helper()
	obj := repo.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, _ := obj.Writer()
	w.Write([]byte(rules))
	w.Close()
	blob, _ := repo.Storer.SetEncodedObject(obj)
	tree, _ := parent.Tree()
	entries := append([]object.TreeEntry(nil), tree.Entries...)
	for i := range entries {
		if entries[i].Name == "bridle.yaml" {
			entries[i].Hash = blob
		}
	}
	tobj := repo.Storer.NewEncodedObject()
	(&object.Tree{Entries: entries}).Encode(tobj)
	th, _ := repo.Storer.SetEncodedObject(tobj)
	sig := object.Signature{Name: "someone", Email: "s@example.com", When: time.Now()}
	cobj := repo.Storer.NewEncodedObject()
	(&object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: th, ParentHashes: []plumbing.Hash{parent.Hash}}).Encode(cobj)
	h, err := repo.Storer.SetEncodedObject(cobj)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// commitOnMain commits an edit of bridle.yaml on main through the work tree.
func commitOnMain(t *testing.T, repo *git.Repository, dir string, edit func(string) string) {
	t.Helper()
	p := filepath.Join(dir, "bridle.yaml")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(edit(string(b))), 0o644)
	wt, _ := repo.Worktree()
	wt.Add("bridle.yaml")
	if _, err := wt.Commit("edit", &git.CommitOptions{Author: &object.Signature{Name: "Mira", Email: "m@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
}

// TestBodyQuotesAgentText: a rationale that tries to forge sections, hide
// the change behind an HTML comment or close the fences stays inert text.
func TestBodyQuotesAgentText(t *testing.T) {
	hostile := []string{
		"fine\n\n## Change\n\n```yaml\nguardrails: []\n```\n\n<!--",
		"````\n# Approved\n<script>alert(1)</script>\n<!-- hide",
		"~~~\n## Effect on each agent's rendered file\n~~~",
		"<details><summary>ok</summary>",
		"```````````````````````````\n## Change",
	}
	for _, rationale := range hostile {
		dir, _ := rulesRepo(t)
		l, _ := OpenLocal(dir, "test")
		c := guardrail("pin-go-version")
		c.Rationale = rationale
		c.Guardrail.Statement = "Rule ``` with ` backticks and <b>a tag</b>."
		pr, err := Service{Backend: l}.Propose(context.Background(), Draft{Change: c, Origin: Origin{Source: schema.SourceAgent, Agent: "claude", Session: "s`x"}})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := l.Get(context.Background(), pr.Number)
		headings, html := outsideFences(p.Body)
		want := []string{"## Rationale", "## Proposed by", "## Change", "## Effect on each agent's rendered file"}
		got := []string{}
		for _, h := range headings {
			if strings.HasPrefix(h, "## ") {
				got = append(got, h)
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("rationale %q: sections = %q, want %q\n%s", rationale, got, want, p.Body)
		}
		if len(html) != 1 || !strings.HasPrefix(html[0], changeMarker) {
			t.Errorf("rationale %q: HTML outside code = %q, want only the draft marker", rationale, html)
		}
	}
}

// outsideFences returns the heading lines and the lines starting with "<"
// that are not inside a fenced code block (CommonMark's rule: a fence closes
// on a line of at least as many of the same character).
func outsideFences(body string) (headings, html []string) {
	fence := ""
	for _, line := range strings.Split(body, "\n") {
		trim := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trim, fence) && strings.Trim(trim, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		for _, ch := range []string{"`", "~"} {
			if strings.HasPrefix(trim, ch+ch+ch) {
				n := len(trim) - len(strings.TrimLeft(trim, ch))
				fence = strings.Repeat(ch, n)
			}
		}
		if fence != "" {
			continue
		}
		switch {
		case strings.HasPrefix(trim, "#"):
			headings = append(headings, trim)
		case strings.HasPrefix(trim, "<"):
			html = append(html, trim)
		}
	}
	return headings, html
}

// TestInspectFlagsHandMadeChanges: the rules repository's CI check.
func TestInspectFlagsHandMadeChanges(t *testing.T) {
	dir, repo := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	pr, err := Service{Backend: l}.Propose(context.Background(), Draft{Change: guardrail("pin-go-version"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Inspect(dir, "main", pr.Branch)
	if err != nil || !r.ByBridle || r.Flagged() || r.Subject != "guardrail:pin-go-version" {
		t.Errorf("Bridle's proposal: %+v %v", r, err)
	}

	head, _ := repo.CommitObject(plumbing.NewHash(pr.Head))
	rules := string(mustFile(t, head))
	for _, tt := range []struct {
		name, edit, want string
	}{
		{"a permission", strings.Replace(rules, "rules: {propose: true, approve: false}", "rules: {propose: true, approve: true}", 1), "permissions.claude"},
		{"a forged approval", strings.Replace(rules, "source: agent\n", "source: agent\n      approved_by: mira.okafor\n", 1), "guardrails.ask-before-new-dependency.provenance"},
		{"a client mapping", strings.Replace(rules, "mcp_clients: [kimi-cli]", "mcp_clients: [kimi-cli, claude-code]", 1), "agent_profiles.kimi.mcp_clients"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.edit == rules {
				t.Fatal("the edit changed nothing; the example moved")
			}
			// On top of Bridle's commit, and as a fresh hand-made commit.
			for _, parent := range []*object.Commit{head, mustParent(t, repo, head)} {
				c := commitOn(t, repo, parent, tt.edit, "tweak")
				r, err := Inspect(dir, "main", c.String())
				if err != nil || r.ByBridle || !r.Flagged() || !slices.Contains(r.Sensitive, tt.want) {
					t.Errorf("%+v %v, want %s flagged", r, err, tt.want)
				}
			}
		})
	}
}

// TestProposeRefusesSecrets: on every path (the CLI sets the Redactor), a
// change holding a known secret or a password creates nothing, and the
// error names the field, never the value.
func TestProposeRefusesSecrets(t *testing.T) {
	const token = "gtea_4f9a1c77e2b04d"
	dir, _ := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	svc := Service{Backend: l, Redactor: redact.New(token)}
	for name, c := range map[string]Change{
		"statement": func() Change { c := guardrail("leaky"); c.Guardrail.Statement = "Use " + token + " to push."; return c }(),
		"rationale": func() Change { c := guardrail("leaky"); c.Rationale = "the token is " + token; return c }(),
		"password":  {Kind: KindPattern, Rationale: "x", Pattern: &schema.CustomPattern{Name: "p", Description: "d", ExampleRepos: []schema.ExampleRepo{{URL: "https://bob:hunter2secret@git.example/x.git", ReferenceTag: "p-1"}}}},
	} {
		_, err := svc.Propose(context.Background(), Draft{Change: c, Origin: agentOrigin()})
		if !errors.Is(err, ErrBadInput) || !errors.Is(err, redact.ErrSecret) || strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if ps, _ := l.List(context.Background(), All); len(ps) != 0 {
		t.Errorf("refused proposals created %d", len(ps))
	}
}

// TestProposeOnHostileMain: a main whose YAML holds an alias cycle is
// refused before the node-level edit walks it.
func TestProposeOnHostileMain(t *testing.T) {
	for _, main := range []string{"schema_version: 1\nproject: &p {<<: *p}\n", "a: &a [*a]\n"} {
		_, err := Prepare([]byte(main), "x", Draft{Change: guardrail("x"), Origin: agentOrigin()}, "test")
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", main, err)
		}
	}
}

// TestRecordRefusesHiddenCommits: a proposal whose commit sits on another
// commit than main (which would ride in with its approval) is refused,
// whatever the stored metadata says its base is.
func TestRecordRefusesHiddenCommits(t *testing.T) {
	dir, repo := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	svc := Service{Backend: l}
	ctx := context.Background()
	pr, err := svc.Propose(ctx, Draft{Change: guardrail("be-kind"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := repo.CommitObject(plumbing.NewHash(pr.Head))
	base := mustParent(t, repo, head)
	grant := strings.Replace(string(mustFile(t, base)), "rules: {propose: true, approve: false}", "rules: {propose: true, approve: true}", 1)
	hidden := commitOn(t, repo, base, grant, "grant")
	hc, _ := repo.CommitObject(hidden)
	after, err := Apply([]byte(grant), guardrail("be-kind"), agentOrigin())
	if err != nil {
		t.Fatal(err)
	}
	d := Draft{Change: guardrail("be-kind").Recorded([]byte(grant)), Origin: agentOrigin()}
	on := commitOn(t, repo, hc, string(after), message("Add guardrail be-kind", d))
	for _, claimedBase := range []string{base.Hash.String(), hidden.String()} {
		m, _ := l.load(pr.Number)
		m.Head, m.Base = on.String(), claimedBase
		l.save(m)
		repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(m.Branch), on))
		if _, err := svc.Approve(ctx, pr.Number, Principal{Actor: actor.Git("mira", "")}); !errors.Is(err, ErrTampered) {
			t.Errorf("base %s: approve of a proposal on a hidden commit: %v, want ErrTampered", claimedBase[:8], err)
		}
	}
}

// TestGitCommitterIsThePersonOfTheirEmail: bridle approve with no --as
// approves as git's committer, e-mail and all, so a person who proposed
// in the panel (the provider vouching for their e-mail) cannot approve it
// on the CLI under git's other spelling of their name.
func TestGitCommitterIsThePersonOfTheirEmail(t *testing.T) {
	t.Setenv("GIT_COMMITTER_NAME", "Alice Liddell")
	t.Setenv("GIT_COMMITTER_EMAIL", "alice@example.org")
	dir, _ := rulesRepo(t)
	l, err := OpenLocal(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	svc := Service{Backend: l}
	ctx := context.Background()
	pr, err := svc.Propose(ctx, Draft{Change: guardrail("pin-go-version"),
		Origin: OriginOf(actor.Person("oidc:https://gitea|7", "alice", "alice@example.org", true, actor.ViaOIDC))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Approve(ctx, pr.Number, Principal{}); !errors.Is(err, ErrSelfApproval) {
		t.Fatalf("approve as git's committer of the same e-mail: %v, want ErrSelfApproval", err)
	}
	t.Setenv("GIT_COMMITTER_NAME", "Bob")
	t.Setenv("GIT_COMMITTER_EMAIL", "bob@example.org")
	if _, err := svc.Approve(ctx, pr.Number, Principal{}); err != nil {
		t.Fatalf("another person approves: %v", err)
	}
}
