// Package kanboardtest is a fake Kanboard for tests: an httptest server
// speaking Kanboard's JSON-RPC API (jsonrpc.php) as the real v1.2.53 does,
// quirks included, as /work/shared/KANBOARD_API.md records them. It is not
// Kanboard: it keeps its data in memory and implements the methods Bridle
// calls, no more.
//
// What it mirrors:
//
//   - HTTP Basic auth: user jsonrpc with the application token (no user
//     session: no membership checks, getMe and getMy* answer 403), or a
//     user with its personal token. A bad login is 401 with
//     WWW-Authenticate; a user's sixth failed login in a row locks it, and
//     a locked user gets 401 even with the right token (Unlock lifts it).
//   - Under a user's credentials a project it is not a member of — or one
//     that does not exist — is 403, not null. Being an app-admin does not
//     make a user a member.
//   - Domain failures are results: null for a missing row, false for a
//     refused write, 0 for createTask on a missing project.
//   - Params by name or by position; an unknown name is -32602 "Too many
//     arguments", a missing one -32602 "Wrong number of arguments"; an
//     unknown method -32601; a malformed body or a GET -32700; no
//     "jsonrpc":"2.0" -32600; a notification gets an empty body.
//   - getAllTasks gives open tasks unless status_id says 0; searchTasks
//     gives open and closed unless the query has status:; date_due takes
//     Y-m-d (keeping the time of day), Y-m-d H:i and m/d/Y, and refuses
//     ISO 8601 and unix times.
//
// Switches make it misbehave: Hang (never answer), AnswerHTML (a proxy's
// page), AnswerHuge (a body of n bytes), FailNext (n answers of 502) and
// StringInts (ids as "1", as older PHP sends them). It records every
// request's method (Requests) and who made each change (Changes).
package kanboardtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Version is what getVersion answers.
const Version = "1.2.53"

// LockoutAfter is how many failed logins in a row lock a user.
const LockoutAfter = 6

// Fake is a fake Kanboard server.
type Fake struct {
	// URL is the base URL; the endpoint is URL + "/jsonrpc.php".
	URL string
	// Token is the application token (user jsonrpc).
	Token string

	srv       *httptest.Server
	appTokens map[string]bool // more application tokens (AcceptAppToken), under mu
	release   chan struct{}

	hang       atomic.Bool
	html       atomic.Bool
	stringInts atomic.Bool
	huge       atomic.Int64
	fail       atomic.Int32

	mu       sync.Mutex
	users    map[string]*user
	projects map[int]*project
	tasks    map[int]*Task
	comments map[int]*comment
	subtasks map[int]*subtask
	lastID   int
	changes  []Change
	requests map[string]int
	now      func() time.Time
}

type user struct {
	id                int
	name, token, role string
	failed            int
	locked            bool
}

type project struct {
	id        int
	name      string
	members   map[int]bool
	columns   []column
	swimlanes []swimlane
}

type column struct {
	id    int
	title string
}

type swimlane struct {
	id   int
	name string
}

// Task is a task as the fake holds it.
type Task struct {
	ID          int
	ProjectID   int
	ColumnID    int // 0: the project's first column
	SwimlaneID  int // 0: the default swimlane
	OwnerID     int
	CreatorID   int
	Position    int
	Title       string
	Description string
	ColorID     string
	Priority    int
	Reference   string
	Closed      bool
	DateDue     int64
	Created     int64
	Modified    int64
}

type comment struct {
	id, taskID, userID int
	content            string
	created            int64
}

type subtask struct {
	id, taskID, userID, status, position, estimated, spent int
	title                                                  string
}

// Change is a write the fake applied: who (jsonrpc, or a user name), which
// method, on which task.
type Change struct {
	User   string
	Method string
	TaskID int
}

