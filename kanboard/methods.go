package kanboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// result kinds Kanboard uses for "nothing": null, false and 0.
func isNull(raw json.RawMessage) bool  { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
func isFalse(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("false")) }
func isTrue(raw json.RawMessage) bool  { return bytes.Equal(bytes.TrimSpace(raw), []byte("true")) }

// into decodes a result of the shape method promises.
func (c *Client) into(method string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return c.fail(method, 200, ErrProtocol, "result of an unexpected shape: "+err.Error())
	}
	return nil
}

// list decodes a list result; PHP sends an empty list as [] and sometimes
// as {} (an empty associative array), and a list keyed by id as an object.
func list[T any](c *Client, method string, raw json.RawMessage) ([]T, error) {
	raw = bytes.TrimSpace(raw)
	out := []T{}
	switch {
	case isNull(raw), isFalse(raw):
		return out, nil
	case len(raw) > 0 && raw[0] == '{':
		var m map[string]T
		if err := c.into(method, raw, &m); err != nil {
			return nil, err
		}
		keys := make([]int, 0, len(m))
		for k := range m {
			n, _ := strconv.Atoi(k)
			keys = append(keys, n)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, m[strconv.Itoa(k)])
		}
		return out, nil
	}
	err := c.into(method, raw, &out)
	return out, err
}

// fastList decodes a list answer whole, in one pass, into *out; it
// reports false (leaving Decode and list to tell what it is) for anything
// but a well-formed answer to call id whose result is a JSON array.
func fastList[T any](out *[]T) func(body []byte, id int64) bool {
	return func(body []byte, id int64) bool {
		var r struct {
			JSONRPC string          `json:"jsonrpc"`
			Result  *[]T            `json:"result"`
			Error   json.RawMessage `json:"error"`
			ID      Int             `json:"id"`
		}
		if json.Unmarshal(body, &r) != nil || r.JSONRPC != "2.0" || r.Error != nil || int64(r.ID) != id || r.Result == nil || *r.Result == nil {
			*out = nil
			return false
		}
		*out = *r.Result
		return true
	}
}

// one decodes a single object, where null (or false) means what is missing.
func one[T any](c *Client, method string, raw json.RawMessage, what string) (T, error) {
	var v T
	if isNull(raw) || isFalse(raw) {
		return v, c.fail(method, 200, ErrNotFound, what)
	}
	err := c.into(method, raw, &v)
	return v, err
}

// newID decodes the id a create returns: 0 and false mean it failed.
func (c *Client) newID(method string, raw json.RawMessage, zero, no error, zeroMsg, noMsg string) (int, error) {
	if isFalse(raw) {
		return 0, c.fail(method, 200, no, noMsg)
	}
	var id Int
	if err := c.into(method, raw, &id); err != nil {
		return 0, err
	}
	if id <= 0 {
		return 0, c.fail(method, 200, zero, zeroMsg)
	}
	return int(id), nil
}

// done checks a write's true; false is ErrNotFound when the task is
// missing (a read tells), else ErrRejected.
func (c *Client) done(ctx context.Context, method string, raw json.RawMessage, taskID int, why string) error {
	if isTrue(raw) {
		return nil
	}
	if !isFalse(raw) {
		return c.fail(method, 200, ErrProtocol, "result is neither true nor false")
	}
	if _, err := c.Task(ctx, taskID); errors.Is(err, ErrNotFound) {
		return c.fail(method, 200, ErrNotFound, fmt.Sprintf("task %d", taskID))
	}
	return c.fail(method, 200, ErrRejected, why)
}

// Version is Kanboard's version (getVersion): a ping that checks the
// endpoint and the credentials.
func (c *Client) Version(ctx context.Context) (string, error) {
	raw, err := c.call(ctx, "getVersion", nil, true)
	if err != nil {
		return "", err
	}
	var v string
	return v, c.into("getVersion", raw, &v)
}

// Me is the user the client acts as (getMe), fetched once. The
// application identity has none: ErrForbidden.
func (c *Client) Me(ctx context.Context) (User, error) {
	c.meOnce.Lock()
	defer c.meOnce.Unlock()
	if c.me != nil {
		return *c.me, nil
	}
	raw, err := c.call(ctx, "getMe", nil, true)
	if err != nil {
		return User{}, err
	}
	u, err := one[User](c, "getMe", raw, "no user")
	if err == nil {
		c.me = &u
	}
	return u, err
}

