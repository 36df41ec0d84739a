// Package audit is the sidecar's per-project event log: every write, every
// refusal and every scope request and decision, one JSON object a line.
//
// Promises:
//   - Append is safe when several processes (one bridle mcp per agent
//     session) append to the same log at once: each event is written whole,
//     under an exclusive file lock, with O_APPEND.
//   - Read never fails on a damaged line: it skips lines that do not parse and
//     counts them.
//   - Events are redacted by the caller's Redactor before they are written:
//     the decoded strings of the event are masked and the event re-encoded,
//     so a secret is caught in whatever form JSON escaping gives it and the
//     line stays valid JSON.
//   - Every event names who acted (Actor): Append writes it (from the
//     source, agent and session when the caller gave none), and an event
//     written before events carried it (source, agent, session and an admin
//     event's detail "by") is read as the same actor, so old logs read
//     unchanged.
package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/internal/lines"
	"github.com/bridle-dev/bridle/redact"
)

// Kinds of events.
const (
	KindWrite         = "write"          // a tool changed something
	KindRefusal       = "refusal"        // a call was refused for a missing permission
	KindScopeRequest  = "scope_request"  // an agent asked a human through elicitation
	KindScopePending  = "scope_pending"  // no elicitation: recorded for the human to answer in chat
	KindScopeDecision = "scope_decision" // the human answered
	KindAdmin         = "admin"          // a human changed something through the gateway's admin API
	KindVault         = "vault"          // a human changed a rules repository's vault with bridle secrets
)

// Event is one entry of the log.
type Event struct {
	Time    time.Time `json:"time"`
	Project string    `json:"project"`
	Kind    string    `json:"kind"`
	// Actor is who acted. Append fills Source, Agent and Session from it
	// when they are empty (they are what Filter selects by), and it from
	// them when it is nil; Read and Newest fill it for an event written
	// without one.
	Actor      *actor.Actor   `json:"actor,omitempty"`
	Source     string         `json:"source,omitempty"` // user, agent or vendor
	Agent      string         `json:"agent"`
	Client     string         `json:"client,omitempty"`  // the MCP client's clientInfo.name
	Session    string         `json:"session,omitempty"` // the sidecar session
	Tool       string         `json:"tool,omitempty"`
	Permission string         `json:"permission,omitempty"` // for refusals: the missing permission
	ID         string         `json:"id,omitempty"`         // e.g. a scope request id
	Summary    string         `json:"summary"`
	Detail     map[string]any `json:"detail,omitempty"`
}

// Log is an append-only event log file.
type Log struct {
	path string
	red  *redact.Redactor
}

var unsafeName = lazyregexp.New(`[^A-Za-z0-9._-]+`)

// DefaultDir is DirFrom(os.Getenv).
func DefaultDir() (string, error) { return DirFrom(os.Getenv) }

