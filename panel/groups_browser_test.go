package panel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/giteatest"
)

// TestRolesFromGiteaTeams: auth.roles names a Gitea team
// ("group:ORG:TEAM"); the sign-in asks Gitea for the person's groups, and
// a member of the team signs in through Gitea's own pages in real Chromium
// as an approver, and so does the API token she mints on her account
// page; a Gitea user in no team named gets no role, so no session.
func TestRolesFromGiteaTeams(t *testing.T) {
	chromiumPath(t)
	srv := giteatest.Shared(t)
	fay, gus := "grp-fay", "grp-gus"
	srv.CreateUser(t, fay)
	srv.CreateUser(t, gus)
	org := fmt.Sprintf("grp-org-%d", time.Now().UnixNano()%1e9)
	must2 := func(method, path string, body any, out any) {
		t.Helper()
		b, _ := json.Marshal(body)
		if err := srv.Do(method, path, srv.AdminToken, b, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	must2("POST", "/api/v1/orgs", map[string]any{"username": org}, nil)
	var team struct {
		ID int64 `json:"id"`
	}
	must2("POST", "/api/v1/orgs/"+org+"/teams", map[string]any{"name": "Reviewers", "permission": "read", "units": []string{"repo.code"}}, &team)
	must2("PUT", "/api/v1/teams/"+itoa(int(team.ID))+"/members/"+fay, nil, nil)

	secretFile := filepath.Join(t.TempDir(), "oidc-client-secret")
	setup, err := gateway.SetupGiteaOIDC(context.Background(), gateway.OIDCSetupOptions{Gitea: srv.URL, Token: srv.AdminToken,
		Gateway: "http://127.0.0.1:1", Name: "Bridle groups test " + org, SecretFile: secretFile})
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, []string{"alpha"}, func(c *gateway.Config, _ *gateway.Options) {
		c.Auth.OIDC = &gateway.OIDCConfig{Issuer: setup.Issuer, ClientID: setup.ClientID, ClientSecretFile: secretFile}
		c.Auth.Roles = gateway.RolesConfig{Approver: []string{"group:" + org + ":reviewers"}}
	})
	pointApp(t, srv, setup, e, secretFile)

	f := giteaSignIn(t, e, srv, fay)
	must(t, f, fay+"'s account page", chromedp.Navigate(e.url+"/ui/account"), chromedp.WaitVisible(chromedp.CSS("#my-role")))
	if role := text(t, f, "#my-role"); role != "approver" {
		t.Errorf("%s, of %s's Reviewers, has the role %q", fay, org, role)
	}
	must(t, f, fay+" mints a token",
		chromedp.SendKeys(chromedp.CSS("#t-name"), "ci"),
		submit(`form[action="/ui/account/tokens"] button`, "#minted"))
	tok, err := chromedp.Run(f, chromedp.Value(chromedp.CSS("#tok")))
	if err != nil || !strings.HasPrefix(tok, gateway.TokenPrefix) {
		t.Fatalf("the minted token: %q %v", tok, err)
	}
	req, _ := http.NewRequest("GET", e.url+"/api/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var me gateway.Me
	json.NewDecoder(resp.Body).Decode(&me)
	resp.Body.Close()
	if me.Name != fay || me.Role != gateway.RoleApprover {
		t.Errorf("her token: %d %+v", resp.StatusCode, me)
	}

	g := newChrome(t)
	if _, err := chromedp.Call(g, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: "window.alert = function() {};"}); err != nil {
		t.Fatal(err) // Gitea's pages alert() for their missing assets (see giteaSignIn)
	}
	must(t, g, gus+": the panel's sign-in page", chromedp.Navigate(e.url+"/login"), chromedp.WaitVisible(chromedp.CSS("#sign-in-provider")),
		submit("#sign-in-provider", "#user_name"))
	must(t, g, gus+": Gitea's login page",
		chromedp.SendKeys(chromedp.CSS("#user_name"), gus),
		chromedp.SendKeys(chromedp.CSS("#password"), srv.Password(gus)),
		submit("form button.ui.primary.button", "#authorize-app"))
	must(t, g, gus+": Gitea's consent page", submit("#authorize-app", ".flash.err"))
	if msg := text(t, g, ".flash.err"); !strings.Contains(msg, "has no role") {
		t.Errorf("%s, in no team named, signs in: %q", gus, msg)
	}
	if strings.Contains(e.logs.String(), tok) {
		t.Error("the log holds the token")
	}
}
