package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/proposals"
)

// chromium is Debian's chromium (or $BRIDLE_CHROMIUM); without one the
// test skips, unless BRIDLE_REQUIRE_BROWSER=1 (as in the panel's tests).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("BRIDLE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("BRIDLE_REQUIRE_BROWSER") == "1" {
		t.Fatal("BRIDLE_REQUIRE_BROWSER=1 but no Chromium was found")
	}
	t.Skip("no Chromium (apt-get install chromium)")
	return ""
}

func headless(t *testing.T) context.Context {
	t.Helper()
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()))
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	// The Gitea under test has no frontend assets: its pages' failed
	// script loads alert(), and a dialog would hold the page.
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: "window.alert = function() {};"}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// leave clicks sel, which leaves the page, and waits for a new page that
// shows want (never want on the page it left).
func leave(sel, want string) chromedp.Action[chromedp.Void] {
	q, _ := json.Marshal(want)
	ready := `!document.documentElement.hasAttribute("data-test-stale") && document.readyState === "complete" && document.querySelector(` + string(q) + `) !== null`
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := chromedp.EvaluateAsDevTools[chromedp.Void](`document.documentElement.setAttribute("data-test-stale", "1")`)(ctx, tg); err != nil {
			return chromedp.Void{}, err
		}
		if _, err := chromedp.Click(chromedp.CSS(sel))(ctx, tg); err != nil {
			return chromedp.Void{}, err
		}
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for {
			if ok, err := chromedp.EvaluateAsDevTools[bool](ready)(ctx, tg); err == nil && ok {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("after clicking %s, no page showing %s: %w", sel, want, ctx.Err())
			case <-tick.C:
			}
		}
	}
}

