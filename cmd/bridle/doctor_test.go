package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// runDoctorJSON runs bridle doctor --json and returns its exit code and findings
// by check.
func runDoctorJSON(t *testing.T, args ...string) (int, map[string]finding) {
	t.Helper()
	code, out, stderr := bridle(t, append([]string{"doctor", "--json"}, args...)...)
	var fs []finding
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, stderr)
	}
	by := map[string]finding{}
	for _, f := range fs {
		by[f.Check] = f
	}
	return code, by
}

// Each trap of a first week, provoked: doctor finds it, says the command
// that fixes it, and exits 1 on a failure.
func TestDoctorFindsEachTrap(t *testing.T) {
	t.Setenv("BRIDLE_SOPS", "")
	t.Setenv("PATH", "/usr/bin:/bin") // no bridle-sops
	t.Setenv("SOPS_AGE_KEY_FILE", "")
	t.Setenv("BRIDLE_SERVER", "")
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", "")
	t.Setenv("BRIDLE_TOKEN_CLAUDE", "")

	t.Run("a healthy set-up", func(t *testing.T) {
		isolated(t)
		dir := rulesInit(t)
		project := filepath.Dir(dir)
		mustRun(t, "install", "claude", "--project", project, "--rules", dir)
		code, by := runDoctorJSON(t, "--rules", dir, "--project", project)
		for _, c := range []string{"git identity", "rules", "sidecar", "agent claude"} {
			if by[c].Status != statusOK {
				t.Errorf("%s: %+v", c, by[c])
			}
		}
		if code != 0 || !strings.Contains(by["agent claude"].Note, "approve") {
			t.Errorf("exit %d; claude's trust step is not noted: %+v", code, by["agent claude"])
		}
	})
	t.Run("no git identity", func(t *testing.T) {
		isolated(t)
		dir := rulesInit(t)
		noIdentity(t)
		code, by := runDoctorJSON(t, "--rules", dir, "--project", filepath.Dir(dir))
		if f := by["git identity"]; code != exitFailure || f.Status != statusFail || !strings.Contains(f.Fix, "git config --global user.name") {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	t.Run("rules not committed", func(t *testing.T) {
		isolated(t)
		dir := t.TempDir()
		exec.Command("git", "init", "-q", dir).Run()
		b, _ := os.ReadFile(filepath.Join(example, "bridle.yaml"))
		os.WriteFile(filepath.Join(dir, "bridle.yaml"), b, 0o644)
		code, by := runDoctorJSON(t, "--rules", dir, "--project", dir)
		if f := by["rules"]; code != exitFailure || f.Status != statusFail || !strings.Contains(f.Fix, "commit") {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	t.Run("the work tree on another branch than the rules'", func(t *testing.T) {
		isolated(t)
		dir := rulesInit(t) // committed, and its branch recorded
		exec.Command("git", "-C", dir, "config", "bridle.branch", "release").Run()
		code, by := runDoctorJSON(t, "--rules", dir, "--project", filepath.Dir(dir))
		if f := by["rules"]; code != exitFailure || f.Status != statusFail || !strings.Contains(f.Summary, "release, the rules' branch") ||
			!strings.Contains(f.Fix, "git -C") || !strings.Contains(f.Fix, "config bridle.branch") {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	t.Run("a CI workflow that cannot install bridle", func(t *testing.T) {
		isolated(t)
		dir := rulesInit(t)
		root := strings.TrimSpace(string(must(exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output())))
		wf := filepath.Join(root, ".gitea", "workflows", "bridle.yaml")
		b, err := os.ReadFile(wf)
		if err != nil {
			t.Fatal(err)
		}
		// As bridle init writes it: repository variables only.
		_, by := runDoctorJSON(t, "--rules", dir, "--project", filepath.Dir(dir))
		if f := by["ci"]; f.Status != statusWarn || !strings.Contains(f.Fix, "repository variable BRIDLE_SERVER") {
			t.Errorf("no install source: %+v", f)
		}
		// A gateway that does not serve its binary.
		dead := httptest.NewServer(http.NotFoundHandler())
		defer dead.Close()
		withServer := func(url string) {
			os.WriteFile(wf, []byte(strings.Replace(string(b), "vars.BRIDLE_SERVER || ''", "vars.BRIDLE_SERVER || '"+url+"'", 1)), 0o644)
		}
		withServer(dead.URL)
		code, by := runDoctorJSON(t, "--rules", dir, "--project", filepath.Dir(dir), "--server", dead.URL)
		if f := by["ci"]; code != exitFailure || f.Status != statusFail || !strings.Contains(f.Summary, "404") {
			t.Errorf("a gateway without its binary: exit %d, %+v", code, f)
		}
		live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/download/bridle-linux-amd64.sha256" {
				w.Write([]byte("0123  bridle-linux-amd64\n"))
				return
			}
			http.NotFound(w, r)
		}))
		defer live.Close()
		withServer(live.URL)
		if _, by := runDoctorJSON(t, "--rules", dir, "--project", filepath.Dir(dir), "--server", live.URL); by["ci"].Status != statusOK {
			t.Errorf("a gateway serving its binary: %+v", by["ci"])
		}
	})
	t.Run("a vault with no helper and no identity", func(t *testing.T) {
		isolated(t)
		dir := rulesInit(t)
		os.WriteFile(filepath.Join(dir, ".sops.yaml"), []byte("creation_rules:\n  - age: age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "secrets.enc.yaml"), []byte("x: y\n"), 0o644)
		code, by := runDoctorJSON(t, "--rules", dir, "--project", filepath.Dir(dir))
		if f := by["sops helper"]; code != exitFailure || f.Status != statusFail || !strings.Contains(f.Fix, "go install ./cmd/bridle-sops") {
			t.Errorf("helper: exit %d, %+v", code, f)
		}
		if f := by["age identity"]; f.Status != statusFail || !strings.Contains(f.Fix, "bridle secrets init") {
			t.Errorf("identity: %+v", f)
		}
	})
	t.Run("an agent on other rules", func(t *testing.T) {
		isolated(t)
		dir, other := rulesInit(t), rulesInit(t)
		project := filepath.Dir(dir)
		mustRun(t, "install", "claude", "--project", project, "--rules", other)
		code, by := runDoctorJSON(t, "--rules", dir, "--project", project)
		if f := by["agent claude"]; code != exitFailure || f.Status != statusFail || !strings.Contains(f.Summary, other) || !strings.Contains(f.Fix, "bridle install claude") {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	t.Run("the gateway", func(t *testing.T) {
		isolated(t)
		dir := rulesInit(t)
		project := filepath.Dir(dir)
		url, admin := testGateway(t, "acme", dir)
		mustRun(t, "install", "claude", "--server", url, "--project", "acme", "--dir", project)
		// The token variable the entry names is not set.
		code, by := runDoctorJSON(t, "--rules", dir, "--project", project, "--server", url, "--admin-token-file", admin)
		if f := by["agent claude"]; code != exitFailure || f.Status != statusFail || !strings.Contains(f.Summary, "BRIDLE_TOKEN_CLAUDE") || !strings.Contains(f.Fix, "bridle agents add") {
			t.Errorf("no token: exit %d, %+v", code, f)
		}
		if f := by["gateway"]; f.Status != statusOK {
			t.Errorf("the gateway's view: %+v", f)
		}
		// A token the gateway refuses.
		t.Setenv("BRIDLE_TOKEN_CLAUDE", "bridle_not-a-token-0123456789")
		if _, by := runDoctorJSON(t, "--rules", dir, "--project", project, "--server", url); by["agent claude"].Status != statusFail || !strings.Contains(by["agent claude"].Fix, "rotate") {
			t.Errorf("a refused token: %+v", by["agent claude"])
		}
		// A real one.
		t.Setenv("BRIDLE_SERVER", url)
		t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", admin)
		_, out, _ := bridle(t, "agents", "add", "--project", "acme", "--agent", "claude")
		t.Setenv("BRIDLE_TOKEN_CLAUDE", strings.TrimSpace(out))
		if code, by := runDoctorJSON(t, "--rules", dir, "--project", project); code != 0 || by["agent claude"].Status != statusOK {
			t.Errorf("a good token: exit %d, %+v", code, by["agent claude"])
		}
		// Another repository on the gateway than the sidecar's.
		other := rulesInit(t)
		if code, _, stderr := proposeGuardrail(t, other, "other-rule", "--as", "Alice Agent"); code != 0 {
			t.Fatal(stderr)
		}
		mustRun(t, "approve", "1", "--rules", other)
		url2, admin2 := testGateway(t, "acme", other)
		if _, by := runDoctorJSON(t, "--rules", dir, "--project", project, "--server", url2, "--admin-token-file", admin2); by["gateway"].Status != statusWarn {
			t.Errorf("different rules: %+v", by["gateway"])
		}
	})
	t.Run("a gateway that does not answer", func(t *testing.T) {
		isolated(t)
		dir := rulesInit(t)
		code, by := runDoctorJSON(t, "--rules", dir, "--project", filepath.Dir(dir), "--server", "http://"+freeAddr(t))
		if f := by["gateway"]; code != exitFailure || f.Status != statusFail || !strings.Contains(f.Fix, "bridle serve") {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
}

// TestDoctorSendsNoTokenToTheProjectsURL: a cloned repository chooses the
// gateway URL its agent configuration and CI workflow name; doctor presents
// a token only to the gateway the user named (--server, BRIDLE_SERVER: the
// same scheme, host and port, under its /p/), and asks nothing of another.
func TestDoctorSendsNoTokenToTheProjectsURL(t *testing.T) {
	isolated(t)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", "")
	const secret = "bridle_agent-secret-0123456789abcdef"
	t.Setenv("BRIDLE_TOKEN_CLAUDE", secret)
	var mu sync.Mutex
	var seen []string // method, path and Authorization of each request
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	defer hostile.Close()
	dir := rulesInit(t)
	project := filepath.Dir(dir)
	// What the hostile repository commits: an HTTP entry naming its URL
	// and the user's token variable, and its URL as the CI's gateway.
	mustRun(t, "install", "claude", "--server", hostile.URL, "--project", "acme", "--dir", project)
	root := strings.TrimSpace(string(must(exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output())))
	wf := filepath.Join(root, ".gitea", "workflows", "bridle.yaml")
	b := must(os.ReadFile(wf))
	os.WriteFile(wf, []byte(strings.Replace(string(b), "vars.BRIDLE_SERVER || ''", "vars.BRIDLE_SERVER || '"+hostile.URL+"'", 1)), 0o644)

	mine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer mine.Close()
	for _, tc := range []struct{ name, server, env string }{
		{"no gateway named", "", ""},
		{"--server another gateway", mine.URL, ""},
		{"BRIDLE_SERVER another gateway", "", mine.URL},
		{"another scheme", "", strings.Replace(hostile.URL, "http:", "https:", 1)},
		{"another port", "http://" + freeAddr(t), ""},
		// other host names and paths: TestDoctorNamedGateway
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("BRIDLE_SERVER", tc.env)
			args := []string{"--rules", dir, "--project", project}
			if tc.server != "" {
				args = append(args, "--server", tc.server)
			}
			_, by := runDoctorJSON(t, args...)
			if f := by["agent claude"]; f.Status != statusWarn || !strings.Contains(f.Summary, "token not checked") || !strings.Contains(f.Fix, "bridle doctor --server URL") {
				t.Errorf("agent claude: %+v", f)
			}
			if f := by["ci"]; f.Status != statusOK || !strings.Contains(f.Summary, "not checked") || !strings.Contains(f.Summary, hostile.URL) {
				t.Errorf("ci: %+v", f)
			}
		})
	}
	asked := func() []string {
		mu.Lock()
		defer mu.Unlock()
		got := seen
		seen = nil
		return got
	}
	if got := asked(); len(got) > 0 {
		t.Errorf("doctor contacted the URL the project names:\n%s", strings.Join(got, "\n"))
	}
	// Named by the user, it is asked.
	t.Setenv("BRIDLE_SERVER", "")
	_, by := runDoctorJSON(t, "--rules", dir, "--project", project, "--server", hostile.URL+"/")
	if got := asked(); !slices.Contains(got, "POST /p/acme/mcp Bearer "+secret) || by["agent claude"].Status != statusOK || !strings.Contains(by["ci"].Summary, "checksummed") {
		t.Errorf("the named gateway: %+v, %+v, asked:\n%s", by["agent claude"], by["ci"], strings.Join(got, "\n"))
	}
}

// TestDoctorNoTokenInClear: a token never crosses the network over plain
// http, even to the gateway the user named; only this machine is asked so.
func TestDoctorNoTokenInClear(t *testing.T) {
	isolated(t)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", "")
	t.Setenv("BRIDLE_SERVER", "")
	t.Setenv("BRIDLE_TOKEN_CLAUDE", "bridle_agent-secret-0123456789abcdef")
	dir := rulesInit(t)
	project := filepath.Dir(dir)
	const far = "http://gateway.invalid:7777" // never resolves (RFC 6761)
	mustRun(t, "install", "claude", "--server", far, "--project", "acme", "--dir", project)
	_, by := runDoctorJSON(t, "--rules", dir, "--project", project, "--server", far)
	if f := by["agent claude"]; f.Status != statusWarn || !strings.Contains(f.Summary, "in clear") || !strings.Contains(f.Fix, "https") {
		t.Errorf("agent claude: %+v", f)
	}
}

// TestDoctorValuesAreInert: a value a file holds (the workflow's gateway)
// cannot drive the terminal through doctor's findings.
func TestDoctorValuesAreInert(t *testing.T) {
	isolated(t)
	t.Setenv("BRIDLE_SERVER", "")
	dir := rulesInit(t)
	root := strings.TrimSpace(string(must(exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output())))
	wf := filepath.Join(root, ".gitea", "workflows", "bridle.yaml")
	b := must(os.ReadFile(wf))
	hostile := strings.Replace(string(b), "BRIDLE_SERVER: ${{ vars.BRIDLE_SERVER || '' }}", `BRIDLE_SERVER: "${{ vars.BRIDLE_SERVER || 'https://gw.example/\e]0;PWNED\a\e[2J\u202e' }}"`, 1)
	if hostile == string(b) {
		t.Fatal("the workflow has no BRIDLE_SERVER default to replace")
	}
	os.WriteFile(wf, []byte(hostile), 0o644)
	for _, args := range [][]string{{"doctor"}, {"doctor", "--json"}} {
		_, out, stderr := bridle(t, append(args, "--rules", dir, "--project", filepath.Dir(dir))...)
		if strings.ContainsAny(out+stderr, "\x1b\x07\u202e") || !strings.Contains(out, "gw.example") {
			t.Errorf("%s: control characters reach the terminal:\n%q", args, out+stderr)
		}
	}
}

func TestDoctorNamedGateway(t *testing.T) {
	tests := []struct {
		server, endpoint string
		want             bool
	}{
		{"http://127.0.0.1:7777", "http://127.0.0.1:7777/p/acme/mcp", true},
		{"http://127.0.0.1:7777/", "http://127.0.0.1:7777/p/acme/mcp", true},
		{"https://gw.example", "https://GW.example:443/p/acme/mcp", true},
		{"https://gw.example/bridle", "https://gw.example/bridle/p/acme/mcp", true},
		{"", "http://127.0.0.1:7777/p/acme/mcp", false},
		{"http://127.0.0.1:7777", "http://127.0.0.1:7778/p/acme/mcp", false},
		{"http://127.0.0.1:7777", "https://127.0.0.1:7777/p/acme/mcp", false},
		{"http://127.0.0.1:7777", "http://localhost:7777/p/acme/mcp", false},
		{"http://127.0.0.1:7777", "http://127.0.0.1:7777@evil.example/p/acme/mcp", false},
		{"http://127.0.0.1:7777", "http://127.0.0.1:7777/admin/agents", false},
		{"http://127.0.0.1:7777", "http://127.0.0.1:7777/p/../admin/agents", false},
		{"https://gw.example/bridle", "https://gw.example/p/acme/mcp", false},
	}
	for _, tc := range tests {
		d := &doctor{o: doctorOptions{server: tc.server}}
		u := must(url.Parse(tc.endpoint))
		if _, got := d.namedGateway(u); got != tc.want {
			t.Errorf("server %q, endpoint %q: %v, want %v", tc.server, tc.endpoint, got, tc.want)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
