package kanboard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/kanboardtest"
)

const token = "app-token-9f2c4e81d7a3b6"

// board is a fake with a project, a member user, an outsider and a task.
type board struct {
	fake                 *kanboardtest.Fake
	project, other, task int
	member, outsider     int
}

func newBoard(t *testing.T) *board {
	f := kanboardtest.New(t, token)
	b := &board{fake: f}
	b.member = f.AddUser("claude", "claude-token-1234", "app-user")
	b.outsider = f.AddUser("mallory", "mallory-token-5678", "app-admin")
	b.project = f.AddProject("Runic", b.member)
	b.other = f.AddProject("Other")
	b.task = f.AddTask(kanboardtest.Task{ProjectID: b.project, Title: "First task"})
	return b
}

func (b *board) client(t *testing.T, o Options) *Client {
	t.Helper()
	if o.URL == "" {
		o.URL = b.fake.URL
	}
	if o.Token == "" {
		o.Token = token
	}
	if o.Backoff == 0 {
		o.Backoff = time.Millisecond
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestURLForms(t *testing.T) {
	b := newBoard(t)
	for _, u := range []string{b.fake.URL, b.fake.URL + "/", b.fake.Endpoint()} {
		v, err := b.client(t, Options{URL: u}).Version(context.Background())
		if err != nil || v != kanboardtest.Version {
			t.Errorf("%s: %q, %v", u, v, err)
		}
	}
	for _, o := range []Options{{}, {URL: "ftp://x", Token: "t"}, {URL: "http://x"}} {
		if _, err := New(o); !errors.Is(err, ErrBadOptions) {
			t.Errorf("New(%+v) = %v, want ErrBadOptions", o, err)
		}
	}
}

// TestQuirks: each of Kanboard's ways of saying no becomes its sentinel.
func TestQuirks(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	app := b.client(t, Options{})
	member := b.client(t, Options{User: "claude", Token: "claude-token-1234"})
	outsider := b.client(t, Options{User: "mallory", Token: "mallory-token-5678"})
	col := b.fake.Columns(b.project)
	otherCol := b.fake.Columns(b.other)[0]
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"getTask null", func() error { _, err := app.Task(ctx, 9999); return err }, ErrNotFound},
		{"getProjectById null", func() error { _, err := app.Project(ctx, 9999); return err }, ErrNotFound},
		{"createTask on a missing project: 0", func() error { _, err := app.CreateTask(ctx, NewTask{ProjectID: 9999, Title: "x"}); return err }, ErrNotFound},
		{"createTask with an empty title: false", func() error { _, err := app.CreateTask(ctx, NewTask{ProjectID: b.project}); return err }, ErrRejected},
		{"createTask in another project's column", func() error {
			_, err := app.CreateTask(ctx, NewTask{ProjectID: b.project, Title: "x", ColumnID: otherCol})
			return err
		}, ErrRejected},
		{"updateTask of a missing task: false", func() error { return app.UpdateTask(ctx, TaskChange{ID: 9999, Title: new("x")}) }, ErrNotFound},
		{"updateTask with an empty title: false", func() error { return app.UpdateTask(ctx, TaskChange{ID: b.task, Title: new("")}) }, ErrRejected},
		{"moveTaskPosition to another project's column", func() error {
			return app.MoveTask(ctx, Move{ProjectID: b.project, TaskID: b.task, ColumnID: otherCol, Position: 1, SwimlaneID: 0})
		}, ErrRejected},
		{"moveTaskPosition at position 0", func() error {
			return app.MoveTask(ctx, Move{ProjectID: b.project, TaskID: b.task, ColumnID: col[1], Position: 0})
		}, ErrRejected},
		{"moveTaskPosition of a missing task", func() error {
			return app.MoveTask(ctx, Move{ProjectID: b.project, TaskID: 9999, ColumnID: col[1], Position: 1, SwimlaneID: 1})
		}, ErrNotFound},
		{"closeTask of a missing task", func() error { return app.CloseTask(ctx, 9999) }, ErrNotFound},
		{"createComment on a missing task", func() error { _, err := app.CreateComment(ctx, 9999, "hi"); return err }, ErrNotFound},
		{"createComment, empty", func() error { _, err := app.CreateComment(ctx, b.task, " "); return err }, ErrRejected},
		{"createSubtask, empty", func() error { _, err := app.CreateSubtask(ctx, NewSubtask{TaskID: b.task}); return err }, ErrRejected},
		{"getSubtask null", func() error { _, err := app.Subtask(ctx, 9999); return err }, ErrNotFound},
		{"getMe as the application: 403", func() error { _, err := app.Me(ctx); return err }, ErrForbidden},
		{"getMyProjects as the application: 403", func() error { _, err := app.MyProjects(ctx); return err }, ErrForbidden},
		{"a user on a project it is not a member of: 403", func() error { _, err := member.Columns(ctx, b.other); return err }, ErrForbidden},
		{"a user on a missing task: 403, not null", func() error { _, err := member.Task(ctx, 9999); return err }, ErrForbidden},
		{"an app-admin is no member: 403", func() error { _, err := outsider.Task(ctx, b.task); return err }, ErrForbidden},
		{"a bad token: 401", func() error { _, err := b.client(t, Options{Token: "wrong"}).Version(ctx); return err }, ErrUnauthorized},
		{"an unknown param: -32602", func() error {
			_, err := app.call(ctx, "getTask", map[string]any{"task_id": b.task, "bogus": 1}, true)
			return err
		}, ErrBadParams},
		{"a missing param: -32602", func() error {
			_, err := app.call(ctx, "moveTaskPosition", map[string]any{"task_id": 1}, false)
			return err
		}, ErrBadParams},
		{"an unknown method: -32601", func() error { _, err := app.call(ctx, "removeEverything", nil, false); return err }, ErrProtocol},
	}
	for _, c := range cases {
		if err := c.call(); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// And what works: closing twice, a member's reads, a user's comment as itself.
	if err := app.CloseTask(ctx, b.task); err != nil {
		t.Fatal(err)
	}
	if err := app.CloseTask(ctx, b.task); err != nil {
		t.Errorf("closing a closed task: %v", err)
	}
	if err := app.OpenTask(ctx, b.task); err != nil {
		t.Fatal(err)
	}
	if _, err := member.CreateComment(ctx, b.task, "looked at it"); err != nil {
		t.Fatalf("a member's comment: %v", err)
	}
	if _, users := b.fake.Comments(b.task); !slices.Equal(users, []int{b.member}) {
		t.Errorf("comment authors = %v, want the member %d", users, b.member)
	}
	if ps, err := member.Projects(ctx); err != nil || len(ps) != 1 || int(ps[0].ID) != b.project {
		t.Errorf("the member's projects: %+v %v", ps, err)
	}
	if ps, err := app.Projects(ctx); err != nil || len(ps) != 2 {
		t.Errorf("every project: %+v %v", ps, err)
	}
	if users, err := app.ProjectUsers(ctx, b.other); err != nil || len(users) != 0 {
		t.Errorf("no members ([] from PHP): %v %v", users, err)
	}
}

// TestTaskLifecycle: create, update, move, subtasks, search, as Kanboard
// answers them — with ids as numbers and as strings.
func TestTaskLifecycle(t *testing.T) {
	for _, strs := range []bool{false, true} {
		b := newBoard(t)
		b.fake.StringInts(strs)
		ctx := context.Background()
		c := b.client(t, Options{})
		due := time.Date(2030, 1, 15, 0, 0, 0, 0, time.UTC)
		id, err := c.CreateTask(ctx, NewTask{ProjectID: b.project, Title: "Write the docs", Due: due})
		if err != nil {
			t.Fatal(err)
		}
		col := b.fake.Columns(b.project)
		if err := c.UpdateTask(ctx, TaskChange{ID: id, Description: new("all of them"), Priority: new(2)}); err != nil {
			t.Fatal(err)
		}
		lanes, err := c.Swimlanes(ctx, b.project)
		if err != nil || len(lanes) != 1 {
			t.Fatalf("swimlanes: %+v %v", lanes, err)
		}
		if err := c.MoveTask(ctx, Move{ProjectID: b.project, TaskID: id, ColumnID: col[2], Position: 1, SwimlaneID: int(lanes[0].ID)}); err != nil {
			t.Fatal(err)
		}
		task, err := c.Task(ctx, id)
		if err != nil || int(task.ColumnID) != col[2] || task.Description != "all of them" || task.Priority != 2 || !task.Open() ||
			time.Unix(int64(task.DateDue), 0).UTC() != due {
			t.Errorf("strings %v: task = %+v, %v", strs, task, err)
		}
		sid, err := c.CreateSubtask(ctx, NewSubtask{TaskID: id, Title: "API"})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.UpdateSubtask(ctx, SubtaskChange{ID: sid, TaskID: id, Status: new(SubtaskDone)}); err != nil {
			t.Fatal(err)
		}
		if err := c.UpdateSubtask(ctx, SubtaskChange{ID: sid, TaskID: b.task, Status: new(SubtaskDone)}); !errors.Is(err, ErrRejected) {
			t.Errorf("a subtask of another task: %v", err)
		}
		subs, err := c.Subtasks(ctx, id)
		if err != nil || len(subs) != 1 || subs[0].Status != SubtaskDone {
			t.Errorf("subtasks: %+v %v", subs, err)
		}
		found, err := c.Search(ctx, b.project, "docs")
		if err != nil || len(found) != 1 || found[0].ColumnName != "Work in progress" || found[0].NbSubtasks != 1 {
			t.Errorf("search: %+v %v", found, err)
		}
		open, err := c.Tasks(ctx, b.project, Open)
		if err != nil || len(open) != 2 {
			t.Errorf("open tasks: %d %v", len(open), err)
		}
	}
}

// TestRetriesReadsOnly counts requests: a read is tried again while
// Kanboard fails, a write never.
func TestRetriesReadsOnly(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	c := b.client(t, Options{Retries: 2})
	b.fake.FailNext(2)
	if _, err := c.Task(ctx, b.task); err != nil {
		t.Errorf("a read after two 502s: %v", err)
	}
	if n := b.fake.Requests("getTask"); n != 3 {
		t.Errorf("getTask sent %d times, want 3", n)
	}
	b.fake.FailNext(5)
	if _, err := c.Columns(ctx, b.project); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a read failing every time: %v", err)
	}
	if n := b.fake.Requests("getColumns"); n != 3 {
		t.Errorf("getColumns sent %d times, want 3 (1 + 2 retries)", n)
	}
	b.fake.FailNext(1)
	if _, err := c.CreateTask(ctx, NewTask{ProjectID: b.project, Title: "once"}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a write after a 502: %v", err)
	}
	b.fake.FailNext(1)
	if err := c.CloseTask(ctx, b.task); !errors.Is(err, ErrUnavailable) {
		t.Errorf("closeTask after a 502: %v", err)
	}
	if n, m := b.fake.Requests("createTask"), b.fake.Requests("closeTask"); n != 1 || m != 1 {
		t.Errorf("writes sent %d and %d times, want once each", n, m)
	}
}

