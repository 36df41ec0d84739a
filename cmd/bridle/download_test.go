package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/scaffold"
)

// TestWorkflowInstallsFromTheGateway: bridle init --server URL writes a CI
// workflow whose install step, run with bash as a runner would, downloads
// the gateway's own binary, checks its checksum and runs it; nothing is
// published anywhere.
func TestWorkflowInstallsFromTheGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bridle")
	}
	if runtime.GOOS+"-"+runtime.GOARCH != gateway.DownloadPlatform {
		t.Skip("the gateway serves its binary on " + gateway.DownloadPlatform + " only")
	}
	for _, tool := range []string{"bash", "curl", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
	}
	isolated(t)
	bin := builtBridle(t)
	dir := rulesInit(t)
	url, _ := testGatewayWith(t, "acme", dir, gateway.Options{Version: "test", Executable: func() (string, error) { return bin, nil }})

	rules := filepath.Join(t.TempDir(), "acme-rules")
	mustRun(t, "init", rules, "--server", url)
	wf, err := os.ReadFile(filepath.Join(rules, filepath.FromSlash(scaffold.WorkflowPath)))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Env  map[string]string
		Jobs map[string]struct {
			Steps []struct{ Name, Run string }
		}
	}
	if err := yaml.Unmarshal(wf, &doc); err != nil {
		t.Fatal(err)
	}
	if want := "${{ vars.BRIDLE_SERVER || '" + url + "' }}"; doc.Env["BRIDLE_SERVER"] != want {
		t.Fatalf("the workflow's BRIDLE_SERVER is %q, want %q", doc.Env["BRIDLE_SERVER"], want)
	}
	for _, job := range []string{"check", "publish"} {
		var script string
		for _, s := range doc.Jobs[job].Steps {
			if s.Name == "Install bridle" {
				script = s.Run
			}
		}
		if script == "" {
			t.Fatalf("job %s has no Install bridle step", job)
		}
		runner, ghPath := t.TempDir(), filepath.Join(t.TempDir(), "github_path")
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = rules
		cmd.Env = []string{"PATH=/usr/bin:/bin", "RUNNER_TEMP=" + runner, "GITHUB_PATH=" + ghPath,
			"BRIDLE_SERVER=" + url, "BRIDLE_URL=", "BRIDLE_MODULE=", "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		added, _ := os.ReadFile(ghPath)
		if err != nil || !strings.Contains(string(out), "bridle-linux-amd64: OK") || !strings.Contains(string(out), "bridle ") ||
			strings.TrimSpace(string(added)) != filepath.Join(runner, "bridle-bin") {
			t.Fatalf("job %s's install step: %v\n%s\nGITHUB_PATH: %q", job, err, out, added)
		}
		v, err := exec.Command(filepath.Join(runner, "bridle-bin", "bridle"), "validate", "--rules", rules).CombinedOutput()
		if err != nil {
			t.Errorf("the downloaded bridle does not validate the rules: %v\n%s", err, v)
		}
	}
}

var (
	bridleOnce sync.Once
	bridlePath string
	bridleErr  error
)

// builtBridle builds this checkout's bridle once per test run, for tests
// that run it as a program (a CI script, a guide's block).
func builtBridle(t testing.TB) string {
	t.Helper()
	bridleOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bridle-bin")
		if err != nil {
			bridleErr = err
			return
		}
		bridlePath = filepath.Join(dir, "bridle")
		if out, err := exec.Command("go", "build", "-o", bridlePath, ".").CombinedOutput(); err != nil {
			bridleErr = fmt.Errorf("go build bridle: %v\n%s", err, out)
		}
	})
	if bridleErr != nil {
		t.Fatal(bridleErr)
	}
	return bridlePath
}