// DirFrom is where event logs live: $BRIDLE_STATE_DIR, else
// $XDG_STATE_HOME/bridle, else ~/.local/state/bridle, in the environment
// getenv reads.
func DirFrom(getenv func(string) string) (string, error) {
	if d := getenv("BRIDLE_STATE_DIR"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "bridle"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("audit: no state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "bridle"), nil
}

// Open returns the log of project under dir; nothing is created until the
// first Append.
func Open(dir, project string, red *redact.Redactor) *Log {
	name := strings.Trim(unsafeName.ReplaceAllString(project, "_"), "._")
	if name == "" {
		name = "default"
	}
	return &Log{path: filepath.Join(dir, name, "events.jsonl"), red: red}
}

// Path is the log file's path.
func (l *Log) Path() string { return l.path }

// Limits of one event: a longer field is cut, and an event whose line
// would still be longer than MaxLine loses its detail. Agents choose much
// of what an event says (a client name, a scope request's reason).
const (
	MaxField = 4 << 10
	MaxLine  = 256 << 10
)

func cut(s string) string {
	if len(s) <= MaxField {
		return s
	}
	s = s[:MaxField]
	for len(s) > 0 && !utf8.ValidString(s) { // a rune cut in two
		s = s[:len(s)-1]
	}
	return s + "…"
}

// Append writes one event.
func (l *Log) Append(e Event) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if e.Actor == nil {
		e.fill() // an event made the older way names its actor on disk too
	}
	if a := e.Actor; a != nil {
		if e.Source == "" {
			e.Source = sourceOf(a.Kind)
		}
		if e.Agent == "" {
			e.Agent = a.Agent
		}
		if e.Session == "" {
			e.Session = a.Session
		}
		c := *a
		for _, f := range []*string{&c.Subject, &c.Name, &c.Email, &c.Project, &c.Agent, &c.Session} {
			*f = cut(*f)
		}
		e.Actor = &c
	}
	for _, f := range []*string{&e.Project, &e.Kind, &e.Source, &e.Agent, &e.Client, &e.Session, &e.Tool, &e.Permission, &e.ID, &e.Summary} {
		*f = cut(*f)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit append: %w", err)
	}
	if len(b) > MaxLine/2 { // masked JSON can grow; leave room
		e.Detail = map[string]any{"truncated": "the event's detail was too large to record"}
		if b, err = json.Marshal(e); err != nil {
			return fmt.Errorf("audit append: %w", err)
		}
	}
	line := string(l.red.JSON(b)) + "\n"
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return fmt.Errorf("audit append: %w", err)
	}
	lock := flock.New(l.path + ".lock")
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("audit append: lock: %w", err)
	}
	defer lock.Unlock()
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit append: %w", err)
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return fmt.Errorf("audit append: %w", err)
	}
	return f.Close()
}

// sourceOf is the source an event of a kind of actor is filed under.
func sourceOf(k actor.Kind) string {
	switch k {
	case actor.Human:
		return "user"
	case actor.Agent:
		return "agent"
	case actor.Vendor:
		return "vendor"
	case actor.Bridle:
		return "bridle"
	}
	return ""
}

// fill names the actor of an event written without one, from what older
// events said: the source, the agent and session, and the person an admin
// event's detail named ("by").
func (e *Event) fill() {
	if e.Actor != nil {
		return
	}
	var a actor.Actor
	by, _ := e.Detail["by"].(string)
	switch {
	case by == "bridle serve": // the gateway's scheduled vendor sync
		a = actor.Self(by)
	case e.Source == "user":
		switch {
		case e.Kind == KindAdmin:
			a = actor.BreakGlass(by, "") // the admin credential was the gateway's only way in
		default:
			a = actor.Person("", by, "", false, actor.ViaGit) // bridle secrets, on the CLI
		}
	case e.Source == "vendor":
		a = actor.VendorOf(e.Agent)
	case e.Source == "agent" || e.Source == "":
		if e.Agent == "" {
			return
		}
		a = actor.AgentOf(e.Project, e.Agent, e.Session)
	default:
		return // the rules' history (git): Combine names its people in Detail
	}
	e.Actor = &a
}

// Filter selects events; zero fields match everything.
type Filter struct {
	Agent  string
	Kind   string
	Source string
	Since  time.Time // at or after
	Until  time.Time // at or before
}

func (f Filter) match(e Event) bool {
	return (f.Agent == "" || e.Agent == f.Agent) &&
		(f.Kind == "" || e.Kind == f.Kind) &&
		(f.Source == "" || e.Source == f.Source) &&
		f.inTime(e.Time)
}

func (f Filter) inTime(t time.Time) bool {
	return (f.Since.IsZero() || !t.Before(f.Since)) && (f.Until.IsZero() || !t.After(f.Until))
}

// lineCheck is a cheap look at a line before it is decoded: its ok is
// false only when the line cannot hold an event f matches. Values made of
// plain characters (every agent, kind and source name) appear in a line
// exactly as "key":"value"; the time, the first field Append writes, is read
// from the line's start.
type lineCheck struct {
	f       Filter
	needles [][]byte
}

func (f Filter) lineCheck() lineCheck {
	c := lineCheck{f: f}
	for _, kv := range [...]struct{ key, v string }{{"agent", f.Agent}, {"kind", f.Kind}, {"source", f.Source}} {
		if kv.v != "" && plain.MatchString(kv.v) {
			c.needles = append(c.needles, []byte(`"`+kv.key+`":"`+kv.v+`"`))
		}
	}
	return c
}

