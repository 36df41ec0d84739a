package gateway

// Attacks found by a review of the Kanboard and upstream integrations; each
// asserts the fix.

import (
	"testing"
)

// KANBOARD_PROJECTS that is not a list of ids is silently dropped by
// Config.Env (strconv errors ignored), leaving Projects nil, which means
// "every project the identity can see": with the application identity,
// every project on the Kanboard. The sidecar's kanboard.ConfigFrom refuses
// the same value. Fail-open on an operator typo.
func TestKanboardProjectsGarbageIsRefused(t *testing.T) {
	for _, v := range []string{"runic", "3;4", "3 4", "#3", "3,abc"} {
		env := map[string]string{"KANBOARD_URL": "http://kb.invalid", "KANBOARD_PROJECTS": v}
		p, err := ParseIntegrations("bridle.yaml", []byte("kanboard: {token_file: /dev/null}\n"), func(k string) string { return env[k] })
		if err == nil {
			t.Errorf("KANBOARD_PROJECTS=%q accepted: projects %v (nil = every project)", v, p.Kanboard.Projects)
		}
	}
}

// The issue: "one Kanboard user per agent or the app identity restricted to
// the Bridle project's Kanboard projects". A configuration with the
// application identity and no projects is accepted, and every agent
// without a user of its own gets every Kanboard project: in a gateway
// with two Bridle projects on one Kanboard, each sees the other's boards.
func TestAppIdentityNeedsProjects(t *testing.T) {
	env := map[string]string{"KANBOARD_URL": "http://kb.invalid"}
	p, err := ParseIntegrations("bridle.yaml", []byte("kanboard: {token_file: /dev/null}\n"), func(k string) string { return env[k] })
	if err == nil && p.Kanboard.Projects == nil {
		t.Errorf("the application identity with no kanboard.projects is accepted: it may touch every Kanboard project")
	}
}
