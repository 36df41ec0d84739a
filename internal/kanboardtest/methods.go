package kanboardtest

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// methods are the procedures the fake knows, with Kanboard's parameter
// names.
var methods = map[string]method{
	"getVersion":         {fn: func(*Fake, caller, args) (any, error) { return Version, nil }},
	"getMe":              {userOnly: true, fn: (*Fake).getMe},
	"getMyProjects":      {userOnly: true, fn: (*Fake).getMyProjects},
	"getAllProjects":     {fn: (*Fake).getAllProjects},
	"getProjectById":     {params: []string{"project_id"}, required: 1, fn: (*Fake).getProjectByID},
	"getColumns":         {params: []string{"project_id"}, required: 1, fn: (*Fake).getColumns},
	"getActiveSwimlanes": {params: []string{"project_id"}, required: 1, fn: (*Fake).getActiveSwimlanes},
	"getProjectUsers":    {params: []string{"project_id"}, required: 1, fn: (*Fake).getProjectUsers},
	"createTask": {params: []string{"title", "project_id", "color_id", "column_id", "owner_id", "creator_id", "date_due", "description",
		"category_id", "score", "swimlane_id", "priority", "recurrence_status", "recurrence_trigger", "recurrence_factor",
		"recurrence_timeframe", "recurrence_basedate", "reference", "tags", "date_started", "time_spent", "time_estimated"}, required: 2, fn: (*Fake).createTask},
	"getAllTasks": {params: []string{"project_id", "status_id"}, required: 1, fn: (*Fake).getAllTasks},
	"searchTasks": {params: []string{"project_id", "query"}, required: 2, fn: (*Fake).searchTasks},
	"getTask":     {params: []string{"task_id"}, required: 1, fn: (*Fake).getTask},
	"updateTask": {params: []string{"id", "title", "color_id", "owner_id", "date_due", "description", "category_id", "score", "priority",
		"recurrence_status", "recurrence_trigger", "recurrence_factor", "recurrence_timeframe", "recurrence_basedate", "reference",
		"tags", "date_started", "time_spent", "time_estimated"}, required: 1, fn: (*Fake).updateTask},
	"moveTaskPosition": {params: []string{"project_id", "task_id", "column_id", "position", "swimlane_id"}, required: 5, fn: (*Fake).moveTaskPosition},
	"closeTask":        {params: []string{"task_id"}, required: 1, fn: func(f *Fake, c caller, a args) (any, error) { return f.setOpen(c, a, false) }},
	"openTask":         {params: []string{"task_id"}, required: 1, fn: func(f *Fake, c caller, a args) (any, error) { return f.setOpen(c, a, true) }},
	"createComment":    {params: []string{"task_id", "user_id", "content", "reference", "visibility"}, required: 3, fn: (*Fake).createComment},
	"getAllComments":   {params: []string{"task_id"}, required: 1, fn: (*Fake).getAllComments},
	"createSubtask":    {params: []string{"task_id", "title", "user_id", "time_estimated", "time_spent", "status"}, required: 2, fn: (*Fake).createSubtask},
	"updateSubtask":    {params: []string{"id", "task_id", "title", "user_id", "time_estimated", "time_spent", "status"}, required: 2, fn: (*Fake).updateSubtask},
	"getAllSubtasks":   {params: []string{"task_id"}, required: 1, fn: (*Fake).getAllSubtasks},
	"getSubtask":       {params: []string{"subtask_id"}, required: 1, fn: (*Fake).getSubtask},
}

// projectFor checks a caller may touch project id: the application
// identity always (nil for a missing one), a user only as a member.
func (f *Fake) projectFor(c caller, id int) (*project, error) {
	p := f.projects[id]
	if !c.app && (p == nil || !p.members[c.user.id]) {
		return nil, errForbidden
	}
	return p, nil
}

// taskFor is projectFor for a task.
func (f *Fake) taskFor(c caller, id int) (*Task, error) {
	t := f.tasks[id]
	if c.app {
		return t, nil
	}
	if t == nil {
		return nil, errForbidden
	}
	if _, err := f.projectFor(c, t.ProjectID); err != nil {
		return nil, err
	}
	return t, nil
}

