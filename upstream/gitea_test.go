package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
)

// TestGiteaMCP runs the real gitea-mcp (npm, 0.0.10, pinned in
// tests/giteamcp) under Bridle against the real Gitea, with the bot's token
// injected: an agent lists a repository's issues and comments on one
// through Bridle; Gitea shows the bot as the comment's author, Bridle's
// audit shows the agent, and the token is nowhere the agent can see.
func TestGiteaMCP(t *testing.T) {
	bin := upstreamtest.GiteaMCP(t)
	gitea := giteatest.Shared(t)
	bot := "bridle-bot"
	token := gitea.CreateUser(t, bot)
	repo := fmt.Sprintf("upstream-%d", time.Now().UnixNano()%1e9)
	if err := gitea.Do("POST", "/api/v1/user/repos", token, []byte(`{"name":"`+repo+`","auto_init":true}`), nil); err != nil {
		t.Fatal(err)
	}
	var issue struct{ Number int }
	if err := gitea.Do("POST", "/api/v1/repos/"+bot+"/"+repo+"/issues", gitea.AdminToken,
		[]byte(`{"title":"Payouts fail on the 31st","body":"Seen twice in March."}`), &issue); err != nil {
		t.Fatal(err)
	}

	b := newBridle(t)
	u, err := Start(context.Background(), Config{
		Name:    "gitea",
		Command: []string{bin},
		Env:     map[string]string{"GITEA_HOST": gitea.URL},
		Secrets: map[string]func() (string, error){"GITEA_ACCESS_TOKEN": func() (string, error) { return token, nil }},
		// gitea-mcp 0.0.10 annotates none of its tools: its reads are
		// named here, the rest need gitea.write.
		Tools: map[string]Access{"issue__list": Read, "issue__get_by_index": Read, "issue__comment_list": Read},
	}, b.srv, Options{Redactor: b.red, Logger: logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	waitUp(t, u)

	var seen strings.Builder // everything the agent is sent
	record := func(v any) {
		out, _ := json.Marshal(v)
		seen.Write(out)
	}
	claude := b.connect(t, "claude-code", nil)
	tools, err := claude.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	record(tools)
	names := map[string]bool{}
	for _, d := range tools.Tools {
		names[d.Name] = true
	}
	if !names["gitea_issue__list"] || !names["gitea_issue__comment_create"] {
		t.Fatalf("gitea-mcp's tools not served: %v", names)
	}
	call := func(cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		record(res)
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		return text.String(), res.IsError
	}

	listed, isErr := call(claude, "gitea_issue__list", map[string]any{"owner": bot, "repo": repo})
	if isErr || !strings.Contains(listed, "Payouts fail on the 31st") {
		t.Fatalf("issue__list: %v %.500s", isErr, listed)
	}
	body := "Found it: the cutoff date is computed in UTC. (Bridle upstream test)"
	if msg, isErr := call(claude, "gitea_issue__comment_create", map[string]any{"owner": bot, "repo": repo, "index": issue.Number, "body": body}); isErr {
		t.Fatalf("comment_create: %s", msg)
	}
	if msg, isErr := call(claude, "gitea_issue__get_by_index", map[string]any{"owner": bot, "repo": repo, "index": 9999}); !isErr {
		t.Errorf("a missing issue: %.300s", msg)
	}
	if msg, isErr := call(claude, "gitea_issue__list", map[string]any{"owner": bot}); !isErr || !strings.Contains(msg, "repo") {
		t.Errorf("missing argument: %v %.300s", isErr, msg)
	}

	var comments []struct {
		Body string
		User struct{ Login string }
	}
	if err := gitea.Do("GET", fmt.Sprintf("/api/v1/repos/%s/%s/issues/%d/comments", bot, repo, issue.Number), gitea.AdminToken, nil, &comments); err != nil {
		t.Fatal(err)
	}
	if len(comments) != 1 || comments[0].Body != body || comments[0].User.Login != bot {
		t.Errorf("comments in Gitea: %+v", comments)
	}
	if w := b.writes(t, "claude"); len(w) != 1 || w[0].Tool != "gitea_issue__comment_create" {
		t.Errorf("Bridle's audit: %+v", w)
	}

	// An agent with gitea.read only lists, and is refused the write.
	deepseek := b.connect(t, "deepseek-cli", nil)
	if msg, isErr := call(deepseek, "gitea_issue__list", map[string]any{"owner": bot, "repo": repo}); isErr || !strings.Contains(msg, "Payouts") {
		t.Errorf("deepseek lists: %v %.200s", isErr, msg)
	}
	if msg, isErr := call(deepseek, "gitea_issue__comment_create", map[string]any{"owner": bot, "repo": repo, "index": issue.Number, "body": "x"}); !isErr || !strings.Contains(msg, "needs the gitea.write permission") {
		t.Errorf("deepseek comments: %v %.200s", isErr, msg)
	}

	if strings.Contains(seen.String(), token) {
		t.Errorf("the agent was sent the Gitea token")
	}
	if st := u.Status(); strings.Contains(fmt.Sprint(st), token) {
		t.Errorf("status holds the token: %+v", st)
	}
}
