package panel_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/scaffold"
)

// giteaSignIn signs a fresh browser in to the panel through the real
// Gitea: the panel's "Sign in with Gitea", Gitea's own login page as user,
// Gitea's consent page, and back to the panel's overview.
func giteaSignIn(t *testing.T, e *env, srv *giteatest.Server, user string) context.Context {
	t.Helper()
	ctx := newChrome(t)
	// The Gitea under test is built without its frontend assets: its pages'
	// failed script loads alert(), and a dialog would hold the page.
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: "window.alert = function() {};"}); err != nil {
		t.Fatal(err)
	}
	must(t, ctx, user+": the panel's sign-in page",
		chromedp.Navigate(e.url+"/login"),
		chromedp.WaitVisible(chromedp.CSS("#sign-in-provider")),
		submit("#sign-in-provider", "#user_name"))
	must(t, ctx, user+": Gitea's login page",
		chromedp.SendKeys(chromedp.CSS("#user_name"), user),
		chromedp.SendKeys(chromedp.CSS("#password"), srv.Password(user)),
		submit("form button.ui.primary.button", "#authorize-app"))
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	err := chromedp.Do(tctx, submit("#authorize-app", "form.signout"))
	cancel()
	if err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("%s: Gitea's consent page: %v; at %s:\n%.1500s\nlog:\n%s", user, err, loc, body, e.logs.String()[max(0, len(e.logs.String())-3000):])
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasPrefix(loc, e.url+"/") {
		t.Fatalf("%s: after signing in through Gitea the browser is at %q (%v)", user, loc, err)
	}
	return ctx
}