// TestMisbehaving: a Kanboard that hangs, answers HTML or a huge body gives
// a clear error, in time, and a hanging write is not sent again.
func TestMisbehaving(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	c := b.client(t, Options{Timeout: 100 * time.Millisecond, Retries: 1, MaxResponse: 1 << 20})

	b.fake.Hang(true)
	start := time.Now()
	_, err := c.Version(ctx)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no answer within 100ms") {
		t.Errorf("hang: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("hang took %s", d)
	}
	if _, err := c.CreateTask(ctx, NewTask{ProjectID: b.project, Title: "x"}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("hanging write: %v", err)
	}
	if n := b.fake.Requests("createTask"); n != 1 {
		t.Errorf("a hanging write was sent %d times", n)
	}
	b.fake.Hang(false)

	b.fake.AnswerHTML(true)
	if _, err := c.Task(ctx, b.task); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "HTML") {
		t.Errorf("html: %v", err)
	}
	b.fake.AnswerHTML(false)

	b.fake.AnswerHuge(2 << 20)
	before := b.fake.Requests("getAllTasks")
	if _, err := c.Tasks(ctx, b.project, Open); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge: %v", err)
	}
	if n := b.fake.Requests("getAllTasks") - before; n != 1 {
		t.Errorf("a huge answer was asked for %d times", n)
	}
	b.fake.AnswerHuge(0)

	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Version(ctx); !errors.Is(err, ErrUnavailable) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestLockout: Kanboard locks a user after six failed logins; the client
