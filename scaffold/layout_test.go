package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// project makes a git repository named name with one commit (main.go) and
// another file staged but not committed (wip.go).
func project(t *testing.T, name string) (string, *git.Repository) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	wt.Add("main.go")
	sig := &object.Signature{Name: "Dev", Email: "dev@example.com", When: time.Unix(1e9, 0)}
	if _, err := wt.Commit("code", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "wip.go"), []byte("package main // work in progress\n"), 0o644)
	wt.Add("wip.go")
	return dir, repo
}

// TestInitInAProject: `bridle init rules` in a project puts the rules in
// rules/, the agents' files at the root, and commits exactly those on main,
// leaving the user's staged work staged and uncommitted.
func TestInitInAProject(t *testing.T) {
	dir, repo := project(t, "Acme Shop")
	res, err := Init(filepath.Join(dir, "rules"), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Layout.Rules != "rules" || res.Layout.ID != "acme-shop" || res.Commit == "" || res.NotCommitted != "" {
		t.Fatalf("init: %+v", res)
	}
	c, err := repo.CommitObject(plumbing.NewHash(res.Commit))
	if err != nil {
		t.Fatal(err)
	}
	var committed []string
	files, _ := c.Files()
	files.ForEach(func(f *object.File) error { committed = append(committed, f.Name); return nil })
	want := []string{".gitea/workflows/bridle.yaml", "AGENTS.md", "CLAUDE.md",
		"main.go", "rules/.gitignore", "rules/README.md", "rules/bridle.schema.json", "rules/bridle.yaml"}
	if !slices.Equal(committed, want) {
		t.Errorf("the commit holds\n%v\nwant\n%v", committed, want)
	}
	if c.Author.Name != "Mira" || len(c.ParentHashes) != 1 {
		t.Errorf("commit author %q, parents %d", c.Author.Name, len(c.ParentHashes))
	}
	wt, _ := repo.Worktree()
	st, err := wt.Status()
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range st {
		if name == "wip.go" {
			if s.Staging != git.Added {
				t.Errorf("the user's staged wip.go is no longer staged: %+v", s)
			}
			continue
		}
		t.Errorf("%s is not clean after init: %+v", name, s)
	}
	// What the sidecar serves: main, valid, with the name of the project.
	snap, diags, err := compiler.Compile(compiler.Options{Rules: filepath.Join(dir, "rules"), Ref: "main", BridleVersion: "test"})
	if err != nil || snap == nil {
		t.Fatalf("compile at main: %v %s", err, diags.Error())
	}
	if snap.Approval != nil && len(snap.Approval.Unapproved) > 0 {
		t.Errorf("the scaffold is not the approved baseline: %+v", snap.Approval.Unapproved)
	}
	// The committed renders at the root are current.
	plain, _, _ := compiler.Compile(compiler.Options{Rules: filepath.Join(dir, "rules"), BridleVersion: "test", NoHistory: true})
	findings, err := renderers.Check(dir, plain.Renders)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if f.State != renderers.Current {
			t.Errorf("%s: %s", f.Path, f.State)
		}
	}
	if gi, _ := os.ReadFile(filepath.Join(dir, "rules", "README.md")); !strings.Contains(string(gi), "bridle render --rules rules --all --out . --check") {
		t.Errorf("the rules README does not name the check:\n%s", gi)
	}
}

// TestInitKeepsWhatExists: a project's own CLAUDE.md is kept and left out
// of the commit.
func TestInitKeepsWhatExists(t *testing.T) {
	dir, repo := project(t, "shop")
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("my own notes\n"), 0o644)
	res, err := Init(filepath.Join(dir, "rules"), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Kept, "CLAUDE.md") {
		t.Errorf("kept = %v", res.Kept)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "CLAUDE.md")); string(b) != "my own notes\n" {
		t.Errorf("CLAUDE.md was overwritten: %q", b)
	}
	c, _ := repo.CommitObject(plumbing.NewHash(res.Commit))
	if _, err := c.File("CLAUDE.md"); err == nil {
		t.Error("the user's CLAUDE.md was committed")
	}
}

// TestInitOffMain: on another branch init writes and commits nothing, and
// says why.
func TestInitOffMain(t *testing.T) {
	dir, repo := project(t, "shop")
	wt, _ := repo.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("feature"), Create: true, Keep: true}); err != nil {
		t.Fatal(err)
	}
	main, _ := repo.Reference(plumbing.NewBranchReferenceName("main"), true)
	res, err := Init(filepath.Join(dir, "rules"), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != "" || !strings.Contains(res.NotCommitted, "branch feature") {
		t.Errorf("init on a branch: %+v", res)
	}
	if now, _ := repo.Reference(plumbing.NewBranchReferenceName("main"), true); now.Hash() != main.Hash() {
		t.Error("main moved")
	}
	if _, err := os.Stat(filepath.Join(dir, "rules", "bridle.yaml")); err != nil {
		t.Error("the files were not written")
	}
}

