package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
)

func TestMain(m *testing.M) {
	upstreamtest.Main() // in a child started as the fake upstream: serve it and exit
	code := m.Run()
	giteatest.StopShared()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// TestGiteaCLI drives the CLI against a real Gitea: init --gitea, propose as
// the bot, approve as a human, the audit timeline, and the commands of the
// rules repository's workflow on a checkout.
func TestGiteaCLI(t *testing.T) {
	srv := giteatest.Shared(t)
	bot := srv.CreateUser(t, "bridle-bot")
	alice := srv.CreateUser(t, "alice")
	repo := fmt.Sprintf("%s/cli-%d", srv.AdminUser, time.Now().UnixNano()%1e9)
	t.Setenv("GITEA_URL", srv.URL)
	t.Setenv("BRIDLE_GITEA_REPO", repo)
	t.Setenv("BRIDLE_STATE_DIR", t.TempDir())
	t.Setenv("BRIDLE_CACHE_DIR", t.TempDir())
	// A proposer without --as is git's author: never made up.
	t.Setenv("GIT_AUTHOR_NAME", "jonas")

	t.Setenv("GITEA_TOKEN", srv.AdminToken)
	if code, _, stderr := bridle(t, "init", "--gitea", srv.URL, "--repo", repo, "--writers", "bridle-bot", "--approvers", "alice"); code != 0 {
		t.Fatalf("init --gitea: %s", stderr)
	}
	if code, _, stderr := bridle(t, "init", "--gitea", srv.URL, "--repo", repo); code == 0 || !strings.Contains(stderr, "already exists") {
		t.Errorf("second init: %d %s", code, stderr)
	}

	t.Setenv("GITEA_TOKEN", bot)
	code, out, stderr := bridle(t, "propose", "guardrail", "--id", "no-force-push", "--severity", "hard-instruction",
		"--statement", "Never force-push to shared branches.", "--why", "We lost work twice.", "--as", "jonas", "--json")
	if code != 0 {
		t.Fatalf("propose: %s", stderr)
	}
	var pr struct {
		Number int
		URL    string
		Branch string
	}
	json.Unmarshal([]byte(out), &pr)
	if pr.Number == 0 || pr.Branch != "bridle/user/jonas/guardrail-no-force-push" {
		t.Fatalf("proposal: %s", out)
	}
	if code, out, _ := bridle(t, "proposals", "list"); code != 0 || !strings.Contains(out, "open, mergeable") {
		t.Errorf("list: %s", out)
	}
	if code, _, stderr := bridle(t, "approve", fmt.Sprint(pr.Number)); code == 0 {
		t.Errorf("the bot approved: %s", stderr)
	}
	code, _, stderr = bridle(t, "propose", "guardrail", "--id", "Bad ID", "--statement", "x")
	if code != exitInvalid || !strings.Contains(stderr, "nothing was created") {
		t.Errorf("invalid proposal: %d %s", code, stderr)
	}

	t.Setenv("GITEA_TOKEN", alice)
	if code, _, stderr := bridle(t, "approve", fmt.Sprint(pr.Number)); code != 0 || !strings.Contains(stderr, "merged: by alice") {
		t.Fatalf("approve: %d %s", code, stderr)
	}
	code, out, stderr = bridle(t, "audit", "--json")
	var events []audit.Event
	if err := json.Unmarshal([]byte(out), &events); err != nil || code != 0 {
		t.Fatalf("audit: %v %s", err, stderr)
	}
	if len(events) != 1 || events[0].Kind != audit.KindMerge || events[0].Detail["approved_by"] != "alice" || events[0].Detail["proposed_by"] != "jonas" {
		t.Errorf("audit = %+v", events)
	}

	// The workflow's commands, on a checkout of main.
	dir := t.TempDir()
	r, err := git.PlainClone(dir, false, &git.CloneOptions{URL: srv.URL + "/" + repo + ".git", Auth: &githttp.BasicAuth{Username: "x", Password: alice}})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := r.Head()
	for _, args := range [][]string{
		{"validate", "--rules", dir},
		{"render", "--rules", dir, "--all", "--out", filepath.Join(dir, "rendered"), "--check", "--no-history"},
		{"compile", "--rules", dir, "--ref", head.Hash().String(), "-o", filepath.Join(dir, "dist", "snapshot.json")},
		{"render", "--rules", dir, "--ref", head.Hash().String(), "--all", "--out", filepath.Join(dir, "dist", "rendered")},
	} {
		if code, _, stderr := bridle(t, args...); code != 0 {
			t.Errorf("workflow step %v: %s", args, stderr)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "dist", "rendered", "CLAUDE.md"))
	if !strings.Contains(string(b), "approved by alice") {
		t.Errorf("published render lacks the approval:\n%s", b)
	}
}