// stops after three in a row, so that it never locks the user out itself.
func TestLockout(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	wrong := b.client(t, Options{User: "claude", Token: "not-the-token"})
	for i := range 5 {
		_, err := wrong.Task(ctx, b.task)
		if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "locked out") {
			t.Errorf("attempt %d: %v", i, err)
		}
	}
	if n := b.fake.Requests("getTask"); n != maxAuthFailures {
		t.Errorf("sent %d requests with a refused token, want %d", n, maxAuthFailures)
	}
	if b.fake.Locked("claude") {
		t.Error("the client locked the user out")
	}
	// The fake locks as Kanboard does: after six failures even the right token is refused.
	for range 2 {
		b.client(t, Options{User: "claude", Token: "not-the-token"}).Version(ctx)
		b.client(t, Options{User: "claude", Token: "not-the-token"}).Version(ctx)
	}
	if !b.fake.Locked("claude") {
		t.Fatal("the fake did not lock the user after six failed logins")
	}
	right := b.client(t, Options{User: "claude", Token: "claude-token-1234"})
	if _, err := right.Version(ctx); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("locked user with the right token: %v", err)
	}
	b.fake.Unlock("claude")
	if _, err := b.client(t, Options{User: "claude", Token: "claude-token-1234"}).Version(ctx); err != nil {
		t.Errorf("after unlocking: %v", err)
	}
	// The application identity counts toward no user.
	for range 8 {
		b.client(t, Options{Token: "wrong"}).Version(ctx)
	}
	if _, err := b.client(t, Options{}).Version(ctx); err != nil {
		t.Errorf("the application identity after bad logins: %v", err)
	}
}