func (f *Fake) record(c caller, method string, task int) {
	f.changes = append(f.changes, Change{User: c.name(), Method: method, TaskID: task})
}

type wireUser struct {
	ID             int    `json:"id"`
	Username       string `json:"username"`
	Name           string `json:"name"`
	Email          string `json:"email"`
	Role           string `json:"role"`
	IsActive       int    `json:"is_active"`
	APIAccessToken string `json:"api_access_token"`
}

func (f *Fake) getMe(c caller, _ args) (any, error) {
	u := c.user
	return wireUser{ID: u.id, Username: u.name, Name: u.name, Role: u.role, IsActive: 1, APIAccessToken: u.token}, nil
}

type wireProject struct {
	ID              int               `json:"id"`
	Name            string            `json:"name"`
	IsActive        int               `json:"is_active"`
	Token           string            `json:"token"`
	LastModified    int64             `json:"last_modified"`
	IsPublic        int               `json:"is_public"`
	IsPrivate       int               `json:"is_private"`
	DefaultSwimlane string            `json:"default_swimlane"`
	Description     string            `json:"description"`
	Identifier      string            `json:"identifier"`
	StartDate       string            `json:"start_date"`
	EndDate         string            `json:"end_date"`
	OwnerID         int               `json:"owner_id"`
	URL             map[string]string `json:"url"`
}

func projectJSON(p *project) wireProject {
	return wireProject{ID: p.id, Name: p.name, IsActive: 1, DefaultSwimlane: "Default swimlane",
		URL: map[string]string{"board": fmt.Sprintf("http://localhost/?controller=BoardViewController&action=show&project_id=%d", p.id),
			"list": fmt.Sprintf("http://localhost/?controller=TaskListController&action=show&project_id=%d", p.id)}}
}

func (f *Fake) sortedProjects(keep func(*project) bool) []wireProject {
	out := []wireProject{}
	for _, p := range f.projects {
		if keep(p) {
			out = append(out, projectJSON(p))
		}
	}
	slices.SortFunc(out, func(a, b wireProject) int { return a.ID - b.ID })
	return out
}

func (f *Fake) getMyProjects(c caller, _ args) (any, error) {
	return f.sortedProjects(func(p *project) bool { return p.members[c.user.id] }), nil
}

// getAllProjects: every project for the application identity and for an
// app-admin; a user otherwise gets 403 (an assumption: KANBOARD_API.md
// records the application identity only).
func (f *Fake) getAllProjects(c caller, _ args) (any, error) {
	if !c.app && c.user.role != "app-admin" {
		return nil, errForbidden
	}
	return f.sortedProjects(func(*project) bool { return true }), nil
}

func (f *Fake) getProjectByID(c caller, a args) (any, error) {
	p, err := f.projectFor(c, a.int("project_id"))
	if err != nil || p == nil {
		return nil, err
	}
	return projectJSON(p), nil
}

type wireColumn struct {
	ID              int    `json:"id"`
	Title           string `json:"title"`
	Position        int    `json:"position"`
	ProjectID       int    `json:"project_id"`
	TaskLimit       int    `json:"task_limit"`
	Description     string `json:"description"`
	HideInDashboard int    `json:"hide_in_dashboard"`
}

func (f *Fake) getColumns(c caller, a args) (any, error) {
	p, err := f.projectFor(c, a.int("project_id"))
	out := []wireColumn{}
	if err != nil || p == nil {
		return out, err
	}
	for i, col := range p.columns {
		out = append(out, wireColumn{ID: col.id, Title: col.title, Position: i + 1, ProjectID: p.id})
	}
	return out, nil
}

type wireSwimlane struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	Position    int    `json:"position"`
	IsActive    int    `json:"is_active"`
	ProjectID   int    `json:"project_id"`
	Description string `json:"description"`
	TaskLimit   int    `json:"task_limit"`
}

