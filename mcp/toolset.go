package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/schema"
)

// ToolsetID names a toolset: the unit a client enables and the heading a
// tool is documented under. (Toolset is the value that holds the tools.)
type ToolsetID string

// The toolsets.
const (
	ToolsetRules     ToolsetID = "rules"
	ToolsetProposals ToolsetID = "proposals"
	ToolsetMemory    ToolsetID = "memory"
	ToolsetPatterns  ToolsetID = "patterns"
	ToolsetKanboard  ToolsetID = "kanboard"
	ToolsetGitea     ToolsetID = "gitea" // Gitea's MCP server's tools, served through Bridle
	ToolsetSecrets   ToolsetID = "secrets"
)

// Toolsets lists every toolset, in the order they are documented.
var Toolsets = []ToolsetID{ToolsetRules, ToolsetProposals, ToolsetMemory, ToolsetPatterns, ToolsetKanboard, ToolsetGitea, ToolsetSecrets}

// Toolset is a group of tools built from the dependencies they need (a
// constructor such as proposalsToolset(proposalDeps{…}) returns one). The
// server registers toolsets in (*Server).toolsets at start, or with
// AddToolset while it runs; either way every call goes through the same
// permission, redaction and audit middlewares.
type Toolset struct {
	ID    ToolsetID
	Tools []Tool
	// Enabled reports whether the service behind the toolset is set up; the
	// tools of a disabled toolset are absent from tools/list and refused on
	// tools/call. nil means always enabled.
	Enabled func(context.Context) bool
}

// configured is an Enabled hook for a toolset whose service is set up
// exactly when ok.
func configured(ok bool) func(context.Context) bool {
	return func(context.Context) bool { return ok }
}

func (t Tool) isEnabled(ctx context.Context) bool { return t.enabled == nil || t.enabled(ctx) }

// tools returns ts's tools, each carrying the toolset's Enabled hook.
func (ts Toolset) tools() []Tool {
	out := make([]Tool, len(ts.Tools))
	for i, t := range ts.Tools {
		if ts.Enabled != nil {
			t.enabled = ts.Enabled
		}
		out[i] = t
	}
	return out
}

func (s *Server) tool(name string) (Tool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := slices.IndexFunc(s.tools, func(t Tool) bool { return t.Name == name })
	if i < 0 {
		return Tool{}, false
	}
	return s.tools[i], true
}

// ErrToolExists is wrapped by AddToolset for a tool whose name is taken.
var ErrToolExists = errors.New("a tool of that name is already registered")

// AddToolset registers ts's tools on the server, running or not — an
// upstream MCP server's tools once it is connected, say. Sessions connected
// now are sent notifications/tools/list_changed. The tools go through the
// same permission, redaction and audit middlewares as every other: hidden
// from and refused to an agent without their permission, their results
// masked. A name already registered is refused, so that no toolset can
// shadow another's tool (an upstream's get_rules, say); nothing is added
// then.
func (s *Server) AddToolset(ts Toolset) error {
	tools := ts.tools()
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, t := range tools {
		if err := checkToolName(t.Name); err != nil {
			return fmt.Errorf("add toolset %s: %w", ts.ID, err)
		}
		if t.add == nil {
			return fmt.Errorf("add toolset %s: tool %s has no handler (build it with newTool or NewRawTool): %w", ts.ID, t.Name, ErrInvalidTool)
		}
		if !slices.Contains(schema.PermissionNames, string(t.Permission)) {
			return fmt.Errorf("add toolset %s: tool %s: permission %q is not one of %s (a tool added after start is never open to every agent): %w",
				ts.ID, t.Name, t.Permission, strings.Join(schema.PermissionNames, ", "), ErrInvalidTool)
		}
		if seen[t.Name] || slices.ContainsFunc(s.tools, func(r Tool) bool { return r.Name == t.Name }) {
			return fmt.Errorf("add toolset %s: tool %s: %w", ts.ID, t.Name, ErrToolExists)
		}
		seen[t.Name] = true
	}
	// The registry lists a tool before the SDK serves it and after it stops
	// (RemoveTools), so that the middleware knows every tool the SDK has.
	n := len(s.tools)
	s.tools = append(s.tools, tools...)
	for i, t := range tools {
		if err := addTool(s.sdk, t); err != nil {
			for _, added := range tools[:i] {
				s.sdk.RemoveTools(added.Name)
			}
			s.tools = s.tools[:n]
			return fmt.Errorf("add toolset %s: %w", ts.ID, err)
		}
	}
	return nil
}

// addTool registers t with the SDK, which panics on a definition it will
// not serve; a run-time definition must not bring the server down.
func addTool(srv *sdk.Server, t Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %s: %v: %w", t.Name, r, ErrInvalidTool)
		}
	}()
	t.add(srv)
	return nil
}

// rulesChanged tells connected sessions to list the tools again when the
// served rules change what an agent may use (its permissions, or the
// rules being approved or not): tools/list is filtered per agent by the
// rules, so a new commit can change it. The go-sdk sends
// notifications/tools/list_changed only when a tool is added or removed, so
// the first tool is registered again, unchanged (the SDK coalesces
// notifications within a short delay).
func (s *Server) rulesChanged(st Status) {
	perms := ""
	if snap, _ := s.src.Served(); snap != nil {
		b, _ := json.Marshal(snap.Document.Permissions)
		perms = string(b) + "\x00" + fmt.Sprint(snap.Approval != nil && len(snap.Approval.Unapproved) > 0)
	}
	s.mu.Lock()
	changed := s.announced != "" && perms != s.announced
	s.announced = perms
	var first Tool
	if len(s.tools) > 0 {
		first = s.tools[0]
	}
	s.mu.Unlock()
	if changed && first.add != nil {
		_ = addTool(s.sdk, first)
	}
}

// RemoveTools unregisters the named tools; sessions connected now are sent
// notifications/tools/list_changed. Unknown names are ignored.
func (s *Server) RemoveTools(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sdk.RemoveTools(names...)
	s.tools = slices.DeleteFunc(s.tools, func(t Tool) bool { return slices.Contains(names, t.Name) })
}
