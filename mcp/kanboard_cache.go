package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/kanboard"
)

// kbListTTL is how long a project's task list is reused: an agent paging
// through a thousand tasks reads Kanboard once, not once a page. A write
// made through Bridle drops every cached list at once; a change made in
// Kanboard itself shows within kbListTTL.
const kbListTTL = 2 * time.Second

// taskLists caches the task lists kanboard_list_tasks reads, per identity
// (the client), project and status.
type taskLists struct {
	mu sync.Mutex
	m  map[taskListKey]taskListEntry
}

type taskListKey struct {
	kb      *kanboard.Client
	project int
	status  kanboard.Status
}

type taskListEntry struct {
	tasks []kanboard.Task
	at    time.Time
}

// maxTaskLists bounds the cache: beyond, it starts afresh.
const maxTaskLists = 64

func newTaskLists() *taskLists { return &taskLists{m: map[taskListKey]taskListEntry{}} }

// tasks is kb's list of project's tasks in status, from the cache when it
// is fresh. The slice returned is shared: callers copy before changing it.
func (c *taskLists) tasks(ctx context.Context, kb *kanboard.Client, project int, st kanboard.Status) ([]kanboard.Task, error) {
	key := taskListKey{kb, project, st}
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && time.Since(e.at) < kbListTTL {
		return e.tasks, nil
	}
	tasks, err := kb.Tasks(ctx, project, st)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxTaskLists {
		clear(c.m)
	}
	c.m[key] = taskListEntry{tasks: tasks, at: time.Now()}
	c.mu.Unlock()
	return tasks, nil
}

// drop forgets every cached list (after a write).
func (c *taskLists) drop() {
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}
