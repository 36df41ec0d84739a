package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/proposals"
)

// bridle serve knows the person running it from the start: --admin-name,
// else BRIDLE_ADMIN_NAME, else git's committer identity of the serving
// user; the start-up log says who, and bridle approve --server works with
// no configuration. With no one to name, the log and the refusal say how
// to name someone.
func TestServeKnowsItsHuman(t *testing.T) {
	bin := builtBinary(t)
	for _, tc := range []struct {
		name    string
		git     string // the serving user's git identity ("" none)
		env     string // BRIDLE_ADMIN_NAME
		flag    string // --admin-name
		want    string // who merged ("" refused)
		wantLog string
	}{
		{name: "git identity", git: "Mira Okafor", want: "Mira Okafor", wantLog: `"from":"git"`},
		{name: "variable over git", git: "Mira Okafor", env: "Vera Variable", want: "Vera Variable", wantLog: `"from":"environment"`},
		{name: "flag over variable", git: "Mira Okafor", env: "Vera Variable", flag: "Fred Flag", want: "Fred Flag", wantLog: `"from":"flag"`},
		{name: "no one", wantLog: "--admin-name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolated(t)
			dir := rulesInit(t)
			if code, _, stderr := proposeGuardrail(t, dir, "tests-first", "--as", "Alice Agent"); code != 0 {
				t.Fatalf("propose: %s", stderr)
			}
			if tc.git == "" {
				noIdentity(t)
			} else {
				asPerson(t, tc.git)
			}
			t.Setenv("BRIDLE_ADMIN_NAME", tc.env)
			state := t.TempDir()
			addr := freeAddr(t)
			url := "http://" + addr
			args := []string{"--rules", dir, "--project", "acme", "--listen", addr, "--state-dir", state, "--log-format", "json"}
			if tc.flag != "" {
				args = append(args, "--admin-name", tc.flag)
			}
			srv := startServe(t, bin, args...)
			waitHealthy(t, url)
			if log := srv.stderr.String(); !strings.Contains(log, tc.wantLog) || (tc.want != "" && !strings.Contains(log, `"admin_name":"`+tc.want+`"`)) {
				t.Errorf("the start-up log does not say who acts (%s):\n%s", tc.wantLog, log)
			}
			t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", filepath.Join(state, "gateway", "admin-token"))
			code, out, stderr := bridle(t, "approve", "1", "--server", url, "--project", "acme", "--json")
			if tc.want == "" {
				if code == 0 || !strings.Contains(stderr, "--admin-name") || !strings.Contains(stderr, "git config --global user.name") {
					t.Errorf("approve with no one named: exit %d, %s", code, stderr)
				}
				return
			}
			var p proposals.Proposal
			json.Unmarshal([]byte(out), &p)
			if code != 0 || p.MergedBy != tc.want {
				t.Errorf("approve --server: exit %d, merged by %q, want %q; %s", code, p.MergedBy, tc.want, stderr)
			}
		})
	}
}