// New starts a fake with application token token; it stops when the test
// ends.
func New(t testing.TB, token string) *Fake {
	f := &Fake{
		Token: token, release: make(chan struct{}),
		users: map[string]*user{}, projects: map[int]*project{}, tasks: map[int]*Task{},
		comments: map[int]*comment{}, subtasks: map[int]*subtask{}, requests: map[string]int{},
		now: time.Now,
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	f.URL = f.srv.URL
	t.Cleanup(func() {
		close(f.release)
		f.srv.Close()
	})
	return f
}

// Endpoint is the jsonrpc.php URL.
func (f *Fake) Endpoint() string { return f.URL + "/jsonrpc.php" }

func (f *Fake) id() int { f.lastID++; return f.lastID }

// AddUser adds a user with a personal API token and a role (app-admin,
// app-manager, app-user; "" is app-user) and returns its id.
func (f *Fake) AddUser(name, token, role string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if role == "" {
		role = "app-user"
	}
	u := &user{id: f.id(), name: name, token: token, role: role}
	f.users[name] = u
	return u.id
}

// AcceptAppToken makes tok an application token too (a rotation: both are
// valid until RevokeAppToken).
func (f *Fake) AcceptAppToken(tok string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.appTokens == nil {
		f.appTokens = map[string]bool{}
	}
	f.appTokens[tok] = true
}

// RevokeAppToken stops accepting tok (Token too, when it is tok).
func (f *Fake) RevokeAppToken(tok string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.appTokens, tok)
	if f.Token == tok {
		f.Token = ""
	}
}

// Unlock clears a user's failed logins and lock.
func (f *Fake) Unlock(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if u := f.users[name]; u != nil {
		u.failed, u.locked = 0, false
	}
}

// Locked reports whether a user is locked out.
func (f *Fake) Locked(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := f.users[name]
	return u != nil && u.locked
}

// AddProject adds a project with Kanboard's default columns (Backlog,
// Ready, Work in progress, Done) and its default swimlane, and returns its
// id. Members are user ids.
func (f *Fake) AddProject(name string, members ...int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := &project{id: f.id(), name: name, members: map[int]bool{}}
	for _, m := range members {
		p.members[m] = true
	}
	for _, c := range []string{"Backlog", "Ready", "Work in progress", "Done"} {
		p.columns = append(p.columns, column{f.id(), c})
	}
	p.swimlanes = []swimlane{{f.id(), "Default swimlane"}}
	f.projects[p.id] = p
	return p.id
}

// AddMember makes a user a member of a project.
func (f *Fake) AddMember(projectID, userID int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.projects[projectID].members[userID] = true
}

// AddSwimlane adds a swimlane to a project and returns its id.
func (f *Fake) AddSwimlane(projectID int, name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.projects[projectID]
	s := swimlane{f.id(), name}
	p.swimlanes = append(p.swimlanes, s)
	return s.id
}

// Columns returns a project's column ids in board order.
func (f *Fake) Columns(projectID int) []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []int
	for _, c := range f.projects[projectID].columns {
		ids = append(ids, c.id)
	}
	return ids
}

// AddTask stores t (its ID is assigned) and returns its id.
func (f *Fake) AddTask(t Task) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.projects[t.ProjectID]
	t.ID = f.id()
	if t.ColumnID == 0 {
		t.ColumnID = p.columns[0].id
	}
	if t.SwimlaneID == 0 {
		t.SwimlaneID = p.swimlanes[0].id
	}
	if t.ColorID == "" {
		t.ColorID = "yellow"
	}
	if t.Position == 0 {
		t.Position = f.count(t.ColumnID, t.SwimlaneID) + 1
	}
	if t.Created == 0 {
		t.Created = f.now().Unix()
		t.Modified = t.Created
	}
	f.tasks[t.ID] = &t
	return t.ID
}

// SeedTasks adds n tasks to a project, spread over its columns, one in
// five closed, and returns their ids.
func (f *Fake) SeedTasks(projectID, n int) []int {
	cols := f.Columns(projectID)
	ids := make([]int, 0, n)
	for i := range n {
		ids = append(ids, f.AddTask(Task{ProjectID: projectID, ColumnID: cols[i%len(cols)], Closed: i%5 == 4,
			Title: fmt.Sprintf("Task %d: fix the thing number %d", i+1, i+1), Description: strings.Repeat("Some words about it. ", 5),
			Priority: i % 4}))
	}
	return ids
}

// Task returns a copy of a stored task.
func (f *Fake) Task(id int) (Task, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tasks[id]
	if !ok {
		return Task{}, false
	}
	return *t, true
}

// Comments returns a task's comments' texts and authors' ids.
func (f *Fake) Comments(taskID int) (texts []string, users []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.sortedComments(taskID) {
		texts, users = append(texts, c.content), append(users, c.userID)
	}
	return texts, users
}

