package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
)

// Errors a call can end with; the agent reads them as tool errors.
var (
	// ErrUnavailable: the upstream is not connected (starting, restarting,
	// or failing to start) and did not come up within the call's timeout.
	ErrUnavailable = errors.New("upstream not available")
	// ErrStopped: the upstream went away during the call.
	ErrStopped = errors.New("upstream stopped during the call")
	// ErrTimeout: the upstream did not answer within Config.CallTimeout.
	ErrTimeout = errors.New("upstream did not answer in time")
	// ErrTooLarge: the result is larger than Config.MaxResult.
	ErrTooLarge = errors.New("upstream result too large")
	// ErrUpstream: the upstream answered the call with a protocol error.
	ErrUpstream = errors.New("upstream refused the call")
)

// def is one upstream tool as Bridle serves it.
type def struct {
	remote string // the upstream's name
	tool   mcp.Tool
	schema json.RawMessage
}

// key identifies a definition's served form, to tell whether a new listing
// changed anything.
func (d def) key() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s\x00%v", d.remote, d.tool.Name, d.tool.Title, d.tool.Description, d.tool.Permission, d.tool.ReadOnly) + "\x00" + string(d.schema)
}

// defs turns the upstream's listing into the tools Bridle serves, skipping
// (and logging) what it will not serve.
func (u *Upstream) defs(listed []*sdk.Tool) []def {
	var out []def
	seen := map[string]bool{}
	for i, t := range listed {
		if i >= maxTools {
			u.log.Warn("upstream lists too many tools; the rest are skipped", "max", maxTools, "listed", len(listed))
			break
		}
		if t == nil {
			continue
		}
		remote := t.Name
		shown := proposals.OneLine(remote, 80)
		if !safeName(remote) {
			u.log.Warn("upstream tool skipped: its name is not 1 or more of A-Z a-z 0-9 _ -", "tool", shown)
			continue
		}
		if u.red.Contains(remote) {
			// A name cannot be masked: it is what agents call.
			u.log.Warn("upstream tool skipped: its name holds a secret", "tool", u.red.Redact(shown))
			continue
		}
		name := u.cfg.Name + "_" + remote
		if len(name) > MaxToolName {
			u.log.Warn("upstream tool skipped: its name is too long once prefixed", "tool", shown, "max", MaxToolName)
			continue
		}
		if seen[name] {
			u.log.Warn("upstream tool skipped: listed twice", "tool", shown)
			continue
		}
		access, set := u.cfg.Tools[remote]
		if !set {
			access = Write
			if t.Annotations != nil && t.Annotations.ReadOnlyHint {
				access = Read
			}
			// A tool first served as a write stays one: an upstream that
			// re-lists it as read-only later does not lower its permission.
			u.accessMu.Lock()
			if u.access == nil {
				u.access = map[string]Access{}
			}
			if first, ok := u.access[remote]; ok && first == Write && access == Read {
				u.log.Warn("upstream tool now claims to be read-only; it keeps the write permission it was first served with", "tool", shown)
				access = Write
			} else if !ok {
				u.access[remote] = access
			}
			u.accessMu.Unlock()
		}
		if access == Deny {
			continue
		}
		in, err := json.Marshal(t.InputSchema)
		if err != nil || len(in) > MaxSchema || t.InputSchema == nil {
			u.log.Warn("upstream tool skipped: its input schema is missing or larger than the limit", "tool", shown, "bytes", len(in), "max", MaxSchema)
			continue
		}
		if in, err = maskSchema(u.red, in); err != nil {
			u.log.Warn("upstream tool skipped", "tool", shown, "err", err)
			continue
		}
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		tool, err := mcp.NewRawTool(mcp.Tool{
			Name:        name,
			Title:       proposals.OneLine(maskText(u.red, title, true), maxTitle),
			Description: truncate(maskText(u.red, t.Description, false), maxDesc),
			Toolset:     mcp.ToolsetID(u.cfg.Name),
			Permission:  u.cfg.permission(access),
			ReadOnly:    access == Read,
			// A write through another server is assumed to be destructive
			// and to reach the outside world: the upstream's own hints
			// are not Bridle's to trust.
			Destructive: access == Write,
			OpenWorld:   true,
		}, in, u.forward(remote))
		if err != nil {
			u.log.Warn("upstream tool skipped", "tool", shown, "err", err)
			continue
		}
		seen[name] = true
		out = append(out, def{remote: remote, tool: tool, schema: in})
	}
	for remote := range u.cfg.Tools {
		if !slices.ContainsFunc(listed, func(t *sdk.Tool) bool { return t != nil && t.Name == remote }) {
			u.log.Warn("Tools names a tool the upstream does not list", "tool", remote)
		}
	}
	return out
}

// maskText is an upstream's title (oneLine) or description as served:
// without control characters, then masked, and for a title on one line,
// then masked again (what was removed or joined could have hidden a
// secret's pieces from the first pass). Truncating it afterwards cannot
// bring a secret back.
func maskText(red *redact.Redactor, s string, oneLine bool) string {
	s = red.Redact(proposals.MultiLine(s))
	if oneLine {
		s = red.Redact(proposals.OneLine(s, len(s)))
	}
	return s
}