func (f *Fake) getActiveSwimlanes(c caller, a args) (any, error) {
	p, err := f.projectFor(c, a.int("project_id"))
	out := []wireSwimlane{}
	if err != nil || p == nil {
		return out, err
	}
	for i, s := range p.swimlanes {
		out = append(out, wireSwimlane{ID: s.id, Name: s.name, Position: i + 1, IsActive: 1, ProjectID: p.id})
	}
	return out, nil
}

// getProjectUsers is an object of id → user name, and [] when empty (PHP's
// empty array).
func (f *Fake) getProjectUsers(c caller, a args) (any, error) {
	p, err := f.projectFor(c, a.int("project_id"))
	if err != nil || p == nil || len(p.members) == 0 {
		return []any{}, err
	}
	out := map[string]string{}
	for _, u := range f.users {
		if p.members[u.id] {
			out[fmt.Sprint(u.id)] = u.name
		}
	}
	return out, nil
}

// parseDue reads date_due as Kanboard does; ok is false for what it refuses.
func (f *Fake) parseDue(v any) (int64, bool) {
	s, isString := v.(string)
	if !isString {
		return 0, false // a unix int is refused
	}
	if s == "" {
		return 0, true
	}
	for _, layout := range []string{"2006-01-02 15:04", "2006_01_02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.Unix(), true
		}
	}
	for _, layout := range []string{"2006-01-02", "2006_01_02", "01/02/2006"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			now := f.now().UTC()
			return t.Add(time.Duration(now.Hour())*time.Hour + time.Duration(now.Minute())*time.Minute + time.Duration(now.Second())*time.Second).Unix(), true
		}
	}
	return 0, false
}

func (p *project) column(id int) bool {
	return slices.ContainsFunc(p.columns, func(c column) bool { return c.id == id })
}

func (p *project) swimlane(id int) bool {
	return slices.ContainsFunc(p.swimlanes, func(s swimlane) bool { return s.id == id })
}

func (f *Fake) count(columnID, swimlaneID int) int {
	n := 0
	for _, t := range f.tasks {
		if t.ColumnID == columnID && t.SwimlaneID == swimlaneID {
			n++
		}
	}
	return n
}

// createTask: 0 for a missing project, false for an empty title or a bad
// value.
func (f *Fake) createTask(c caller, a args) (any, error) {
	p, err := f.projectFor(c, a.int("project_id"))
	if err != nil {
		return nil, err
	}
	if p == nil {
		return 0, nil
	}
	if strings.TrimSpace(a.str("title")) == "" {
		return false, nil
	}
	t := Task{ProjectID: p.id, Title: a.str("title"), Description: a.str("description"), ColorID: a.str("color_id"),
		ColumnID: a.int("column_id"), SwimlaneID: a.int("swimlane_id"), OwnerID: a.int("owner_id"), CreatorID: a.int("creator_id"),
		Priority: a.int("priority"), Reference: a.str("reference")}
	if t.ColumnID == 0 {
		t.ColumnID = p.columns[0].id
	}
	if t.SwimlaneID == 0 {
		t.SwimlaneID = p.swimlanes[0].id
	}
	if !p.column(t.ColumnID) || !p.swimlane(t.SwimlaneID) {
		return false, nil
	}
	if a.has("date_due") {
		due, ok := f.parseDue(a["date_due"])
		if !ok {
			return false, nil
		}
		t.DateDue = due
	}
	if t.CreatorID == 0 && !c.app {
		t.CreatorID = c.user.id
	}
	if t.ColorID == "" {
		t.ColorID = "yellow"
	}
	t.ID = f.id()
	t.Position = f.count(t.ColumnID, t.SwimlaneID) + 1
	t.Created = f.now().Unix()
	t.Modified = t.Created
	f.tasks[t.ID] = &t
	f.record(c, "createTask", t.ID)
	return t.ID, nil
}

type wireColor struct {
	Name       string `json:"name"`
	Background string `json:"background"`
	Border     string `json:"border"`
}