// Changes returns every write applied, in order.
func (f *Fake) Changes() []Change {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.changes)
}

// Requests returns how many requests named method arrived (all requests
// for ""), whatever their outcome.
func (f *Fake) Requests(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if method == "" {
		n := 0
		for _, c := range f.requests {
			n += c
		}
		return n
	}
	return f.requests[method]
}

// Hang makes every request wait until the client gives up (or the test ends).
func (f *Fake) Hang(on bool) { f.hang.Store(on) }

// AnswerHTML makes every request get a 200 HTML page, as a proxy's login
// or error page.
func (f *Fake) AnswerHTML(on bool) { f.html.Store(on) }

// AnswerHuge makes every request get a valid JSON-RPC body of about n
// bytes; 0 turns it off.
func (f *Fake) AnswerHuge(n int64) { f.huge.Store(n) }

// FailNext makes the next n requests get a 502.
func (f *Fake) FailNext(n int) { f.fail.Store(int32(n)) }

// StringInts makes every number in results a string ("1"), as older PHP
// and the MySQL and Postgres drivers send them.
func (f *Fake) StringInts(on bool) { f.stringInts.Store(on) }

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	ID      json.RawMessage `json:"id"`
	Params  json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

// caller is who a request authenticated as: app, or a user.
type caller struct {
	app  bool
	user *user
}