// errSecretKey is why an upstream tool whose input schema has a key that
// holds a secret is skipped: a key cannot be masked (a property's name is
// what the agent sends).
var errSecretKey = errors.New("a key of its input schema holds a secret")

// maskSchema is an upstream tool's input schema, every string in it (a
// description, a default, an enum, an example, a pattern) masked, as is a
// number that holds a secret; a key that holds one refuses the schema.
func maskSchema(red *redact.Redactor, in json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var secretKey func(any) bool
	secretKey = func(v any) bool {
		switch x := v.(type) {
		case []any:
			return slices.ContainsFunc(x, secretKey)
		case map[string]any:
			for k, e := range x {
				if red.Contains(k) || secretKey(e) {
					return true
				}
			}
		}
		return false
	}
	if secretKey(v) {
		return nil, errSecretKey
	}
	out, err := json.Marshal(red.Value(v))
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if len(out) > MaxSchema {
		return nil, fmt.Errorf("input schema: %d bytes once masked, more than %d", len(out), MaxSchema)
	}
	return out, nil
}

func safeName(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) < 0
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// forward is the handler of the upstream's tool remote: the call goes to
// the current connection, and its failures come back as tool errors.
func (u *Upstream) forward(remote string) mcp.RawHandler {
	return func(ctx context.Context, _ *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
		res, err := u.call(ctx, remote, args)
		if err != nil {
			return toolError(u.red.Redact(fmt.Sprintf("%s_%s: %v", u.cfg.Name, remote, err))), nil
		}
		return res, nil
	}
}

// call forwards one call to the upstream's tool remote.
func (u *Upstream) call(ctx context.Context, remote string, args json.RawMessage) (*sdk.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
	defer cancel()
	c, err := u.connected(ctx)
	if err != nil {
		return nil, err
	}
	res, err := c.session.CallTool(ctx, &sdk.CallToolParams{Name: remote, Arguments: args})
	var wire *jsonrpc.Error
	switch {
	case err == nil:
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("upstream %s: %w: no answer within %s", u.cfg.Name, ErrTimeout, u.cfg.CallTimeout)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &wire):
		// A protocol error of the upstream's (unknown tool, bad
		// arguments): its message is data, shown as text, never passed on
		// as Bridle's own protocol error.
		return nil, fmt.Errorf("upstream %s: %w: %s", u.cfg.Name, ErrUpstream, proposals.OneLine(wire.Message, 500))
	default:
		// The child exited under the call, or the HTTP upstream cannot be
		// reached: the supervisor reconnects.
		c.lost(err)
		return nil, fmt.Errorf("upstream %s: %w (it is being restarted; call again)", u.cfg.Name, ErrStopped)
	}
	out := &sdk.CallToolResult{Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w: %v", u.cfg.Name, ErrUpstream, err)
	}
	if len(b) > u.cfg.MaxResult {
		return nil, fmt.Errorf("upstream %s: %w: %d bytes, more than the limit of %d; ask for less (a page, a filter)", u.cfg.Name, ErrTooLarge, len(b), u.cfg.MaxResult)
	}
	return out, nil
}

func toolError(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// register replaces the upstream's toolset on the server with defs, when
// they differ from what is served: the tools of other toolsets keep their
// names (a colliding tool is skipped and logged).
func (u *Upstream) register(defs []def) {
	u.regMu.Lock()
	defer u.regMu.Unlock()
	keys := make([]string, len(defs))
	for i, d := range defs {
		keys[i] = d.key()
	}
	if slices.Equal(keys, u.servedKeys) {
		return
	}
	old := slices.Clone(u.served)
	// Names another toolset holds are refused: an upstream never shadows a
	// Bridle tool. (Ours are about to be replaced, so they do not count.)
	for attempt := 0; ; attempt++ {
		taken := map[string]bool{}
		for _, t := range u.srv.Tools() {
			if !slices.Contains(old, t.Name) {
				taken[t.Name] = true
			}
		}
		var tools []mcp.Tool
		var names []string
		for _, d := range defs {
			if taken[d.tool.Name] {
				u.log.Warn("upstream tool refused: a tool of that name is already registered", "tool", d.tool.Name)
				continue
			}
			tools = append(tools, d.tool)
			names = append(names, d.tool.Name)
		}
		u.srv.RemoveTools(old...)
		old = nil
		var err error
		if len(tools) > 0 {
			err = u.srv.AddToolset(mcp.Toolset{ID: mcp.ToolsetID(u.cfg.Name), Tools: tools})
		}
		if err == nil {
			u.served, u.servedKeys = names, keys
			u.mu.Lock()
			u.status.Tools = len(names)
			u.mu.Unlock()
			return
		}
		if !errors.Is(err, mcp.ErrToolExists) || attempt >= 2 {
			u.log.Error("upstream tools not registered", "err", err)
			u.served, u.servedKeys = nil, nil
			u.mu.Lock()
			u.status.Tools = 0
			u.mu.Unlock()
			return
		}
		// Another toolset took a name in between: look again.
		time.Sleep(10 * time.Millisecond)
	}
}