// wireTaskCore is the task columns getTask, getAllTasks and searchTasks share.
type wireTaskCore struct {
	ID                  int     `json:"id"`
	Title               string  `json:"title"`
	Description         string  `json:"description"`
	DateCreation        int64   `json:"date_creation"`
	ColorID             string  `json:"color_id"`
	ProjectID           int     `json:"project_id"`
	ColumnID            int     `json:"column_id"`
	OwnerID             int     `json:"owner_id"`
	Position            int     `json:"position"`
	IsActive            int     `json:"is_active"`
	DateCompleted       *int64  `json:"date_completed"`
	Score               int     `json:"score"`
	DateDue             int64   `json:"date_due"`
	CategoryID          int     `json:"category_id"`
	CreatorID           int     `json:"creator_id"`
	DateModification    int64   `json:"date_modification"`
	Reference           string  `json:"reference"`
	DateStarted         int64   `json:"date_started"`
	TimeSpent           int     `json:"time_spent"`
	TimeEstimated       int     `json:"time_estimated"`
	SwimlaneID          int     `json:"swimlane_id"`
	DateMoved           int64   `json:"date_moved"`
	RecurrenceStatus    int     `json:"recurrence_status"`
	RecurrenceTrigger   int     `json:"recurrence_trigger"`
	RecurrenceFactor    int     `json:"recurrence_factor"`
	RecurrenceTimeframe int     `json:"recurrence_timeframe"`
	RecurrenceBasedate  int     `json:"recurrence_basedate"`
	RecurrenceParent    *int    `json:"recurrence_parent"`
	RecurrenceChild     *int    `json:"recurrence_child"`
	Priority            int     `json:"priority"`
	ExternalProvider    *string `json:"external_provider"`
	ExternalURI         *string `json:"external_uri"`
}

type wireTask struct {
	wireTaskCore
	URL   string    `json:"url"`
	Color wireColor `json:"color"`
}

type wireSearchTask struct {
	wireTaskCore
	NbComments          int     `json:"nb_comments"`
	NbFiles             int     `json:"nb_files"`
	NbSubtasks          int     `json:"nb_subtasks"`
	NbCompletedSubtasks int     `json:"nb_completed_subtasks"`
	NbLinks             int     `json:"nb_links"`
	NbExternalLinks     int     `json:"nb_external_links"`
	IsMilestone         *int    `json:"is_milestone"`
	AssigneeUsername    string  `json:"assignee_username"`
	AssigneeName        string  `json:"assignee_name"`
	AssigneeEmail       string  `json:"assignee_email"`
	AssigneeAvatarPath  string  `json:"assignee_avatar_path"`
	CategoryName        *string `json:"category_name"`
	ColumnName          string  `json:"column_name"`
	ColumnPosition      int     `json:"column_position"`
	SwimlaneName        string  `json:"swimlane_name"`
	ProjectName         string  `json:"project_name"`
}

func core(t *Task) wireTaskCore {
	w := wireTaskCore{ID: t.ID, Title: t.Title, Description: t.Description, DateCreation: t.Created, ColorID: t.ColorID,
		ProjectID: t.ProjectID, ColumnID: t.ColumnID, OwnerID: t.OwnerID, Position: t.Position, IsActive: 1, DateDue: t.DateDue,
		CreatorID: t.CreatorID, DateModification: t.Modified, Reference: t.Reference, SwimlaneID: t.SwimlaneID,
		DateMoved: t.Created, Priority: t.Priority}
	if t.Closed {
		w.IsActive = 0
		done := t.Modified
		w.DateCompleted = &done
	}
	return w
}

func taskJSON(t *Task) wireTask {
	return wireTask{wireTaskCore: core(t), URL: fmt.Sprintf("http://localhost/?controller=TaskViewController&action=show&task_id=%d", t.ID),
		Color: wireColor{Name: t.ColorID, Background: "rgb(245, 247, 196)", Border: "rgb(223, 227, 45)"}}
}

