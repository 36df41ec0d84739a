package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/vendorsync"
)

// The vendor feed's loop on a local rules repository: a sync opens one
// proposal with the document's rules as suggestions; approved, they are
// profile data; a second sync of the same document opens nothing; a
// changed document brings the new rule and withdraws the gone one; a
// dismissed suggestion is not promoted; a promoted one, approved, renders
// as suggested by the vendor and approved by the human.
func TestVendorSyncLoop(t *testing.T) {
	isolated(t)
	var mu sync.Mutex
	page := "# Guide\n\n## Working rules\n\n- Always run the tests before you commit.\n- Never push to main directly.\n\n## Example\n\n- You must not copy this example.\n"
	etagServed := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		etag := `"` + strconv.Itoa(len(page)) + `"`
		if r.Header.Get("If-None-Match") == etag {
			etagServed++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("ETag", etag)
		w.Write([]byte(page))
	}))
	defer srv.Close()

	dir := vendorRules(t, srv.URL+"/memory.md")
	sync := func() []vendorsync.Result {
		t.Helper()
		code, out, stderr := bridle(t, "vendor", "sync", "--rules", dir, "--json")
		if code != 0 {
			t.Fatalf("sync: %d %s", code, stderr)
		}
		var rs []vendorsync.Result
		if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 {
			t.Fatalf("sync output: %v %s", err, out)
		}
		return rs
	}
	approve := func(n int) {
		t.Helper()
		if code, _, stderr := bridle(t, "approve", strconv.Itoa(n), "--rules", dir, "--self"); code != 0 {
			t.Fatalf("approve #%d: %s", n, stderr)
		}
	}

	r := sync()[0]
	if r.Proposal == nil || len(r.New) != 2 || len(r.Withdrawn) != 0 {
		t.Fatalf("first sync: %+v", r)
	}
	for _, id := range r.New {
		if strings.Contains(id, "example") {
			t.Errorf("an example became a suggestion: %v", r.New)
		}
	}
	approve(*r.Proposal)
	if r := sync()[0]; r.Proposal != nil || len(r.New) != 0 {
		t.Errorf("a second sync of the same document: %+v", r)
	}
	if etagServed == 0 {
		t.Error("the second sync did not send a conditional request")
	}

	mu.Lock()
	page = "# Guide\n\n## Working rules\n\n- Always run the tests before you commit.\n- You should keep pull requests small.\n"
	mu.Unlock()
	r = sync()[0]
	if r.Proposal == nil || len(r.New) != 1 || len(r.Withdrawn) != 1 || !strings.Contains(r.Withdrawn[0], "push") {
		t.Fatalf("sync of a changed document: %+v", r)
	}
	approve(*r.Proposal)

	code, out, stderr := bridle(t, "vendor", "dismiss", "claude", r.New[0], "--rules", dir, "--why", "not for us", "--json")
	if code != 0 {
		t.Fatalf("dismiss: %s", stderr)
	}
	var p struct{ Number int }
	json.Unmarshal([]byte(out), &p)
	approve(p.Number)
	if code, _, stderr := bridle(t, "vendor", "promote", "claude", r.New[0], "--rules", dir, "--why", "x"); code != exitUsage || !strings.Contains(stderr, "dismissed") {
		t.Errorf("promoting a dismissed suggestion: %d %s", code, stderr)
	}
	first := "always-run-the-tests-before-you-commit"
	code, out, stderr = bridle(t, "vendor", "promote", "claude", first, "--severity", "hard-instruction", "--rules", dir, "--why", "we want this", "--json")
	if code != 0 {
		t.Fatalf("promote: %s", stderr)
	}
	json.Unmarshal([]byte(out), &p)
	approve(p.Number)
	code, out, _ = bridle(t, "render", "--rules", dir, "--ref", "main", "--agent", "claude")
	if code != 0 || !strings.Contains(out, "Always run the tests before you commit.") || !strings.Contains(out, "suggested by Anthropic") || !strings.Contains(out, "approved by Mira Okafor") {
		t.Errorf("the promoted guardrail's render:\n%s", out)
	}
	// Unchanged again: nothing opens; dismissed ones do not come back.
	if r := sync()[0]; r.Proposal != nil {
		t.Errorf("a sync after all that: %+v", r)
	}
}

