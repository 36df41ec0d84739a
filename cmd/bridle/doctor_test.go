package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
		code, by := runDoctorJSON(t, "--rules", dir, "--project", filepath.Dir(dir))
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
		if _, by := runDoctorJSON(t, "--rules", dir, "--project", filepath.Dir(dir)); by["ci"].Status != statusOK {
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
		if _, by := runDoctorJSON(t, "--rules", dir, "--project", project); by["agent claude"].Status != statusFail || !strings.Contains(by["agent claude"].Fix, "rotate") {
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

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
