package panel_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

// The Audit page shows what bridle audit shows: the rules' history (each
// merge, and each change on main no approved merge produced) beside the
// events of the log, through the admin API.
func TestAuditShowsTheHistory(t *testing.T) {
	e := start(t, []string{"alpha"})
	var pr proposals.Proposal
	if code := e.api(t, "POST", "/api/v1/projects/alpha/proposals", gateway.ProposeRequest{Change: proposals.Change{Kind: proposals.KindGuardrail,
		Guardrail: &schema.Guardrail{ID: "tests-first", Statement: "Write the test first.", Severity: schema.Guidance}, Rationale: "Fewer regressions."}}, &pr); code != 201 {
		t.Fatalf("propose: %d", code)
	}
	if code := e.api(t, "POST", "/api/v1/projects/alpha/proposals/1/approve", gateway.ApproveRequest{Self: true}, nil); code != 200 {
		t.Fatalf("approve: %d", code)
	}
	var ps gateway.ProjectStatus
	e.api(t, "GET", "/api/v1/projects/alpha", nil, &ps)
	// A direct commit to main, with no proposal: unreviewed.
	doc := filepath.Join(ps.Source, "bridle.yaml")
	b, _ := os.ReadFile(doc)
	edited := strings.Replace(string(b), "Write the test first.", "Write the test first, or after.", 1)
	if edited == string(b) {
		t.Fatal("the approved guardrail is not on main")
	}
	os.WriteFile(doc, []byte(edited), 0o644)
	git := exec.Command("git", "-C", ps.Source, "commit", "-qam", "loosen it")
	git.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Eve", "GIT_AUTHOR_EMAIL=eve@example.com", "GIT_COMMITTER_NAME=Eve", "GIT_COMMITTER_EMAIL=eve@example.com")
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v %s", err, out)
	}
	e.waitFor(t, "alpha", func(r gateway.Rules) bool {
		return r.Snapshot != nil && r.Snapshot.Approval != nil && len(r.Snapshot.Approval.Unapproved) > 0
	})
	var events []audit.Event
	e.api(t, "GET", "/api/v1/audit?project=alpha", nil, &events)
	kinds := map[string]int{}
	for _, ev := range events {
		kinds[ev.Kind]++
	}
	if kinds[audit.KindMerge] < 1 || kinds[audit.KindUnreviewed] < 1 {
		t.Errorf("the API's audit lacks the history: %v", kinds)
	}
	b2 := e.browser(t)
	b2.login()
	for _, kind := range []string{audit.KindMerge, audit.KindUnreviewed} {
		p := b2.get("/ui/audit?project=alpha&kind=" + kind)
		if !strings.Contains(p.body, `class="badge kind-`+kind+`"`) {
			t.Errorf("the Audit page shows no %s row:\n%s", kind, p.body)
		}
	}
}