// A vendor document that carries a known secret (a mirror's, say) opens no
// proposal: the text would be committed and shown in the pull request,
// where nothing could mask it afterwards.
func TestVendorSyncRefusesASecret(t *testing.T) {
	isolated(t)
	const canary = "canary-secret-7f3a9c1e"
	t.Setenv("MIRROR_TOKEN", canary)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Guide\n\n- Always send the header " + canary + " to the mirror.\n"))
	}))
	defer srv.Close()
	dir := vendorRules(t, srv.URL+"/g.md")
	code, out, stderr := bridle(t, "vendor", "sync", "--rules", dir, "--json")
	var rs []vendorsync.Result
	json.Unmarshal([]byte(out), &rs)
	if code != exitFailure || len(rs) != 1 || rs[0].Proposal != nil || len(rs[0].Errors) == 0 {
		t.Errorf("a sync of a document holding a secret: exit %d %+v %s", code, rs, stderr)
	}
	if strings.Contains(out+stderr, canary) {
		t.Error("the secret is in the sync's output")
	}
	if code, out, _ := bridle(t, "proposals", "list", "--rules", dir, "--state", "all", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("proposals after the refused sync: %s", out)
	}
}

// scaffoldSources matches a scaffold profile's default vendor_sources.
var scaffoldSources = regexp.MustCompile(`(?m)^(  [a-z]+):\n    vendor_sources:\n(?:      - .*\n)+`)

// vendorRules is a scaffold rules repository whose claude profile reads
// url alone (the scaffold's default sources are on the internet), with
// the change committed by a human.
func vendorRules(t *testing.T, url string) string {
	t.Helper()
	dir := rulesInit(t)
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	offline := scaffoldSources.ReplaceAllString(string(src), "$1: {}\n")
	withSource := strings.Replace(offline, "  claude: {}\n", "  claude:\n    vendor_sources:\n      - url: "+url+"\n", 1)
	if offline == string(src) || withSource == offline {
		t.Fatal("the scaffold's profiles moved")
	}
	os.WriteFile(filepath.Join(dir, "bridle.yaml"), []byte(withSource), 0o644)
	git := exec.Command("git", "-C", dir, "commit", "-qam", "vendor sources")
	git.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Mira Okafor", "GIT_AUTHOR_EMAIL=mira@example.com", "GIT_COMMITTER_NAME=Mira Okafor", "GIT_COMMITTER_EMAIL=mira@example.com")
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v %s", err, out)
	}
	return dir
}