// TestTokenNeverInErrors: no failure carries the token or a URL password.
func TestTokenNeverInErrors(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	url := strings.Replace(b.fake.URL, "http://", "http://user:url-password-77@", 1)
	c := b.client(t, Options{URL: url + "/nowhere/" + token, Timeout: 50 * time.Millisecond, Retries: -1})
	var errs []error
	_, err := c.Version(ctx)
	errs = append(errs, err)
	c = b.client(t, Options{URL: "http://127.0.0.1:1/" + token, Retries: -1})
	_, err = c.Version(ctx)
	errs = append(errs, err)
	b.fake.Hang(true)
	_, err = b.client(t, Options{Timeout: 50 * time.Millisecond, Retries: -1}).Version(ctx)
	errs = append(errs, err)
	for _, err := range errs {
		if err == nil || strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "url-password-77") {
			t.Errorf("error carries a credential (or none came): %v", err)
		}
	}
}

func TestConfigFrom(t *testing.T) {
	dir := t.TempDir()
	file, empty := filepath.Join(dir, "token"), filepath.Join(dir, "empty")
	os.WriteFile(file, []byte("file-token-value\n"), 0o600)
	os.WriteFile(empty, nil, 0o600)
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	c, err := ConfigFrom(env("KANBOARD_URL", "http://kb", "KANBOARD_TOKEN_FILE", file, "KANBOARD_PROJECTS", "3, 7"))
	if err != nil || c.URL != "http://kb" || c.User != AppUser || c.Token != "file-token-value" || !c.TokenFromFile || !slices.Equal(c.Projects, []int{3, 7}) {
		t.Errorf("config = %+v, %v", c, err)
	}
	c, err = ConfigFrom(env("KANBOARD_TOKEN_FILE", empty, "KANBOARD_USER", "claude"))
	if err != nil || c.Token != "" || c.TokenFromFile || c.User != "claude" || c.Projects != nil {
		t.Errorf("empty token file: %+v, %v", c, err)
	}
	if _, err := ConfigFrom(env("KANBOARD_PROJECTS", "1,x")); err == nil {
		t.Error("a project id that is not a number was accepted")
	}
	if _, err := ConfigFrom(env("KANBOARD_TOKEN_FILE", filepath.Join(dir, "missing"))); err == nil {
		t.Error("a missing token file was accepted")
	}
}

// FuzzDecode: whatever the body, Decode does not panic, a result is valid
// JSON, and an error is one of the sentinels.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","result":1,"id":1}`, `{"jsonrpc":"2.0","result":false,"id":1}`, `{"jsonrpc":"2.0","result":null,"id":"1"}`,
		`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":"Too many arguments"},"id":1}`,
		`{"jsonrpc":"2.0","error":{"code":401,"message":"Unauthorized"},"id":null}`, `{"error":{"code":"403"}}`,
		`[{"jsonrpc":"2.0","result":1,"id":1}]`, ``, `<html>`, `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","result":[{"id":"1"}],"id":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := Decode(body, 1)
		if err != nil {
			if !slices.ContainsFunc([]error{ErrProtocol, ErrBadParams, ErrUnauthorized, ErrForbidden}, func(s error) bool { return errors.Is(err, s) }) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			return
		}
		var tasks []Task
		var task Task
		_ = jsonUnmarshal(res, &tasks)
		_ = jsonUnmarshal(res, &task)
		if !jsonValid(res) {
			t.Fatalf("result is not JSON: %q", res)
		}
	})
}
