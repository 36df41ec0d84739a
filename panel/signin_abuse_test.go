package panel_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/gateway"
)

// These attacks came from a fresh-eyes review of sign-in and roles; each
// worked before its fix.

// An approver cannot approve their own proposal by ticking "self" (the API's
// {"self":true}): only auth.sole_maintainer may.
func TestSelfApprovalIsNotTheApproversChoice(t *testing.T) {
	e := start(t, []string{"alpha"}, withRoles)
	abe := e.browser(t).as(e, rolePeople()[gateway.RoleApprover])
	pr := abe.post("/ui/projects/alpha/propose", url.Values{"kind": {"guardrail"}, "id": {"abe-rule"}, "statement": {"Ask abe."},
		"severity": {"guidance"}, "rationale": {"Because."}})
	if pr.code != http.StatusSeeOther {
		t.Fatalf("propose: %d %s", pr.code, pr.body)
	}
	plain := abe.follow("/ui/projects/alpha/proposals/1/approve", url.Values{})
	if strings.Contains(plain.body, "Approved proposal #1") {
		t.Fatal("abe approved abe's own proposal")
	}
	p := abe.follow("/ui/projects/alpha/proposals/1/approve", url.Values{"self": {"on"}})
	if strings.Contains(p.body, "Approved proposal #1") {
		t.Errorf("abe approved abe's own proposal with self=on")
	}
}

// With people signing in through a provider, the admin credential approves
// no person's proposal: its holder could be the author.
func TestBreakGlassApprovesNoPersonsProposal(t *testing.T) {
	e := start(t, []string{"alpha"}, withRoles)
	abe := e.browser(t).as(e, rolePeople()[gateway.RoleApprover])
	if pr := abe.post("/ui/projects/alpha/propose", url.Values{"kind": {"guardrail"}, "id": {"abe-rule"}, "statement": {"Ask abe."},
		"severity": {"guidance"}, "rationale": {"Because."}}); pr.code != http.StatusSeeOther {
		t.Fatalf("propose: %d", pr.code)
	}
	bg := e.browser(t)
	bg.login()
	p := bg.follow("/ui/projects/alpha/proposals/1/approve", url.Values{})
	if strings.Contains(p.body, "Approved proposal #1") {
		t.Errorf("the admin credential approved abe's proposal")
	}
}

// Roles go by the provider's user name, never the display name anyone sets:
// a token without preferred_username signs nobody in, though its name is
// an admin's.
func TestDisplayNameGivesNoRole(t *testing.T) {
	f := newFakeIdP(t)
	f.user = "mallory"
	e := start(t, []string{"alpha"}, withIdP(t, f))
	f.set(func(f *fakeIdP) {
		f.mutate = func(c map[string]any) { delete(c, "preferred_username"); c["name"] = "ada" }
	})
	b := e.browser(t)
	if p := b.signIn(); p.code == http.StatusSeeOther || !strings.Contains(p.body, "preferred_username") {
		t.Fatalf("sign-in without a user name: %d %s", p.code, p.body)
	}
	if p := b.post("/ui/projects/alpha/agents", url.Values{"agent": {"claude"}}); p.code == http.StatusOK || strings.Contains(p.body, "Minted") {
		t.Errorf("mallory with display name ada minted: %d", p.code)
	}
}

// A person with no role gets no session (anyone with an account at the
// provider could sign in), so a thousand of them end nobody's session.
func TestNoRoleNoSession(t *testing.T) {
	f := newFakeIdP(t)
	e := start(t, []string{"alpha"}, func(c *gateway.Config, o *gateway.Options) {
		withIdP(t, f)(c, o)
		c.Auth.Roles.Viewer = nil
	})
	ada := e.browser(t).as(e, actor.Person("x|ada", "ada", "", false, actor.ViaOIDC))
	f.set(func(f *fakeIdP) { f.user = "nobody" })
	for i := 0; i < 1000; i++ {
		b := e.browser(t)
		if p := b.signIn(); p.code != http.StatusForbidden || !strings.Contains(p.body, "no role") {
			t.Fatalf("roleless sign-in %d: %d %s", i, p.code, p.body)
		}
	}
	if p := ada.get("/ui/queue"); p.code != http.StatusOK {
		t.Errorf("1000 role-less sign-ins ended the admin's session: %d %q", p.code, p.location)
	}
}