// lockedBuffer is a process's stderr, read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) add(s string) { l.mu.Lock(); l.b.WriteString(s); l.mu.Unlock() }
func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLoginThroughGitea: bridle login against a gateway whose identity
// provider is the real Gitea, its browser step in real Chromium (the
// panel's sign-in, Gitea's own login and consent pages, the panel's
// "allow the CLI" page, the loopback redirect); then bridle approve
// --server with the stored token approves as that Gitea user (the merge and
// the audit name them), bridle logout revokes it (the token is refused
// from then on), and the token was never printed or logged.
func TestLoginThroughGitea(t *testing.T) {
	chromium(t)
	srv := giteatest.Shared(t)
	bin := builtBinary(t) // before isolated: it moves HOME, and with it Go's build cache
	isolated(t)
	const user = "login-erin"
	srv.CreateUser(t, user)
	addr := freeAddr(t)
	url := "http://" + addr
	secretFile := filepath.Join(t.TempDir(), "oidc-client-secret")
	setup, err := gateway.SetupGiteaOIDC(context.Background(), gateway.OIDCSetupOptions{Gitea: srv.URL, Token: srv.AdminToken,
		Gateway: url, Name: fmt.Sprintf("Bridle login test %d", time.Now().UnixNano()), SecretFile: secretFile})
	if err != nil {
		t.Fatal(err)
	}
	dir := rulesInit(t)
	if code, _, stderr := proposeGuardrail(t, dir, "login-as-yourself", "--as", "Alice Agent"); code != 0 {
		t.Fatalf("propose: %s", stderr)
	}
	state := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "serve.yaml")
	yaml := fmt.Sprintf("projects:\n  acme:\n    rules: %q\n%s  roles:\n    approver: [%s]\n", dir, setup.Config(), user)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := startServe(t, bin, "--config", cfg, "--listen", addr, "--state-dir", state, "--log-format", "json")
	waitHealthy(t, url)

	confDir := t.TempDir()
	t.Setenv("BRIDLE_CONFIG_DIR", confDir)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", "")
	login := exec.Command(bin, "login", "--server", url, "--no-browser", "--timeout", "2m")
	login.Env = os.Environ()
	pipe, err := login.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var loginOut strings.Builder
	login.Stdout = &loginOut
	if err := login.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { login.Process.Kill(); login.Wait() })
	loginErr := &lockedBuffer{}
	address := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			loginErr.add(line + "\n")
			if a, ok := strings.CutPrefix(line, "  "); ok && strings.HasPrefix(a, url+gateway.CLILoginPath+"?") {
				address <- a
			}
		}
	}()
	var open string
	select {
	case open = <-address:
	case <-time.After(30 * time.Second):
		t.Fatalf("bridle login printed no address:\n%s", loginErr.String())
	}

	ctx := headless(t)
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			t.Fatalf("browser: %s: %v; at %s:\n%.1500s", what, err, loc, body)
		}
	}
	step("the address bridle login printed", chromedp.Navigate(open), chromedp.WaitVisible(chromedp.CSS("#sign-in-provider")))
	step("sign in with Gitea", leave("#sign-in-provider", "#user_name"))
	step("Gitea's login page",
		chromedp.SendKeys(chromedp.CSS("#user_name"), user),
		chromedp.SendKeys(chromedp.CSS("#password"), srv.Password(user)),
		leave("form button.ui.primary.button", "#authorize-app"))
	step("Gitea's consent page", leave("#authorize-app", "#cli-allow"))
	if txt, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#cli-consent"))); !strings.Contains(txt, user) || !strings.Contains(txt, "127.0.0.1:") {
		t.Errorf("the panel's consent page does not name the person and the CLI's address: %q", txt)
	}
	step("allow the CLI", leave("#cli-allow", "p"))
	if body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body"))); !strings.Contains(body, "Signed in") {
		t.Errorf("the CLI's page: %q", body)
	}
	done := make(chan error, 1)
	go func() { done <- login.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("bridle login: %v\n%s", err, loginErr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("bridle login did not finish:\n%s", loginErr.String())
	}
	if msg := loginErr.String(); !strings.Contains(msg, "Signed in to "+url+" as "+user) {
		t.Errorf("bridle login says:\n%s", msg)
	}
	creds, err := gateway.StoredCredentials(confDir)
	if err != nil || len(creds) != 1 || creds[0].Person.Name != user {
		t.Fatalf("stored: %+v %v", creds, err)
	}
	tok := creds[0].Token
	path, _ := gateway.CredentialPath(confDir, url)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the credential's file: %v %v", fi, err)
	}

	code, out, stderr := bridle(t, "approve", "1", "--server", url, "--project", "acme", "--json")
	var p proposals.Proposal
	json.Unmarshal([]byte(out), &p)
	if code != 0 || p.MergedBy != user {
		t.Fatalf("approve --server with the stored token: exit %d, merged by %q; %s", code, p.MergedBy, stderr)
	}
	adminTok, err := os.ReadFile(filepath.Join(state, "gateway", "admin-token"))
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := gateway.NewClient(url, strings.TrimSpace(string(adminTok)))
	var events []audit.Event
	req, _ := http.NewRequest("GET", url+"/api/v1/audit?project=acme&kind=admin", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(adminTok)))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		json.NewDecoder(resp.Body).Decode(&events)
		resp.Body.Close()
	}
	approved := false
	for _, ev := range events {
		if ev.Summary == "approved proposal #1" && ev.Actor != nil && ev.Actor.Name == user && ev.Actor.Via == "api-token" &&
			strings.HasPrefix(ev.Actor.Subject, "oidc:"+setup.Issuer+"|") {
			approved = true
		}
	}
	if !approved {
		t.Errorf("the audit does not name %s (via api-token) as the approver: %+v", user, events)
	}

	if code, _, stderr := bridle(t, "logout", "--server", url); code != 0 || !strings.Contains(stderr, "is revoked") {
		t.Fatalf("logout: %d %s", code, stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("logout left the credential")
	}
	person, _ := gateway.NewPersonClient(url, tok)
	if _, err := person.Me(context.Background()); err == nil || !strings.Contains(err.Error(), "bridle login --server") {
		t.Errorf("the revoked token: %v", err)
	}
	if _, err := cl.Me(context.Background()); err != nil {
		t.Errorf("the admin credential after logout: %v", err)
	}
	for name, text := range map[string]string{"bridle login's output": loginOut.String() + loginErr.String(), "the gateway's log": serve.stderr.String(),
		"approve's output": out + stderr} {
		if strings.Contains(text, tok) || strings.Contains(text, strings.TrimPrefix(tok, gateway.TokenPrefix)) {
			t.Errorf("the token is in %s", name)
		}
	}
}