func (c caller) name() string {
	if c.app {
		return "jsonrpc"
	}
	return c.user.name
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	body.ReadFrom(http.MaxBytesReader(w, r.Body, 8<<20))
	f.countRequests(body.Bytes())
	if r.URL.Path != "/jsonrpc.php" {
		http.NotFound(w, r)
		return
	}
	if f.hang.Load() {
		select {
		case <-r.Context().Done():
		case <-f.release:
		}
		return
	}
	if f.fail.Load() > 0 {
		f.fail.Add(-1)
		http.Error(w, "502 Bad Gateway", http.StatusBadGateway)
		return
	}
	if f.html.Load() {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Please sign in</body></html>\n")
		return
	}
	if n := f.huge.Load(); n > 0 {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","result":"`)
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for written := int64(0); written < n; written += int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		fmt.Fprint(w, `","id":1}`)
		return
	}
	c, ok := f.auth(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="JsonRPC"`)
		writeJSON(w, http.StatusUnauthorized, rpcResponse{JSONRPC: "2.0", Error: &rpcError{Code: 401, Message: "Unauthorized"}, ID: json.RawMessage("null")})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	b := bytes.TrimSpace(body.Bytes())
	if r.Method != http.MethodPost || len(b) == 0 {
		writeJSON(w, 200, parseError())
		return
	}
	if b[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) != nil {
			writeJSON(w, 200, parseError())
			return
		}
		var out []any
		for _, one := range batch {
			resp, forbidden := f.dispatch(c, one)
			if forbidden {
				resp = &rpcResponse{JSONRPC: "2.0", Error: &rpcError{Code: 403, Message: "Forbidden"}, ID: json.RawMessage("null")}
			}
			if resp != nil {
				out = append(out, resp)
			}
		}
		writeJSON(w, 200, f.ints(out))
		return
	}
	resp, forbidden := f.dispatch(c, b)
	switch {
	case forbidden:
		writeJSON(w, http.StatusForbidden, rpcResponse{JSONRPC: "2.0", Error: &rpcError{Code: 403, Message: "Forbidden"}, ID: json.RawMessage("null")})
	case resp == nil: // a notification
	default:
		writeJSON(w, 200, f.ints(resp))
	}
}

func parseError() rpcResponse {
	return rpcResponse{JSONRPC: "2.0", Error: &rpcError{Code: -32700, Message: "Parse error"}, ID: json.RawMessage("null")}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func (f *Fake) countRequests(b []byte) {
	var r struct {
		Method string `json:"method"`
	}
	json.Unmarshal(b, &r)
	f.mu.Lock()
	f.requests[r.Method]++
	f.mu.Unlock()
}

// auth checks Basic auth; a user's failed logins count toward its lock.
func (f *Fake) auth(r *http.Request) (caller, bool) {
	name, token, ok := r.BasicAuth()
	if !ok {
		return caller{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if name == "jsonrpc" {
		return caller{app: true}, (token == f.Token && f.Token != "") || f.appTokens[token]
	}
	u := f.users[name]
	if u == nil {
		return caller{}, false
	}
	if u.locked || token != u.token {
		u.failed++
		if u.failed >= LockoutAfter {
			u.locked = true
		}
		return caller{}, false
	}
	u.failed = 0
	return caller{user: u}, true
}

// ints renders every number of v as a string when StringInts is on.
func (f *Fake) ints(v any) any {
	if !f.stringInts.Load() {
		return v
	}
	b, _ := json.Marshal(v)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var g any
	d.Decode(&g)
	var walk func(any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				if k == "id" && len(x) <= 4 && x["jsonrpc"] != nil {
					continue // the response's own id stays a number
				}
				x[k] = walk(v)
			}
		case []any:
			for i, v := range x {
				x[i] = walk(v)
			}
		case json.Number:
			return x.String()
		}
		return x
	}
	return walk(g)
}

var errForbidden = errors.New("forbidden")

// errParams is -32602 with Kanboard's data.
type errParams string

func (e errParams) Error() string { return string(e) }

// dispatch answers one call; nil for a notification; forbidden for a 403.
func (f *Fake) dispatch(c caller, b []byte) (resp *rpcResponse, forbidden bool) {
	var req rpcRequest
	if err := json.Unmarshal(b, &req); err != nil {
		p := parseError()
		return &p, false
	}
	if req.JSONRPC != "2.0" {
		return &rpcResponse{JSONRPC: "2.0", Error: &rpcError{Code: -32600, Message: "Invalid Request"}, ID: json.RawMessage("null")}, false
	}
	notification := len(req.ID) == 0
	answer := func(r rpcResponse) (*rpcResponse, bool) {
		if notification {
			return nil, false
		}
		r.JSONRPC, r.ID = "2.0", req.ID
		return &r, false
	}
	m, ok := methods[req.Method]
	if !ok {
		return answer(rpcResponse{Error: &rpcError{Code: -32601, Message: "Method not found"}})
	}
	a, err := bind(m.params, m.required, req.Params)
	if err != nil {
		return answer(rpcResponse{Error: &rpcError{Code: -32602, Message: "Invalid params", Data: err.Error()}})
	}
	if c.app && m.userOnly {
		return nil, true
	}
	f.mu.Lock()
	res, err := m.fn(f, c, a)
	f.mu.Unlock()
	if errors.Is(err, errForbidden) {
		return nil, true
	}
	if err != nil {
		return answer(rpcResponse{Error: &rpcError{Code: -32602, Message: "Invalid params", Data: err.Error()}})
	}
	if res == nil {
		res = json.RawMessage("null")
	}
	return answer(rpcResponse{Result: res})
}

// args are a call's params by name; numbers stay json.Number.
type args map[string]any

func (a args) has(k string) bool { _, ok := a[k]; return ok }

func (a args) int(k string) int {
	switch v := a[k].(type) {
	case json.Number:
		n, _ := strconv.Atoi(v.String())
		return n
	case string:
		n, _ := strconv.Atoi(v)
		return n
	case bool:
		if v {
			return 1
		}
	}
	return 0
}

func (a args) str(k string) string {
	switch v := a[k].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// bind matches params, by name or by position, to a method's names.
func bind(names []string, required int, raw json.RawMessage) (args, error) {
	a := args{}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && string(raw) != "null" {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if raw[0] == '[' {
			var list []any
			if d.Decode(&list) != nil {
				return nil, errParams("Wrong number of arguments")
			}
			if len(list) > len(names) {
				return nil, errParams("Too many arguments")
			}
			for i, v := range list {
				a[names[i]] = v
			}
		} else if d.Decode(&a) != nil {
			return nil, errParams("Wrong number of arguments")
		}
	}
	for k := range a {
		if !slices.Contains(names, k) {
			return nil, errParams("Too many arguments")
		}
	}
	for _, k := range names[:required] {
		if !a.has(k) {
			return nil, errParams("Wrong number of arguments")
		}
	}
	return a, nil
}

// method is one JSON-RPC procedure: its parameter names (the first
// required ones first), and whether only a user may call it.
type method struct {
	params   []string
	required int
	userOnly bool
	fn       func(f *Fake, c caller, a args) (any, error)
}