func (f *Fake) searchJSON(t *Task) wireSearchTask {
	w := wireSearchTask{wireTaskCore: core(t)}
	for _, u := range f.users {
		if u.id == t.OwnerID {
			w.AssigneeUsername, w.AssigneeName = u.name, u.name
		}
	}
	p := f.projects[t.ProjectID]
	w.ProjectName = p.name
	for i, col := range p.columns {
		if col.id == t.ColumnID {
			w.ColumnName, w.ColumnPosition = col.title, i+1
		}
	}
	for _, s := range p.swimlanes {
		if s.id == t.SwimlaneID {
			w.SwimlaneName = s.name
		}
	}
	for _, c := range f.comments {
		if c.taskID == t.ID {
			w.NbComments++
		}
	}
	for _, s := range f.subtasks {
		if s.taskID == t.ID {
			w.NbSubtasks++
			if s.status == 2 {
				w.NbCompletedSubtasks++
			}
		}
	}
	return w
}

func (f *Fake) projectTasks(id int, keep func(*Task) bool) []*Task {
	var out []*Task
	for _, t := range f.tasks {
		if t.ProjectID == id && keep(t) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *Task) int { return a.ID - b.ID })
	return out
}

// getAllTasks: open tasks by default, closed for status_id 0, none for
// another status.
func (f *Fake) getAllTasks(c caller, a args) (any, error) {
	p, err := f.projectFor(c, a.int("project_id"))
	out := []wireTask{}
	if err != nil || p == nil {
		return out, err
	}
	status := 1
	if a.has("status_id") {
		status = a.int("status_id")
	}
	if status != 0 && status != 1 {
		return out, nil
	}
	for _, t := range f.projectTasks(p.id, func(t *Task) bool { return t.Closed == (status == 0) }) {
		out = append(out, taskJSON(t))
	}
	return out, nil
}

// searchTasks understands a subset of Kanboard's filter syntax: status:open,
// status:closed, status:all, assignee:NAME, assignee:nobody, assignee:me,
// #ID, and words matched in titles.
func (f *Fake) searchTasks(c caller, a args) (any, error) {
	p, err := f.projectFor(c, a.int("project_id"))
	out := []wireSearchTask{}
	if err != nil || p == nil {
		return out, err
	}
	status, assignee, id := "all", "", 0
	var words []string
	for _, tok := range strings.Fields(a.str("query")) {
		switch k, v, _ := strings.Cut(tok, ":"); {
		case k == "status" && v != "":
			status = v
		case k == "assignee" && v != "":
			assignee = strings.Trim(v, `"`)
		case strings.HasPrefix(tok, "#"):
			fmt.Sscan(tok[1:], &id)
		default:
			words = append(words, strings.ToLower(tok))
		}
	}
	for _, t := range f.projectTasks(p.id, func(t *Task) bool {
		switch {
		case status == "open" && t.Closed, status == "closed" && !t.Closed, id != 0 && t.ID != id:
			return false
		}
		switch assignee {
		case "":
		case "nobody":
			if t.OwnerID != 0 {
				return false
			}
		case "me":
			if c.app || t.OwnerID != c.user.id {
				return false
			}
		default:
			u := f.users[assignee]
			if u == nil || t.OwnerID != u.id {
				return false
			}
		}
		title := strings.ToLower(t.Title)
		for _, w := range words {
			if !strings.Contains(title, w) {
				return false
			}
		}
		return true
	}) {
		out = append(out, f.searchJSON(t))
	}
	return out, nil
}

func (f *Fake) getTask(c caller, a args) (any, error) {
	t, err := f.taskFor(c, a.int("task_id"))
	if err != nil || t == nil {
		return nil, err
	}
	return taskJSON(t), nil
}

