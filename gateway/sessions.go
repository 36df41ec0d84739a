package gateway

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/mcp"
)

// Session is a connected agent's MCP session, as the admin API shows it.
type Session struct {
	ID            string    `json:"id"`
	Project       string    `json:"project"`
	Agent         string    `json:"agent"`
	Client        string    `json:"client,omitempty"` // clientInfo.name, as the client claims it
	ClientVersion string    `json:"client_version,omitempty"`
	Protocol      string    `json:"protocol,omitempty"`
	Started       time.Time `json:"started"`
	LastCall      time.Time `json:"last_call,omitzero"`
	Calls         int       `json:"calls"`
	Refusals      int       `json:"refusals"`

	claimed bool // the gateway counted it against its agent's sessions (claim)
}

// sessions tracks what each live session did; the MCP handlers say which
// sessions are live (closed ones are pruned when listed).
type sessions struct {
	mu   sync.Mutex
	byID map[string]*Session
	up   map[string]BackendStatus // last status per backend, for "since"
	// live says which sessions are still open, to prune the table when it
	// is full (nil: never prune by it).
	live func() map[string]bool
}

func newSessions() *sessions {
	return &sessions{byID: map[string]*Session{}, up: map[string]BackendStatus{}}
}

// MaxTrackedSessions bounds the sessions tracked (a client opening sessions
// in a loop cannot grow the table without bound; the oldest go first).
const MaxTrackedSessions = 10000

func (ss *sessions) observe(project string, o mcp.Observation, now time.Time) {
	if o.Session == "" {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.entry(project, o.Session, now)
	s.Agent = o.Agent
	if o.Client != "" {
		s.Client = o.Client
	}
	if o.ClientVersion != "" {
		s.ClientVersion = o.ClientVersion
	}
	if o.Protocol != "" {
		s.Protocol = o.Protocol
	}
	if o.Kind == "call" {
		s.Calls++
		s.LastCall = now
		if o.Outcome == mcp.OutcomeRefused {
			s.Refusals++
		}
	}
}

// claim records that session id of project is agent's and counts against
// its sessions, once the request that opened it is answered.
func (ss *sessions) claim(project, id, agent string, now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.entry(project, id, now)
	if s.Agent == "" {
		s.Agent = agent
	}
	s.claimed = true
}

// claimedBy is the agent a session was claimed for, "" when it was not
// (yet): until then the slot its request reserved counts it.
func (ss *sessions) claimedBy(project, id string) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s, ok := ss.byID[project+"\x00"+id]; ok && s.claimed {
		return s.Agent
	}
	return ""
}

// entry is the session's row, made when missing. ss.mu is held.
func (ss *sessions) entry(project, id string, now time.Time) *Session {
	key := project + "\x00" + id
	if s, ok := ss.byID[key]; ok {
		return s
	}
	if len(ss.byID) >= MaxTrackedSessions && ss.live != nil {
		open := ss.live()
		for k := range ss.byID {
			if !open[k] {
				delete(ss.byID, k)
			}
		}
	}
	if len(ss.byID) >= MaxTrackedSessions {
		ss.evictOldest()
	}
	s := &Session{ID: id, Project: project, Started: now}
	ss.byID[key] = s
	return s
}

func (ss *sessions) evictOldest() {
	var oldest string
	var t time.Time
	for k, s := range ss.byID {
		if oldest == "" || s.Started.Before(t) {
			oldest, t = k, s.Started
		}
	}
	delete(ss.byID, oldest)
}

// list is project's sessions ("" for all) among live, newest first; live
// says whether a (project, session id) is still open.
func (ss *sessions) list(project string, live func(project, id string) bool) []Session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := []Session{}
	for k, s := range ss.byID {
		if !live(s.Project, s.ID) {
			delete(ss.byID, k)
			continue
		}
		if project == "" || s.Project == project {
			out = append(out, *s)
		}
	}
	slices.SortFunc(out, func(a, b Session) int {
		if c := b.Started.Compare(a.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// agentOf is the agent of a tracked session, "" when it is not tracked.
func (ss *sessions) agentOf(project, id string) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s, ok := ss.byID[project+"\x00"+id]; ok {
		return s.Agent
	}
	return ""
}

// transition records b and returns it with Since: when it last changed
// between up and down.
func (ss *sessions) transition(b BackendStatus) BackendStatus {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	key := b.Project + "\x00" + b.Name
	prev, ok := ss.up[key]
	if ok && prev.Up == b.Up {
		b.Since = prev.Since
	} else {
		b.Since = time.Now().UTC()
	}
	ss.up[key] = b
	return b
}