// AllProjects is every project (getAllProjects), for the application
// identity.
func (c *Client) AllProjects(ctx context.Context) ([]Project, error) {
	raw, err := c.call(ctx, "getAllProjects", nil, true)
	if err != nil {
		return nil, err
	}
	return list[Project](c, "getAllProjects", raw)
}

// MyProjects is the projects the user is a member of (getMyProjects); the
// application identity gets ErrForbidden.
func (c *Client) MyProjects(ctx context.Context) ([]Project, error) {
	raw, err := c.call(ctx, "getMyProjects", nil, true)
	if err != nil {
		return nil, err
	}
	return list[Project](c, "getMyProjects", raw)
}

// Projects is what the identity can see: every project for the application
// identity, the user's own projects for a user.
func (c *Client) Projects(ctx context.Context) ([]Project, error) {
	if c.IsApp() {
		return c.AllProjects(ctx)
	}
	return c.MyProjects(ctx)
}

type projectID struct {
	ProjectID int `json:"project_id"`
}

type taskID struct {
	TaskID int `json:"task_id"`
}

// Project is one project (getProjectById).
func (c *Client) Project(ctx context.Context, id int) (Project, error) {
	raw, err := c.call(ctx, "getProjectById", projectID{id}, true)
	if err != nil {
		return Project{}, err
	}
	return one[Project](c, "getProjectById", raw, fmt.Sprintf("project %d", id))
}

// Columns is a project's columns in board order (getColumns).
func (c *Client) Columns(ctx context.Context, project int) ([]Column, error) {
	raw, err := c.call(ctx, "getColumns", projectID{project}, true)
	if err != nil {
		return nil, err
	}
	return list[Column](c, "getColumns", raw)
}

// Swimlanes is a project's active swimlanes (getActiveSwimlanes).
func (c *Client) Swimlanes(ctx context.Context, project int) ([]Swimlane, error) {
	raw, err := c.call(ctx, "getActiveSwimlanes", projectID{project}, true)
	if err != nil {
		return nil, err
	}
	return list[Swimlane](c, "getActiveSwimlanes", raw)
}

// ProjectUsers maps the ids of a project's members to their user names
// (getProjectUsers).
func (c *Client) ProjectUsers(ctx context.Context, project int) (map[int]string, error) {
	raw, err := c.call(ctx, "getProjectUsers", projectID{project}, true)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
		return out, nil // [] is PHP's empty array
	}
	var m map[string]string
	if err := c.into("getProjectUsers", raw, &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		if id, err := strconv.Atoi(k); err == nil {
			out[id] = v
		}
	}
	return out, nil
}

// Status selects tasks by state.
type Status int

// The states getAllTasks knows (its status_id).
const (
	Closed Status = 0
	Open   Status = 1
)

// Tasks is a project's tasks in one state (getAllTasks). An unknown project
// gives none, as Kanboard answers.
func (c *Client) Tasks(ctx context.Context, project int, st Status) ([]Task, error) {
	var tasks []Task
	raw, err := c.call(ctx, "getAllTasks", struct {
		ProjectID int    `json:"project_id"`
		StatusID  Status `json:"status_id"`
	}{project, st}, true, fastList(&tasks))
	if err != nil || raw == nil {
		return tasks, err
	}
	return list[Task](c, "getAllTasks", raw)
}

// Search is a project's tasks matching a query in Kanboard's filter syntax
// (searchTasks: "status:open assignee:me login"); without a status: filter
// it finds open and closed tasks.
func (c *Client) Search(ctx context.Context, project int, query string) ([]Task, error) {
	var tasks []Task
	raw, err := c.call(ctx, "searchTasks", struct {
		ProjectID int    `json:"project_id"`
		Query     string `json:"query"`
	}{project, query}, true, fastList(&tasks))
	if err != nil || raw == nil {
		return tasks, err
	}
	return list[Task](c, "searchTasks", raw)
}