// updateTask: false for a missing task or a date it refuses; {"id":N}
// alone is true.
func (f *Fake) updateTask(c caller, a args) (any, error) {
	t, err := f.taskFor(c, a.int("id"))
	if err != nil {
		return nil, err
	}
	if t == nil {
		return false, nil
	}
	next := *t
	if a.has("date_due") {
		due, ok := f.parseDue(a["date_due"])
		if !ok {
			return false, nil
		}
		next.DateDue = due
	}
	if a.has("title") {
		if strings.TrimSpace(a.str("title")) == "" {
			return false, nil
		}
		next.Title = a.str("title")
	}
	if a.has("description") {
		next.Description = a.str("description")
	}
	if a.has("color_id") {
		next.ColorID = a.str("color_id") // unvalidated, as Kanboard does
	}
	if a.has("owner_id") {
		next.OwnerID = a.int("owner_id")
	}
	if a.has("priority") {
		next.Priority = a.int("priority")
	}
	if a.has("reference") {
		next.Reference = a.str("reference")
	}
	next.Modified = f.now().Unix()
	*t = next
	f.record(c, "updateTask", t.ID)
	return true, nil
}

// moveTaskPosition: false for a missing task, a column or swimlane not of
// the project, or a position below 1.
func (f *Fake) moveTaskPosition(c caller, a args) (any, error) {
	t, err := f.taskFor(c, a.int("task_id"))
	if err != nil {
		return nil, err
	}
	p, err := f.projectFor(c, a.int("project_id"))
	if err != nil {
		return nil, err
	}
	col, lane, pos := a.int("column_id"), a.int("swimlane_id"), a.int("position")
	if t == nil || p == nil || t.ProjectID != p.id || !p.column(col) || !p.swimlane(lane) || pos < 1 {
		return false, nil
	}
	// Close the gap where it was, open one where it goes.
	for _, o := range f.tasks {
		if o != t && o.ColumnID == t.ColumnID && o.SwimlaneID == t.SwimlaneID && o.Position > t.Position {
			o.Position--
		}
	}
	n := f.count(col, lane)
	if t.ColumnID == col && t.SwimlaneID == lane {
		n--
	}
	pos = min(pos, n+1)
	for _, o := range f.tasks {
		if o != t && o.ColumnID == col && o.SwimlaneID == lane && o.Position >= pos {
			o.Position++
		}
	}
	t.ColumnID, t.SwimlaneID, t.Position, t.Modified = col, lane, pos, f.now().Unix()
	f.record(c, "moveTaskPosition", t.ID)
	return true, nil
}

// setOpen is closeTask and openTask: true even when nothing changes.
func (f *Fake) setOpen(c caller, a args, open bool) (any, error) {
	t, err := f.taskFor(c, a.int("task_id"))
	if err != nil {
		return nil, err
	}
	if t == nil {
		return false, nil
	}
	t.Closed, t.Modified = !open, f.now().Unix()
	if open {
		f.record(c, "openTask", t.ID)
	} else {
		f.record(c, "closeTask", t.ID)
	}
	return true, nil
}

// createComment: false for a missing task or empty content; a user must
// comment as itself, the application identity as anyone.
func (f *Fake) createComment(c caller, a args) (any, error) {
	t, err := f.taskFor(c, a.int("task_id"))
	if err != nil {
		return nil, err
	}
	if t == nil || strings.TrimSpace(a.str("content")) == "" || !c.app && a.int("user_id") != c.user.id {
		return false, nil
	}
	cm := &comment{id: f.id(), taskID: t.ID, userID: a.int("user_id"), content: a.str("content"), created: f.now().Unix()}
	f.comments[cm.id] = cm
	f.record(c, "createComment", t.ID)
	return cm.id, nil
}

func (f *Fake) sortedComments(task int) []*comment {
	var out []*comment
	for _, c := range f.comments {
		if c.taskID == task {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *comment) int { return a.id - b.id })
	return out
}

type wireComment struct {
	ID               int     `json:"id"`
	DateCreation     int64   `json:"date_creation"`
	DateModification int64   `json:"date_modification"`
	TaskID           int     `json:"task_id"`
	UserID           int     `json:"user_id"`
	Comment          string  `json:"comment"`
	Visibility       string  `json:"visibility"`
	Username         *string `json:"username"`
	Name             *string `json:"name"`
	Email            *string `json:"email"`
	AvatarPath       *string `json:"avatar_path"`
}