// TestTwoPeopleFromGiteaInTheBrowser: the real Gitea is the identity
// provider (its OAuth2 application made through its API, as bridle serve
// oidc setup makes it); two Gitea users sign in to the panel in real
// Chromium through Gitea's login and consent pages; one proposes a
// guardrail in the panel, the other approves it; the proposer's own
// approve is refused; the audit log and the merge name each.
func TestTwoPeopleFromGiteaInTheBrowser(t *testing.T) {
	chromiumPath(t)
	srv := giteatest.Shared(t)
	alice, bob := "ppl-alice", "ppl-bob"
	srv.CreateUser(t, alice)
	srv.CreateUser(t, bob)
	secretFile := filepath.Join(t.TempDir(), "oidc-client-secret")
	setup, err := gateway.SetupGiteaOIDC(context.Background(), gateway.OIDCSetupOptions{Gitea: srv.URL, Token: srv.AdminToken,
		Gateway: "http://127.0.0.1:1", Name: "Bridle people test", SecretFile: secretFile})
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, []string{"alpha"}, func(c *gateway.Config, _ *gateway.Options) {
		c.Auth.OIDC = &gateway.OIDCConfig{Issuer: setup.Issuer, ClientID: setup.ClientID, ClientSecretFile: secretFile}
		c.Auth.Roles = gateway.RolesConfig{Approver: []string{alice, bob}, Viewer: []string{"*"}}
	})
	pointApp(t, srv, setup, e, secretFile) // the panel's address is known only now
	a := giteaSignIn(t, e, srv, alice)
	must(t, a, alice+" proposes a guardrail",
		chromedp.Navigate(e.url+"/ui/projects/alpha/rules"),
		chromedp.WaitVisible(chromedp.CSS("#g-id")),
		chromedp.SendKeys(chromedp.CSS("#g-id"), "people-sign-in"),
		chromedp.SendKeys(chromedp.CSS("#g-st"), "Sign in as yourself, never with a shared credential."),
		chromedp.SendKeys(chromedp.CSS("#g-why"), "Four eyes among people."),
		submit(`form[action$="/propose"] input[value=guardrail] ~ button`, ".flash[role=status]"))
	if f := text(t, a, ".flash[role=status]"); !strings.Contains(f, "Opened proposal #1") {
		t.Fatalf("after proposing: %q", f)
	}
	must(t, a, alice+" tries to approve her own",
		chromedp.Navigate(e.url+"/ui/projects/alpha/proposals/1"),
		chromedp.WaitVisible(chromedp.CSS(".decide")),
		submit(`form[action$="/approve"] button`, ".flash"))
	if f := text(t, a, ".flash"); !strings.Contains(f, "another maintainer must approve it") {
		t.Fatalf("her own approve was not refused: %q", f)
	}

	b := giteaSignIn(t, e, srv, bob)
	must(t, b, bob+" approves",
		chromedp.Navigate(e.url+"/ui/projects/alpha/proposals/1"),
		chromedp.WaitVisible(chromedp.CSS(".decide")),
		submit(`form[action$="/approve"] button`, ".flash.ok"))
	if f := text(t, b, ".flash.ok"); !strings.Contains(f, "Approved proposal #1") {
		t.Fatalf("after approving: %q", f)
	}

	var pr gateway.ProposalView
	e.api(t, "GET", "/api/v1/projects/alpha/proposals/1", nil, &pr)
	if pr.State != proposals.Merged || pr.MergedBy != bob || pr.Author != alice {
		t.Errorf("the proposal: state %s, merged by %q, proposed by %q", pr.State, pr.MergedBy, pr.Author)
	}
	var events []audit.Event
	e.api(t, "GET", "/api/v1/audit?project=alpha&kind=admin", nil, &events)
	who := map[string]string{}
	for _, ev := range events {
		if ev.Actor != nil && ev.Actor.Via == "oidc" && strings.HasPrefix(ev.Actor.Subject, "oidc:"+setup.Issuer+"|") {
			who[ev.Summary] = ev.Actor.Name
		}
	}
	if who["approved proposal #1"] != bob || !strings.Contains(strings.Join(keysOf(who), "|"), "proposed #1") || who[firstWith(who, "proposed #1")] != alice {
		t.Errorf("the audit does not name each as Gitea knows them: %v", who)
	}
	must(t, b, "the audit page", chromedp.Navigate(e.url+"/ui/audit?project=alpha"), chromedp.WaitVisible(chromedp.CSS("table.audit")))
	if page := text(t, b, "table.audit"); !strings.Contains(page, alice) || !strings.Contains(page, bob) {
		t.Errorf("the audit page does not name both:\n%s", page)
	}
	secret, _ := os.ReadFile(secretFile)
	if s := strings.TrimSpace(string(secret)); s == "" || strings.Contains(e.logs.String(), s) {
		t.Error("the client secret is in the gateway's log (or was never written)")
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func firstWith(m map[string]string, sub string) string {
	for k := range m {
		if strings.Contains(k, sub) {
			return k
		}
	}
	return ""
}

// TestApproveOnGiteaAsTheSignedInPerson: on a Gitea rules project (main
// protected: the bot opens pull requests and cannot merge), a person who
// signed in to the panel through that Gitea approves in the browser and
// Gitea merges as them — with the token Gitea gave them at sign-in, never
// the bot's and never a pasted one; a viewer cannot approve.
func TestApproveOnGiteaAsTheSignedInPerson(t *testing.T) {
	chromiumPath(t)
	srv := giteatest.Shared(t)
	ctx := context.Background()
	approver, viewer := "ppl-carol", "ppl-dan"
	botTok := srv.CreateUser(t, "ppl-bot")
	srv.CreateUser(t, approver)
	srv.CreateUser(t, viewer)
	repo := "ppl-" + itoa(int(time.Now().UnixNano()%1e9))
	admin, err := proposals.NewGitea(proposals.GiteaOptions{URL: srv.URL, Token: srv.AdminToken, Owner: srv.AdminUser, Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	files, err := scaffold.Files("runic", "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Bootstrap(ctx, proposals.BootstrapOptions{Files: files, Writers: []string{"ppl-bot"}, Approvers: []string{approver}}); err != nil {
		t.Fatal(err)
	}
	botFile := filepath.Join(t.TempDir(), "gitea_token")
	if err := os.WriteFile(botFile, []byte(botTok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secretFile := filepath.Join(t.TempDir(), "oidc-client-secret")
	setup, err := gateway.SetupGiteaOIDC(ctx, gateway.OIDCSetupOptions{Gitea: srv.URL, Token: srv.AdminToken,
		Gateway: "http://127.0.0.1:1", Name: "Bridle merge test", SecretFile: secretFile})
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, nil, func(c *gateway.Config, o *gateway.Options) {
		c.Projects = map[string]gateway.ProjectConfig{"runic": {Gitea: &gateway.GiteaConfig{URL: srv.URL, Repo: srv.AdminUser + "/" + repo, TokenFile: botFile}}}
		c.Auth.OIDC = &gateway.OIDCConfig{Issuer: setup.Issuer, ClientID: setup.ClientID, ClientSecretFile: secretFile}
		c.Auth.Roles = gateway.RolesConfig{Approver: []string{approver}, Viewer: []string{"*"}}
	})
	pointApp(t, srv, setup, e, secretFile)
	cs := e.connect(t, "runic", e.mint(t, "runic", "claude"))
	tool(t, cs, "propose_guardrail", map[string]any{"id": "merge-as-yourself", "statement": "Merge as yourself.", "severity": "guidance", "why": "Gitea should name who approved."})
	var list []proposals.Proposal
	if e.api(t, "GET", "/api/v1/projects/runic/proposals", nil, &list); len(list) != 1 {
		t.Fatalf("proposals: %+v", list)
	}
	path := "/ui/projects/runic/proposals/" + itoa(list[0].Number)

	d := giteaSignIn(t, e, srv, viewer)
	must(t, d, viewer+" opens the proposal", chromedp.Navigate(e.url+path), chromedp.WaitVisible(chromedp.CSS(".decide")),
		submit(`form[action$="/approve"] button`, "#needs-role"))

	c := giteaSignIn(t, e, srv, approver)
	must(t, c, approver+" approves", chromedp.Navigate(e.url+path), chromedp.WaitVisible(chromedp.CSS(".decide")),
		submit(`form[action$="/approve"] button`, ".flash"))
	if f := text(t, c, ".flash"); !strings.Contains(f, "Approved proposal") || !strings.Contains(f, approver) {
		t.Fatalf("after approving: %q", f)
	}
	var pull struct {
		Merged   bool `json:"merged"`
		MergedBy struct {
			Login string `json:"login"`
		} `json:"merged_by"`
	}
	if err := srv.Do("GET", "/api/v1/repos/"+srv.AdminUser+"/"+repo+"/pulls/"+itoa(list[0].Number), srv.AdminToken, nil, &pull); err != nil {
		t.Fatal(err)
	}
	if !pull.Merged || pull.MergedBy.Login != approver {
		t.Errorf("Gitea's pull request: merged %v by %q, want by %s", pull.Merged, pull.MergedBy.Login, approver)
	}
}

// pointApp points the test's OAuth2 application at the panel (whose
// address is known only once it started) and keeps the secret Gitea makes
// anew at every update.
func pointApp(t *testing.T, srv *giteatest.Server, setup gateway.OIDCSetup, e *env, secretFile string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"name": setup.Name, "confidential_client": true, "redirect_uris": []string{e.url + gateway.CallbackPath}})
	var updated struct {
		ClientSecret string `json:"client_secret"`
	}
	if err := srv.Do("PATCH", "/api/v1/user/applications/oauth2/"+itoa(int(setup.AppID)), srv.AdminToken, body, &updated); err != nil {
		t.Fatal(err)
	}
	if updated.ClientSecret != "" {
		if err := os.WriteFile(secretFile, []byte(updated.ClientSecret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