// Task is one task (getTask).
func (c *Client) Task(ctx context.Context, id int) (Task, error) {
	raw, err := c.call(ctx, "getTask", taskID{id}, true)
	if err != nil {
		return Task{}, err
	}
	return one[Task](c, "getTask", raw, fmt.Sprintf("task %d", id))
}

// Comments is a task's comments, oldest first (getAllComments).
func (c *Client) Comments(ctx context.Context, task int) ([]Comment, error) {
	raw, err := c.call(ctx, "getAllComments", taskID{task}, true)
	if err != nil {
		return nil, err
	}
	return list[Comment](c, "getAllComments", raw)
}

// Subtasks is a task's subtasks in order (getAllSubtasks).
func (c *Client) Subtasks(ctx context.Context, task int) ([]Subtask, error) {
	raw, err := c.call(ctx, "getAllSubtasks", taskID{task}, true)
	if err != nil {
		return nil, err
	}
	return list[Subtask](c, "getAllSubtasks", raw)
}

// Subtask is one subtask (getSubtask).
func (c *Client) Subtask(ctx context.Context, id int) (Subtask, error) {
	raw, err := c.call(ctx, "getSubtask", struct {
		SubtaskID int `json:"subtask_id"`
	}{id}, true)
	if err != nil {
		return Subtask{}, err
	}
	return one[Subtask](c, "getSubtask", raw, fmt.Sprintf("subtask %d", id))
}

// DueLayout is how a due date is sent: Kanboard keeps the current time of
// day for a bare date and refuses ISO 8601 and unix times.
const DueLayout = "2006-01-02 15:04"