// TestInitNames: a rules directory named for what it is takes its
// project's name; ids are YAML strings as written.
func TestInitNames(t *testing.T) {
	base := filepath.Join(t.TempDir(), "acme")
	res, err := Init(filepath.Join(base, "rules"), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Layout.ID != "acme" || !res.Created || res.Layout.Rules != "." {
		t.Errorf("init: %+v", res.Layout)
	}
	readme, _ := os.ReadFile(filepath.Join(base, "rules", "README.md"))
	if !strings.HasPrefix(string(readme), "# acme rules\n") {
		t.Errorf("README: %.40q", readme)
	}
	for in, want := range map[string]string{"2024": "project-2024", "true": "project-true", "My Rules": "my-rules", "_x_": "x"} {
		if got := ProjectID(in); got != want {
			t.Errorf("ProjectID(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSchemaHintResolves: the editor hint in bridle.yaml names a file the
// scaffold writes beside it, holding the schema.
func TestSchemaHintResolves(t *testing.T) {
	files, err := Files("x", "test")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(files["bridle.yaml"]), "\n")
	hint, ok := strings.CutPrefix(first, "# yaml-language-server: $schema=")
	if !ok || !bytes.Equal(files[filepath.ToSlash(filepath.Clean(hint))], schema.JSON()) {
		t.Errorf("hint %q does not resolve to the schema among %d files", first, len(files))
	}
}

// installStep is the shell script of the workflow's "Install bridle" step.
func installStep(t *testing.T, wf []byte) string {
	t.Helper()
	var doc struct {
		Jobs map[string]struct {
			Steps []struct{ Name, Run string }
		}
	}
	if err := yaml.Unmarshal(wf, &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range doc.Jobs["check"].Steps {
		if s.Name == "Install bridle" {
			return s.Run
		}
	}
	t.Fatal("no Install bridle step")
	return ""
}

// TestWorkflowInstallsBridle runs the workflow's install step as a runner
// would: from BRIDLE_URL (a download), from BRIDLE_MODULE (go install, with
// a stand-in go that records its arguments), and with neither (a clear
// error instead of a go install that cannot work).
func TestWorkflowInstallsBridle(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script := installStep(t, Layout{ID: "x", Rules: "rules"}.workflow())
	tmp := t.TempDir()
	fake := filepath.Join(tmp, "bridle-linux-amd64")
	os.WriteFile(fake, []byte("#!/bin/sh\necho \"bridle fake $*\"\n"), 0o755)
	goBin := filepath.Join(tmp, "gobin")
	os.MkdirAll(goBin, 0o755)
	os.WriteFile(filepath.Join(goBin, "go"), []byte("#!/bin/sh\n"+
		"if [ \"$1\" = env ]; then echo "+tmp+"/gopath; exit 0; fi\n"+
		"echo \"$@\" > "+tmp+"/go-args\nmkdir -p "+tmp+"/gopath/bin\ncp "+fake+" "+tmp+"/gopath/bin/bridle\n"), 0o755)
	run := func(env ...string) (string, string, error) {
		ghPath := filepath.Join(t.TempDir(), "github_path")
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = append([]string{"PATH=" + goBin + ":/usr/bin:/bin", "RUNNER_TEMP=" + t.TempDir(), "GITHUB_PATH=" + ghPath,
			"BRIDLE_SERVER=", "BRIDLE_URL=", "BRIDLE_MODULE="}, env...)
		out, err := cmd.CombinedOutput()
		added, _ := os.ReadFile(ghPath)
		return string(out), string(added), err
	}
	if _, err := exec.LookPath("curl"); err == nil {
		out, added, err := run("BRIDLE_URL=file://" + fake)
		if err != nil || !strings.Contains(out, "bridle fake version") || !strings.HasSuffix(strings.TrimSpace(added), "bridle-bin") {
			t.Errorf("BRIDLE_URL: %v\n%s\nGITHUB_PATH: %q", err, out, added)
		}
	}
	out, added, err := run("BRIDLE_MODULE=gitea.example.com/acme/bridle/cmd/bridle@v0.1.0")
	args, _ := os.ReadFile(filepath.Join(tmp, "go-args"))
	if err != nil || strings.TrimSpace(string(args)) != "install gitea.example.com/acme/bridle/cmd/bridle@v0.1.0" ||
		!strings.Contains(out, "bridle fake version") || strings.TrimSpace(added) != tmp+"/gopath/bin" {
		t.Errorf("BRIDLE_MODULE: %v\n%s\ngo %s\nGITHUB_PATH: %q", err, out, args, added)
	}
	if _, err := exec.LookPath("curl"); err == nil {
		// A gateway whose checksum does not match what it sent: the step
		// fails, and nothing is put on the PATH. (cmd/bridle's
		// TestWorkflowInstallsFromTheGateway runs it against a gateway.)
		bin, _ := os.ReadFile(fake)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/download/bridle-linux-amd64":
				w.Write(bin)
			case "/download/bridle-linux-amd64.sha256":
				fmt.Fprintf(w, "%064x  bridle-linux-amd64\n", 0)
			default:
				http.NotFound(w, r)
			}
		}))
		defer srv.Close()
		out, added, err := run("BRIDLE_SERVER=" + srv.URL + "/")
		if err == nil || !strings.Contains(out, "FAILED") || added != "" {
			t.Errorf("BRIDLE_SERVER with a wrong checksum: %v\n%s\nGITHUB_PATH: %q", err, out, added)
		}
	}
	// Plain http from another machine is refused before anything is
	// fetched, however the variable was set (init refuses it too).
	for _, v := range []string{"BRIDLE_SERVER=http://10.0.0.5:7777", "BRIDLE_SERVER=HTTP://bridle.example.com/", "BRIDLE_URL=http://localhost.example.com/bridle",
		"BRIDLE_URL=http://127.0.0.1@evil.example.com/bridle", "BRIDLE_SERVER=http://[::2]:7777"} {
		out, added, err := run(v, "PATH=/nonexistent")
		if err == nil || !strings.Contains(out, "::error::") || !strings.Contains(out, "use https") || added != "" {
			t.Errorf("%s: %v\n%s\nGITHUB_PATH: %q", v, err, out, added)
		}
	}
	out, _, err = run()
	if err == nil || !strings.Contains(out, "::error::") || !strings.Contains(out, "BRIDLE_SERVER") {
		t.Errorf("neither set: %v\n%s", err, out)
	}
	if _, err := (Layout{ID: "x", BridleURL: "https://x/'; rm -rf /"}).Files("test"); err == nil {
		t.Error("a setting that breaks out of its quotes was written into the workflow")
	}
	for _, bad := range []string{"ftp://gateway", "gateway.example.com", "https://x/?a=b", "https://x/'"} {
		if _, err := (Layout{ID: "x", BridleServer: bad}).Files("test"); !errors.Is(err, ErrBadSetting) {
			t.Errorf("server %q: %v, want ErrBadSetting", bad, err)
		}
	}
	wf := string(Layout{ID: "x", BridleURL: "https://gitea.example.com/bridle"}.workflow())
	if !strings.Contains(wf, "BRIDLE_URL: ${{ vars.BRIDLE_URL || 'https://gitea.example.com/bridle' }}") {
		t.Errorf("the default is not in the workflow:\n%s", wf)
	}
}

// TestInstallURLs: the CI downloads Bridle over https, or over http from
// this machine only — over plain http from another, anyone on the path
// could hand it a binary to run; a server URL is an absolute http(s) URL
// with a host and no user, query or fragment.
func TestInstallURLs(t *testing.T) {
	tests := []struct {
		server, bridleURL string
		want              error // nil, ErrBadSetting or ErrPlainHTTP (also ErrBadSetting)
	}{
		{"https://bridle.example.com", "", nil},
		{"https://bridle.example.com:7777/gateway/", "", nil},
		{"http://127.0.0.1:7777", "", nil},
		{"http://127.8.9.10:7777", "", nil},
		{"http://localhost:7777", "", nil},
		{"HTTP://LOCALHOST:7777", "", nil},
		{"http://[::1]:7777", "", nil},
		{"http://10.0.0.5:7777", "", ErrPlainHTTP},
		{"HTTP://10.0.0.5:7777", "", ErrPlainHTTP},
		{"http://bridle.example.com", "", ErrPlainHTTP},
		{"http://localhost.example.com:7777", "", ErrPlainHTTP},
		{"http://127.0.0.1.example.com", "", ErrPlainHTTP},
		{"http://[::2]:7777", "", ErrPlainHTTP},
		{"http://[fe80::1%25eth0]:7777", "", ErrPlainHTTP},
		{"http://2130706433", "", ErrPlainHTTP},
		{"ftp://gateway", "", ErrBadSetting},
		{"gateway.example.com", "", ErrBadSetting},
		{"//gateway.example.com", "", ErrBadSetting},
		{"https:gateway.example.com", "", ErrBadSetting},
		{"https://", "", ErrBadSetting},
		{"https://:443", "", ErrBadSetting},
		{"https://x/?a=b", "", ErrBadSetting},
		{"https://x/?", "", ErrBadSetting},
		{"https://x/#top", "", ErrBadSetting},
		{"https://x/#", "", ErrBadSetting},
		{"https://mira:secret@x/", "", ErrBadSetting},
		{"https://x/'", "", ErrBadSetting},
		{"", "https://gitea.example.com/api/packages/acme/generic/bridle/v1/bridle-linux-amd64", nil},
		{"", "http://127.0.0.1:8080/bridle", nil},
		{"", "http://gitea.example.com/bridle", ErrPlainHTTP},
		{"", "https://mira:secret@gitea.example.com/bridle", ErrBadSetting},
	}
	for _, tt := range tests {
		_, err := Layout{ID: "x", BridleServer: tt.server, BridleURL: tt.bridleURL}.Files("test")
		switch {
		case tt.want == nil && err != nil:
			t.Errorf("server %q, URL %q: %v", tt.server, tt.bridleURL, err)
		case tt.want != nil && !errors.Is(err, tt.want):
			t.Errorf("server %q, URL %q: %v, want %v", tt.server, tt.bridleURL, err, tt.want)
		case tt.want == ErrPlainHTTP && !strings.Contains(err.Error(), "use https"):
			t.Errorf("server %q, URL %q: %v does not say to use https", tt.server, tt.bridleURL, err)
		case tt.want != nil && !errors.Is(err, ErrBadSetting):
			t.Errorf("server %q, URL %q: %v is not ErrBadSetting (init's usage error)", tt.server, tt.bridleURL, err)
		case tt.want == ErrBadSetting && errors.Is(err, ErrPlainHTTP):
			t.Errorf("server %q, URL %q: %v is not about plain http", tt.server, tt.bridleURL, err)
		}
	}
}

// FuzzInstallURL: a server URL accepted is https, or http to the
// loopback, with a host and no user, query or fragment; no input panics.
func FuzzInstallURL(f *testing.F) {
	for _, s := range []string{"https://bridle.example.com", "http://127.0.0.1:7777", "http://[::1]:7777", "http://10.0.0.5:7777",
		"http://localhost@evil.example.com", "http://127.0.0.1%2eevil.example.com", "https://x/?a", "http://[::ffff:127.0.0.1]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if checkServer(raw) != nil || raw == "" {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || u.User != nil || strings.ContainsAny(raw, "?#") || (u.Scheme != "https" && !loopbackHost(u.Hostname())) {
			t.Fatalf("server %q accepted", raw)
		}
		checkBinaryURL(raw)
	})
}

