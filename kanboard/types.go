package kanboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Int is an id, flag, position or unix time as Kanboard sends it: a JSON
// number, a numeric string ("1", from older PHP or MySQL/Postgres), null
// or "" (0).
type Int int64

// UnmarshalJSON accepts 1, "1", 1.0, null and "".
func (n *Int) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" || string(b) == `""` {
		*n = 0
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(s)
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*n = Int(v)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return fmt.Errorf("kanboard: %.40q is not an integer", b)
	}
	*n = Int(f)
	return nil
}

// Project is a Kanboard project (getProjectById, getAllProjects).
type Project struct {
	ID              Int    `json:"id"`
	Name            string `json:"name"`
	Description     string `json:"description"`
	Identifier      string `json:"identifier"`
	IsActive        Int    `json:"is_active"`
	DefaultSwimlane string `json:"default_swimlane"`
}

// Column is a board column (getColumns).
type Column struct {
	ID          Int    `json:"id"`
	Title       string `json:"title"`
	Position    Int    `json:"position"`
	ProjectID   Int    `json:"project_id"`
	TaskLimit   Int    `json:"task_limit"`
	Description string `json:"description"`
}

// Swimlane is a board swimlane (getActiveSwimlanes).
type Swimlane struct {
	ID          Int    `json:"id"`
	Name        string `json:"name"`
	Position    Int    `json:"position"`
	IsActive    Int    `json:"is_active"`
	ProjectID   Int    `json:"project_id"`
	Description string `json:"description"`
}

// Task is a task as getTask and getAllTasks return it; searchTasks adds the
// names of its assignee, column and swimlane and its counts.
type Task struct {
	ID               Int    `json:"id"`
	Title            string `json:"title"`
	Description      string `json:"description"`
	ProjectID        Int    `json:"project_id"`
	ColumnID         Int    `json:"column_id"`
	SwimlaneID       Int    `json:"swimlane_id"`
	OwnerID          Int    `json:"owner_id"` // the assignee; 0 for none
	CreatorID        Int    `json:"creator_id"`
	Position         Int    `json:"position"`
	IsActive         Int    `json:"is_active"` // 1 open, 0 closed
	ColorID          string `json:"color_id"`
	Priority         Int    `json:"priority"`
	Score            Int    `json:"score"`
	CategoryID       Int    `json:"category_id"`
	Reference        string `json:"reference"`
	DateCreation     Int    `json:"date_creation"`
	DateModification Int    `json:"date_modification"`
	DateDue          Int    `json:"date_due"` // 0: none
	DateCompleted    Int    `json:"date_completed"`
	DateStarted      Int    `json:"date_started"`
	DateMoved        Int    `json:"date_moved"`

	// searchTasks only.
	AssigneeUsername    string `json:"assignee_username"`
	AssigneeName        string `json:"assignee_name"`
	ColumnName          string `json:"column_name"`
	SwimlaneName        string `json:"swimlane_name"`
	ProjectName         string `json:"project_name"`
	NbComments          Int    `json:"nb_comments"`
	NbSubtasks          Int    `json:"nb_subtasks"`
	NbCompletedSubtasks Int    `json:"nb_completed_subtasks"`
}

// Open reports whether the task is open.
func (t Task) Open() bool { return t.IsActive == 1 }

// Comment is a task comment (getAllComments).
type Comment struct {
	ID               Int    `json:"id"`
	TaskID           Int    `json:"task_id"`
	UserID           Int    `json:"user_id"`
	Comment          string `json:"comment"`
	DateCreation     Int    `json:"date_creation"`
	DateModification Int    `json:"date_modification"`
	Username         string `json:"username"`
	Name             string `json:"name"`
}

// Subtask statuses.
const (
	SubtaskTodo       = 0
	SubtaskInProgress = 1
	SubtaskDone       = 2
)

// Subtask is a task's subtask (getAllSubtasks, getSubtask).
type Subtask struct {
	ID            Int    `json:"id"`
	TaskID        Int    `json:"task_id"`
	Title         string `json:"title"`
	Status        Int    `json:"status"` // SubtaskTodo, SubtaskInProgress, SubtaskDone
	UserID        Int    `json:"user_id"`
	Position      Int    `json:"position"`
	TimeEstimated Int    `json:"time_estimated"`
	TimeSpent     Int    `json:"time_spent"`
	Username      string `json:"username"`
	Name          string `json:"name"`
}

// User is a Kanboard user (getMe).
type User struct {
	ID       Int    `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
	Role     string `json:"role"`
	IsActive Int    `json:"is_active"`
}