// The vendor feed's loop on a real Gitea: the sources are set by an edit a
// human approves; the bot's sync opens a pull request of suggestions;
// alice merges it; the bot proposes a promotion; alice merges it; the
// published render shows the guardrail as suggested by the vendor and
// approved by alice, and the audit timeline has both merges.
func TestVendorFeedOnGitea(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("ETag", `"v1"`)
		w.Write([]byte("# Guide\n\n## Working rules\n\n- Always run the tests before you commit.\n- Never push to main directly.\n"))
	}))
	defer page.Close()
	srv := giteatest.Shared(t)
	bot := srv.CreateUser(t, "bridle-bot")
	alice := srv.CreateUser(t, "alice")
	repo := fmt.Sprintf("%s/vendor-%d", srv.AdminUser, time.Now().UnixNano()%1e9)
	t.Setenv("GITEA_URL", srv.URL)
	t.Setenv("BRIDLE_GITEA_REPO", repo)
	t.Setenv("BRIDLE_STATE_DIR", t.TempDir())
	t.Setenv("BRIDLE_CACHE_DIR", t.TempDir())
	t.Setenv("GITEA_TOKEN", srv.AdminToken)
	if code, _, stderr := bridle(t, "init", "--gitea", srv.URL, "--repo", repo, "--writers", "bridle-bot", "--approvers", "alice"); code != 0 {
		t.Fatalf("init --gitea: %s", stderr)
	}
	propose := func(args ...string) int {
		t.Helper()
		t.Setenv("GITEA_TOKEN", bot)
		code, out, stderr := bridle(t, append(args, "--as", "jonas", "--json")...)
		if code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
		var p struct{ Number int }
		json.Unmarshal([]byte(out), &p)
		if p.Number == 0 {
			t.Fatalf("%v: %s", args, out)
		}
		return p.Number
	}
	approve := func(n int) {
		t.Helper()
		t.Setenv("GITEA_TOKEN", alice)
		if code, _, stderr := bridle(t, "approve", fmt.Sprint(n)); code != 0 || !strings.Contains(stderr, "merged: by alice") {
			t.Fatalf("approve #%d: %d %s", n, code, stderr)
		}
	}
	checkout := func() string {
		t.Helper()
		dir := t.TempDir()
		if _, err := git.PlainClone(dir, false, &git.CloneOptions{URL: srv.URL + "/" + repo + ".git", Auth: &githttp.BasicAuth{Username: "x", Password: alice}}); err != nil {
			t.Fatal(err)
		}
		return dir
	}

	// The scaffold's sources are on the internet: the test's page instead.
	src, _ := os.ReadFile(filepath.Join(checkout(), "bridle.yaml"))
	offline := scaffoldSources.ReplaceAllString(string(src), "$1: {}\n")
	edited := strings.Replace(offline, "  claude: {}\n", "  claude:\n    vendor_sources:\n      - url: "+page.URL+"/memory.md\n", 1)
	file := filepath.Join(t.TempDir(), "bridle.yaml")
	os.WriteFile(file, []byte(edited), 0o644)
	approve(propose("propose", "edit", "--from", file, "--why", "Read the test vendor's guide"))

	t.Setenv("GITEA_TOKEN", bot)
	code, out, stderr := bridle(t, "vendor", "sync", "--as", "jonas", "--json")
	var rs []vendorsync.Result
	if err := json.Unmarshal([]byte(out), &rs); err != nil || code != 0 || len(rs) != 1 || rs[0].Proposal == nil || len(rs[0].New) != 2 {
		t.Fatalf("sync: %d %v %s %s", code, err, out, stderr)
	}
	approve(*rs[0].Proposal)
	t.Setenv("GITEA_TOKEN", bot)
	if code, out, _ := bridle(t, "vendor", "sync", "--as", "jonas", "--json"); code != 0 || strings.Contains(out, `"proposal"`) {
		t.Errorf("a second sync of the same document: %s", out)
	}
	approve(propose("vendor", "promote", "claude", "always-run-the-tests-before-you-commit", "--severity", "hard-instruction", "--why", "We want this"))

	dir := checkout()
	code, out, stderr = bridle(t, "render", "--rules", dir, "--ref", "main", "--agent", "claude")
	if code != 0 || !strings.Contains(out, "Always run the tests before you commit.") || !strings.Contains(out, "suggested by Anthropic") || !strings.Contains(out, "approved by alice") {
		t.Errorf("the promoted guardrail's render: %s\n%s", stderr, out)
	}
	code, out, stderr = bridle(t, "audit", "--json")
	var events []audit.Event
	if err := json.Unmarshal([]byte(out), &events); err != nil || code != 0 {
		t.Fatalf("audit: %v %s", err, stderr)
	}
	vendor := 0
	for _, e := range events {
		if e.Kind == audit.KindMerge && e.Detail["approved_by"] == "alice" && e.Source == "vendor" {
			vendor++
		}
	}
	if vendor != 2 {
		t.Errorf("the audit timeline's vendor merges approved by alice = %d, want 2 (the suggestions and the promotion):\n%s", vendor, out)
	}
}