// TestInitWithImportedRules: Options.Rules is the bridle.yaml committed,
// and the files Options.Replace names (the agent files bridle import read)
// become the renders; other existing files are still kept.
func TestInitWithImportedRules(t *testing.T) {
	dir, repo := project(t, "shop")
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("- Never push to main.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("my own notes\n"), 0o644)
	base, err := Base("shop", []string{"claude", "codex"})
	if err != nil {
		t.Fatal(err)
	}
	if len(base.AgentProfiles) != 2 || !base.Permissions["claude"].Rules.Propose {
		t.Fatalf("Base lacks the template's profiles and permissions: %+v", base)
	}
	rules := []byte("schema_version: 1\nproject: {id: shop}\nguardrails:\n  - {id: no-push-main, statement: Never push to main., severity: hard-instruction}\nagent_profiles: {claude: {}, codex: {}}\n")
	o := testOptions()
	o.Agents, o.Rules, o.Replace = []string{"claude", "codex"}, rules, []string{"CLAUDE.md"}
	res, err := Init(filepath.Join(dir, "rules"), o)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "rules", "bridle.yaml")); !bytes.Equal(b, rules) {
		t.Errorf("bridle.yaml is not the imported rules:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "CLAUDE.md")); !bytes.HasPrefix(b, []byte(renderers.HeaderStart)) || !bytes.Contains(b, []byte("no-push-main")) {
		t.Errorf("CLAUDE.md is not the render:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md")); string(b) != "my own notes\n" || !slices.Contains(res.Kept, "AGENTS.md") {
		t.Errorf("AGENTS.md, not named in Replace, was overwritten: %q (kept %v)", b, res.Kept)
	}
	c, _ := repo.CommitObject(plumbing.NewHash(res.Commit))
	if _, err := c.File("CLAUDE.md"); err != nil {
		t.Error("the render of CLAUDE.md was not committed")
	}
}
