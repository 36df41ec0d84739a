package gitea

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/bridle-dev/bridle/internal/giteatest"
)

func TestMain(m *testing.M) { giteatest.Main(m) }

// TestRecordedResponsesAreReal provokes, on a real Gitea, every answer the
// fixtures say was recorded, and checks that Gitea still answers exactly so
// (status and message) and that the classifier reads it as the fixture says.
func TestRecordedResponsesAreReal(t *testing.T) {
	srv := giteatest.Shared(t)
	ctx := context.Background()
	admin, _ := New(Options{URL: srv.URL, Token: srv.AdminToken})
	owner := srv.AdminUser
	repo := fmt.Sprintf("classify-%d", len(t.Name()))
	if _, _, err := admin.SDK(ctx).CreateRepo(sdk.CreateRepoOption{Name: repo, AutoInit: true, DefaultBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	reader := srv.CreateUser(t, "classify-reader")
	if _, err := admin.SDK(ctx).AddCollaborator(owner, repo, "classify-reader", sdk.AddCollaboratorOption{Permission: new(sdk.AccessModeRead)}); err != nil {
		t.Fatal(err)
	}
	as := func(token string) *Client { c, _ := New(Options{URL: srv.URL, Token: token}); return c }
	content := base64.StdEncoding.EncodeToString([]byte("x\n"))
	create := func(c *Client, branch string) error {
		_, resp, err := c.SDK(ctx).CreateFile(owner, repo, "f-"+branch+".txt", sdk.CreateFileOptions{
			FileOptions: sdk.FileOptions{BranchName: "main", NewBranchName: branch, Message: "x"}, Content: content})
		return c.Classify("create file", resp, err)
	}
	if err := create(admin, "bridle/x"); err != nil {
		t.Fatal(err)
	}
	pr, _, err := admin.SDK(ctx).CreatePullRequest(owner, repo, sdk.CreatePullRequestOption{Head: "bridle/x", Base: "main", Title: "x"})
	if err != nil {
		t.Fatal(err)
	}
	merge := func(c *Client, head string) error {
		body, _ := json.Marshal(map[string]any{"Do": "merge", "head_commit_id": head})
		req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/v1/repos/%s/%s/pulls/%d/merge", srv.URL, owner, repo, pr.Index), strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		return c.ClassifyResponse("merge", resp)
	}
	// Raw requests: the fixtures hold Gitea's own bodies (the SDK words
	// some errors itself).
	raw := func(c *Client, method, path, body string) error {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		return c.ClassifyResponse(method+" "+path, resp)
	}
	got := map[string]error{}
	got["bad token"] = raw(as("0000000000000000000000000000000000000000"), "GET", "/api/v1/repos/"+owner+"/"+repo, "")
	got["no such repository"] = raw(admin, "GET", "/api/v1/repos/"+owner+"/nope", "")
	got["no write access"] = raw(as(reader), "POST", "/api/v1/repos/"+owner+"/"+repo+"/contents/reader.txt",
		`{"content":"`+content+`","message":"x","branch":"main"}`)
	got["branch exists"] = create(admin, "bridle/x")
	for i := 0; i < 60; i++ { // until Gitea has checked mergeability
		if got["merge: head moved"] = merge(admin, strings.Repeat("1", 40)); !errors.Is(got["merge: head moved"], ErrNotReady) {
			break
		}
	}
	for _, f := range fixtures(t) {
		if !strings.HasPrefix(f.Source, "recorded:") {
			continue
		}
		e, ok := got[f.Name]
		if !ok {
			t.Errorf("fixture %q is marked recorded but this test does not provoke it", f.Name)
			continue
		}
		var want struct{ Message string }
		json.Unmarshal(f.Body, &want)
		var ge *Error
		if !errors.As(e, &ge) || ge.Status != f.Status || ge.Message != want.Message || !errors.Is(e, kinds[f.Want]) {
			t.Errorf("%s: Gitea answers %#v (%v); the fixture says %d %q (%s)", f.Name, ge, e, f.Status, want.Message, f.Want)
		}
	}
}
