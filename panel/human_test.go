package panel_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/gateway"
)

// A gateway that knows no one to attribute actions to never offers one
// that the API would refuse without saying why: the Decide card says what
// to set instead of showing Approve and Reject, the propose buttons are off
// with the reason, every page carries it. Named, it offers them.
func TestPanelOffersOnlyActionsItCanDo(t *testing.T) {
	for _, tc := range []struct {
		name    string
		admin   string
		offered bool
	}{
		{"named", "Mira Rossi", true},
		{"no one", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := start(t, []string{"alpha"}, func(c *gateway.Config, _ *gateway.Options) { c.Admin.Name, c.Admin.NameFrom = tc.admin, "" })
			cs := e.connect(t, "alpha", e.mint(t, "alpha", "claude"))
			tool(t, cs, "propose_guardrail", map[string]any{"id": "tests-first", "severity": "guidance", "statement": "Write the test first.", "why": "Fewer regressions."})
			var me gateway.Me
			if code := e.api(t, "GET", "/api/v1/me", nil, &me); code != http.StatusOK || me.Name != tc.admin || (me.Missing == "") == (tc.admin == "") {
				t.Fatalf("GET /api/v1/me: %d %+v", code, me)
			}
			b := e.browser(t)
			b.login()
			pr := b.get("/ui/projects/alpha/proposals/1")
			rules := b.get("/ui/projects/alpha/rules")
			for _, c := range []struct {
				what string
				body string
				want bool // true: the action is offered
			}{
				{"the approve form", pr.body, strings.Contains(pr.body, `/proposals/1/approve"`)},
				{"the reject form", pr.body, strings.Contains(pr.body, `/proposals/1/reject"`)},
				{"an enabled propose button", rules.body, strings.Contains(rules.body, `type="submit">Open proposal`)},
				{"no banner", rules.body, !strings.Contains(rules.body, `id="no-human"`)},
				{"no reason on the proposal", pr.body, !strings.Contains(pr.body, `id="decide-off"`)},
			} {
				if c.want != tc.offered {
					t.Errorf("%s: got %v, want %v", c.what, c.want, tc.offered)
				}
			}
			if !tc.offered && !strings.Contains(pr.body, "--admin-name") {
				t.Errorf("the proposal page does not say how to name the admin:\n%s", pr.body)
			}
			code := e.api(t, "POST", "/api/v1/projects/alpha/proposals/1/approve", gateway.ApproveRequest{}, nil)
			if want := map[bool]int{true: http.StatusOK, false: http.StatusBadRequest}[tc.offered]; code != want {
				t.Errorf("approve through the API: %d, want %d", code, want)
			}
		})
	}
}