func (c lineCheck) ok(line []byte) bool {
	for _, n := range c.needles {
		if !bytes.Contains(line, n) {
			return false
		}
	}
	if c.f.Since.IsZero() && c.f.Until.IsZero() {
		return true
	}
	rest, ok := bytes.CutPrefix(line, []byte(`{"time":"`))
	if !ok {
		return true
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, string(rest[:end]))
	return err != nil || c.f.inTime(t)
}

var plain = lazyregexp.New(`^[A-Za-z0-9._:/-]+$`)

// Read returns the events that match f, oldest first, and how many lines
// could not be parsed. A missing log is empty.
func (l *Log) Read(f Filter) ([]Event, int, error) {
	file, err := os.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("audit read: %w", err)
	}
	defer file.Close()
	var out []Event
	bad := 0
	r := bufio.NewReaderSize(file, 64<<10)
	for {
		line, long, err := lines.Read(r, MaxLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return out, bad, fmt.Errorf("audit read: %w", err)
		}
		if errors.Is(err, io.EOF) && len(line) == 0 && !long {
			return out, bad, nil
		}
		if long {
			bad++ // a line no Append writes: skipped, not fatal to the rest
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			bad++
			continue
		}
		e.fill()
		if f.match(e) {
			out = append(out, e)
		}
	}
}

// readBlock is how much of the log Newest reads at a time, from its end.
const readBlock = 64 << 10

// Newest returns up to limit events that match f (every one for limit ≤ 0),
// newest first, and how many of the lines it read could not be parsed. It
// reads the log backwards from its end and stops once it has limit events,
// so the newest page of a long log costs about what the page holds, and a
// filtered one a scan of cheap line checks; lines are decoded only when
// they may match. Lines longer than MaxLine are skipped and counted, as in
// Read. A missing log is empty.
func (l *Log) Newest(f Filter, limit int) ([]Event, int, error) {
	file, err := os.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return []Event{}, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("audit read: %w", err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("audit read: %w", err)
	}
	out, bad := []Event{}, 0
	check := f.lineCheck()
	full := func() bool { return limit > 0 && len(out) >= limit }
	take := func(line []byte) {
		if len(line) > MaxLine {
			bad++ // a line no Append writes, as Read skips it
			return
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || !check.ok(line) {
			return
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			bad++
			return
		}
		e.fill()
		if f.match(e) {
			out = append(out, e)
		}
	}
	var carry []byte  // the end of a line whose start is further back
	skipping := false // inside a line longer than MaxLine
	var cuts [][2]int // the lines of a block: start and end offsets
	pos := st.Size()
	for pos > 0 && !full() {
		n := min(int64(readBlock), pos)
		pos -= n
		block := make([]byte, n, n+int64(len(carry)))
		if _, err := file.ReadAt(block, pos); err != nil {
			return out, bad, fmt.Errorf("audit read: %w", err)
		}
		block = append(block, carry...)
		// The block's whole lines follow its first newline; what precedes
		// it is the end of a line that starts further back. Lines are cut
		// forwards (IndexByte is the fast direction) and taken backwards.
		first := bytes.IndexByte(block, '\n')
		if first < 0 {
			carry = block
			if len(carry) > MaxLine {
				carry, skipping = nil, true
			}
			continue
		}
		cuts = cuts[:0]
		for i := first + 1; i < len(block); {
			j := bytes.IndexByte(block[i:], '\n')
			if j < 0 {
				j = len(block) - i
			}
			cuts = append(cuts, [2]int{i, i + j})
			i += j + 1
		}
		if skipping {
			// The last line here is the start of the long one whose end
			// was dropped (or, with no line after the newline, the long
			// line began right after it).
			skipping = false
			bad++
			if len(cuts) > 0 {
				cuts = cuts[:len(cuts)-1]
			}
		}
		for k := len(cuts) - 1; k >= 0 && !full(); k-- {
			take(block[cuts[k][0]:cuts[k][1]])
		}
		carry = block[:first]
		if len(carry) > MaxLine {
			carry, skipping = nil, true
		}
	}
	switch {
	case full():
	case skipping:
		bad++
	case len(carry) > 0:
		take(carry) // the log's first line
	}
	return out, bad, nil
}