func (f *Fake) getAllComments(c caller, a args) (any, error) {
	t, err := f.taskFor(c, a.int("task_id"))
	out := []wireComment{}
	if err != nil || t == nil {
		return out, err
	}
	for _, cm := range f.sortedComments(t.ID) {
		w := wireComment{ID: cm.id, DateCreation: cm.created, DateModification: cm.created, TaskID: cm.taskID, UserID: cm.userID,
			Comment: cm.content, Visibility: "app-user"}
		for _, u := range f.users {
			if u.id == cm.userID {
				name := u.name
				w.Username, w.Name = &name, &name
			}
		}
		out = append(out, w)
	}
	return out, nil
}

func (f *Fake) createSubtask(c caller, a args) (any, error) {
	t, err := f.taskFor(c, a.int("task_id"))
	if err != nil {
		return nil, err
	}
	if t == nil || strings.TrimSpace(a.str("title")) == "" {
		return false, nil
	}
	n := 0
	for _, s := range f.subtasks {
		if s.taskID == t.ID {
			n++
		}
	}
	s := &subtask{id: f.id(), taskID: t.ID, title: a.str("title"), userID: a.int("user_id"), status: a.int("status"),
		estimated: a.int("time_estimated"), spent: a.int("time_spent"), position: n + 1}
	f.subtasks[s.id] = s
	f.record(c, "createSubtask", t.ID)
	return s.id, nil
}

func (f *Fake) updateSubtask(c caller, a args) (any, error) {
	t, err := f.taskFor(c, a.int("task_id"))
	if err != nil {
		return nil, err
	}
	s := f.subtasks[a.int("id")]
	if t == nil || s == nil || s.taskID != t.ID || a.has("title") && strings.TrimSpace(a.str("title")) == "" {
		return false, nil
	}
	if a.has("title") {
		s.title = a.str("title")
	}
	if a.has("user_id") {
		s.userID = a.int("user_id")
	}
	if a.has("status") {
		s.status = a.int("status")
	}
	if a.has("time_estimated") {
		s.estimated = a.int("time_estimated")
	}
	if a.has("time_spent") {
		s.spent = a.int("time_spent")
	}
	f.record(c, "updateSubtask", t.ID)
	return true, nil
}

type wireSubtask struct {
	ID            int     `json:"id"`
	Title         string  `json:"title"`
	Status        int     `json:"status"`
	TimeEstimated int     `json:"time_estimated"`
	TimeSpent     int     `json:"time_spent"`
	TaskID        int     `json:"task_id"`
	UserID        int     `json:"user_id"`
	Position      int     `json:"position"`
	Username      *string `json:"username"`
	Name          *string `json:"name"`
	StatusName    string  `json:"status_name"`
}

func (f *Fake) subtaskJSON(s *subtask) wireSubtask {
	w := wireSubtask{ID: s.id, Title: s.title, Status: s.status, TimeEstimated: s.estimated, TimeSpent: s.spent, TaskID: s.taskID,
		UserID: s.userID, Position: s.position, StatusName: []string{"Todo", "In progress", "Done"}[min(max(s.status, 0), 2)]}
	for _, u := range f.users {
		if u.id == s.userID {
			name := u.name
			w.Username, w.Name = &name, &name
		}
	}
	return w
}

func (f *Fake) getAllSubtasks(c caller, a args) (any, error) {
	t, err := f.taskFor(c, a.int("task_id"))
	out := []wireSubtask{}
	if err != nil || t == nil {
		return out, err
	}
	var list []*subtask
	for _, s := range f.subtasks {
		if s.taskID == t.ID {
			list = append(list, s)
		}
	}
	slices.SortFunc(list, func(a, b *subtask) int { return a.position - b.position })
	for _, s := range list {
		out = append(out, f.subtaskJSON(s))
	}
	return out, nil
}

func (f *Fake) getSubtask(c caller, a args) (any, error) {
	s := f.subtasks[a.int("subtask_id")]
	if s == nil {
		if !c.app {
			return nil, errForbidden
		}
		return nil, nil
	}
	if _, err := f.taskFor(c, s.taskID); err != nil {
		return nil, err
	}
	return f.subtaskJSON(s), nil
}