// NewTask is a task to create; zero fields are left to Kanboard's defaults
// (first column, default swimlane, yellow, no assignee).
type NewTask struct {
	ProjectID   int       `json:"project_id"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	ColumnID    int       `json:"column_id,omitempty"`
	SwimlaneID  int       `json:"swimlane_id,omitempty"`
	OwnerID     int       `json:"owner_id,omitempty"`
	ColorID     string    `json:"color_id,omitempty"`
	Priority    int       `json:"priority,omitempty"`
	Reference   string    `json:"reference,omitempty"`
	Due         time.Time `json:"-"`
	DateDue     string    `json:"date_due,omitempty"` // set from Due
}

// CreateTask creates a task and returns its id. A project that does not
// exist is ErrNotFound (Kanboard answers 0); a refused value, such as an
// empty title, is ErrRejected (false).
func (c *Client) CreateTask(ctx context.Context, t NewTask) (int, error) {
	if !t.Due.IsZero() {
		t.DateDue = t.Due.Format(DueLayout)
	}
	raw, err := c.call(ctx, "createTask", t, false)
	if err != nil {
		return 0, err
	}
	return c.newID("createTask", raw, ErrNotFound, ErrRejected, fmt.Sprintf("project %d", t.ProjectID), "a value was refused (an empty title, a column or swimlane of another project?)")
}

// TaskChange is an update of a task; nil fields are left as they are.
type TaskChange struct {
	ID          int        `json:"id"`
	Title       *string    `json:"title,omitempty"`
	Description *string    `json:"description,omitempty"`
	ColorID     *string    `json:"color_id,omitempty"`
	OwnerID     *int       `json:"owner_id,omitempty"` // 0 unassigns
	Priority    *int       `json:"priority,omitempty"`
	Reference   *string    `json:"reference,omitempty"`
	Due         *time.Time `json:"-"`
	DateDue     *string    `json:"date_due,omitempty"` // set from Due
}

// UpdateTask changes a task (updateTask). A task that does not exist is
// ErrNotFound; a refused value is ErrRejected.
func (c *Client) UpdateTask(ctx context.Context, ch TaskChange) error {
	if ch.Due != nil {
		s := ch.Due.Format(DueLayout)
		ch.DateDue = &s
	}
	raw, err := c.call(ctx, "updateTask", ch, false)
	if err != nil {
		return err
	}
	return c.done(ctx, "updateTask", raw, ch.ID, "a value was refused (a date, a title?)")
}

// Move places a task in a column and swimlane of its project, at a
// position (1 is the top).
type Move struct {
	ProjectID  int `json:"project_id"`
	TaskID     int `json:"task_id"`
	ColumnID   int `json:"column_id"`
	Position   int `json:"position"`
	SwimlaneID int `json:"swimlane_id"`
}

// MoveTask moves a task (moveTaskPosition, which needs all five values).
func (c *Client) MoveTask(ctx context.Context, m Move) error {
	if m.Position < 1 {
		return c.fail("moveTaskPosition", 0, ErrRejected, "position starts at 1")
	}
	raw, err := c.call(ctx, "moveTaskPosition", m, false)
	if err != nil {
		return err
	}
	return c.done(ctx, "moveTaskPosition", raw, m.TaskID, "the column or swimlane is not one of the task's project")
}

// CloseTask closes a task (closeTask); closing a closed task succeeds.
func (c *Client) CloseTask(ctx context.Context, id int) error {
	raw, err := c.call(ctx, "closeTask", taskID{id}, false)
	if err != nil {
		return err
	}
	return c.done(ctx, "closeTask", raw, id, "not closed")
}

// OpenTask reopens a task (openTask); opening an open task succeeds.
func (c *Client) OpenTask(ctx context.Context, id int) error {
	raw, err := c.call(ctx, "openTask", taskID{id}, false)
	if err != nil {
		return err
	}
	return c.done(ctx, "openTask", raw, id, "not reopened")
}

// CreateComment adds a comment to a task as the client's identity and
// returns its id: a user comments as itself (Kanboard refuses another
// user_id), the application identity as no user.
func (c *Client) CreateComment(ctx context.Context, task int, content string) (int, error) {
	user := 0
	if !c.IsApp() {
		me, err := c.Me(ctx)
		if err != nil {
			return 0, err
		}
		user = int(me.ID)
	}
	raw, err := c.call(ctx, "createComment", struct {
		TaskID  int    `json:"task_id"`
		UserID  int    `json:"user_id"`
		Content string `json:"content"`
	}{task, user, content}, false)
	if err != nil {
		return 0, err
	}
	if isFalse(raw) {
		return 0, c.done(ctx, "createComment", raw, task, "the comment was refused (empty?)")
	}
	return c.newID("createComment", raw, ErrRejected, ErrRejected, "no comment id", "")
}

// NewSubtask is a subtask to create.
type NewSubtask struct {
	TaskID        int    `json:"task_id"`
	Title         string `json:"title"`
	UserID        int    `json:"user_id,omitempty"`
	TimeEstimated int    `json:"time_estimated,omitempty"`
	Status        int    `json:"status,omitempty"`
}

// CreateSubtask adds a subtask and returns its id.
func (c *Client) CreateSubtask(ctx context.Context, s NewSubtask) (int, error) {
	raw, err := c.call(ctx, "createSubtask", s, false)
	if err != nil {
		return 0, err
	}
	if isFalse(raw) {
		return 0, c.done(ctx, "createSubtask", raw, s.TaskID, "the subtask was refused (an empty title?)")
	}
	return c.newID("createSubtask", raw, ErrRejected, ErrRejected, "no subtask id", "")
}

// SubtaskChange is an update of a subtask; nil fields are left as they are.
type SubtaskChange struct {
	ID            int     `json:"id"`
	TaskID        int     `json:"task_id"`
	Title         *string `json:"title,omitempty"`
	UserID        *int    `json:"user_id,omitempty"`
	Status        *int    `json:"status,omitempty"`
	TimeEstimated *int    `json:"time_estimated,omitempty"`
	TimeSpent     *int    `json:"time_spent,omitempty"`
}

// UpdateSubtask changes a subtask of a task (updateSubtask).
func (c *Client) UpdateSubtask(ctx context.Context, ch SubtaskChange) error {
	raw, err := c.call(ctx, "updateSubtask", ch, false)
	if err != nil {
		return err
	}
	if isTrue(raw) {
		return nil
	}
	if _, err := c.Subtask(ctx, ch.ID); errors.Is(err, ErrNotFound) {
		return c.fail("updateSubtask", 200, ErrNotFound, fmt.Sprintf("subtask %d", ch.ID))
	}
	return c.done(ctx, "updateSubtask", raw, ch.TaskID, "the change was refused (a subtask of another task?)")
}
