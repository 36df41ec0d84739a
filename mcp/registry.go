package mcp

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// Tool is one MCP tool: its definition, toolset, the permission it needs,
// its annotations and its handler, all in one place.
type Tool struct {
	Name        string
	Title       string
	Description string
	Toolset     ToolsetID
	// Permission is the permission the agent needs; "" means every agent,
	// identified or not, may call it.
	Permission schema.Permission
	ReadOnly   bool
	// Destructive and Idempotent are meaningful only when ReadOnly is false.
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// AuditsItself is set by tools that write their own audit events; the
	// middleware records a generic write event for other non-read-only tools.
	AuditsItself bool

	enabled func(context.Context) bool // its toolset's Enabled; nil means always
	add     func(*sdk.Server)
	schema  func() (*jsonschema.Schema, error)          // the input schema, reflected from the Go types
	schemas func() (in, out json.RawMessage, err error) // both schemas as JSON, reflected
}

// Annotations are the MCP hints; every tool sets all of them explicitly
// (Codex treats an unannotated tool as destructive).
func (t Tool) Annotations() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{
		Title:           t.Title,
		ReadOnlyHint:    t.ReadOnly,
		DestructiveHint: new(!t.ReadOnly && t.Destructive),
		IdempotentHint:  t.ReadOnly || t.Idempotent,
		OpenWorldHint:   new(t.OpenWorld),
	}
}

// newTool binds a typed handler to t. tweak, if non-nil, adjusts the input
// schema inferred from In (enums, length limits).
//
// The tool is registered with the SDK's untyped AddTool and does what the
// typed one does — validate the arguments against the input schema, decode
// them, report handler errors as tool errors, and return the output as
// structured content with a JSON text copy — but resolves the schema on the
// tool's first call instead of at start-up, where resolving fifteen schemas
// was the largest part of a cold start.
func newTool[In, Out any](t Tool, tweak func(*jsonschema.Schema), h sdk.ToolHandlerFor[In, Out]) Tool {
	t.schema = func() (*jsonschema.Schema, error) {
		s, err := jsonschema.For[In](nil)
		if err != nil {
			return nil, err
		}
		if tweak != nil {
			tweak(s)
		}
		return s, nil
	}
	structured := reflect.TypeFor[Out]() != reflect.TypeFor[any]()
	t.schemas = func() (in, out json.RawMessage, err error) {
		s, err := t.schema()
		if err != nil {
			return nil, nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
		}
		if in, err = json.Marshal(s); err != nil {
			return nil, nil, err
		}
		if structured {
			o, err := jsonschema.For[Out](nil)
			if err != nil {
				return nil, nil, fmt.Errorf("tool %s: output schema: %w", t.Name, err)
			}
			if out, err = json.Marshal(o); err != nil {
				return nil, nil, err
			}
		}
		return in, out, nil
	}
	t.add = func(srv *sdk.Server) {
		// The schemas come precomputed (the schemas directory, kept in step with the
		// Go types by TestSchemasCommitted); reflecting them at every start
		// is what made cold starts slow.
		in, out, ok := committedSchemas(t.Name)
		if !ok {
			var err error
			if in, out, err = t.schemas(); err != nil {
				panic(err)
			}
		}
		def := &sdk.Tool{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations(), InputSchema: in}
		if structured {
			def.OutputSchema = out
		}
		srv.AddTool(def, serve(t.Name, resolveOnce(in), func(ctx context.Context, req *sdk.CallToolRequest, input json.RawMessage) (*sdk.CallToolResult, error) {
			var args In
			if err := json.Unmarshal(input, &args); err != nil {
				return errorResult(fmt.Errorf("decoding \"arguments\": %w", err)), nil
			}
			res, out, err := h(ctx, req, args)
			if err != nil || res != nil && res.InputRequests != nil || !structured {
				return res, err
			}
			if res == nil {
				res = &sdk.CallToolResult{}
			}
			b, err := json.Marshal(out)
			if err != nil {
				return nil, protocolError{fmt.Errorf("tool %s: marshal output: %w", t.Name, err)}
			}
			res.StructuredContent = json.RawMessage(b)
			if res.Content == nil {
				res.Content = []sdk.Content{&sdk.TextContent{Text: string(b)}}
			}
			return res, nil
		}))
	}
	return t
}

// serve is the SDK handler of every tool, typed or defined at run time: the
// call must have been admitted by the permission middleware, its arguments
// (absent means {}) are validated against the input schema before h runs,
// and h's error is reported to the model as a tool error — a *jsonrpc.Error,
// or a protocolError, as a protocol error instead.
func serve(name string, resolve func() (*jsonschema.Resolved, error), h RawHandler) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if !admitted(ctx, name) {
			return notAdmitted(name), nil
		}
		args, err := checkArguments(req.Params.Arguments, resolve)
		if err != nil {
			return errorResult(fmt.Errorf("validating \"arguments\": %w", err)), nil
		}
		res, err := h(ctx, req, args)
		var wire *jsonrpc.Error
		var proto protocolError
		switch {
		case errors.As(err, &wire):
			return nil, wire
		case errors.As(err, &proto):
			return nil, proto.error
		case err != nil:
			return errorResult(err), nil
		case res == nil:
			return &sdk.CallToolResult{}, nil
		}
		return res, nil
	}
}

// protocolError is a handler failure that is Bridle's, not the call's: it
// goes back as a JSON-RPC error, not a tool result.
type protocolError struct{ error }

// checkArguments validates raw tool arguments (absent means {}) against the
// resolved input schema, as the SDK's typed tools do.
func checkArguments(raw json.RawMessage, resolve func() (*jsonschema.Resolved, error)) (json.RawMessage, error) {
	rs, err := resolve()
	if err != nil {
		return nil, err
	}
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("arguments are not a JSON object: %w", err)
		}
	}
	if err := rs.Validate(args); err != nil {
		return nil, err
	}
	return json.Marshal(args)
}

func errorResult(err error) *sdk.CallToolResult {
	var r sdk.CallToolResult
	r.SetError(err)
	return &r
}

// toolsets is every toolset, in registry order, each built from the
// dependencies it needs: adding a toolset is a constructor in its own file
// and one line here.
func (s *Server) toolsets() []Toolset {
	mem := memoryDeps{open: onceMemoryOf(s.opts.Memory, s.opts.MemoryOf), red: s.red, examples: s.opts.Examples}
	return []Toolset{
		rulesToolset(),
		proposalsToolset(proposalDeps{service: proposalService(s.opts.Proposals, s.opts.Version, s.red), red: s.red}),
		memoryToolset(mem),
		patternsToolset(mem),
		kanboardToolset(kanboardDeps{kb: s.opts.Kanboard, red: s.red, lists: newTaskLists()}),
		secretsToolset(s.opts.Secrets),
	}
}

// Identity is who is calling, resolved per request.
type Identity struct {
	Agent  string `json:"agent"`
	Client string `json:"client,omitempty"` // clientInfo.name
	Via    string `json:"via"`              // token, launch, client, mismatch or unknown
	// Launched and Harness are set with Via mismatch: the agent the sidecar
	// was launched as, and the harness the client says it is.
	Launched string `json:"launched,omitempty"`
	Harness  string `json:"harness,omitempty"`
}

// Actor is the agent id names, of project, in session: who acts, as
// proposals and the audit log read it (actor.From of a tool handler's
// context answers it too).
func (id Identity) Actor(project, session string) actor.Actor {
	return actor.AgentOf(project, id.Agent, session)
}

// ViaMismatch is the Via of a caller whose client names a harness other
// than the one the launched agent runs in.
const ViaMismatch = "mismatch"

// harnessMismatch returns the harness client names when it is known and
// differs from the harness of the agent the sidecar was launched as; ""
// otherwise (an unknown client name, such as a health check's, proves
// nothing either way).
func harnessMismatch(snap *compiler.Snapshot, agent, client string) string {
	a, ok := agents.ForClient(client)
	if !ok || a.Harness == nil {
		return ""
	}
	want := agent
	if snap != nil {
		if _, has := snap.Document.AgentProfiles[agent]; has {
			want = renderers.Harness(snap.Document.Resolved(agent))
		}
	}
	if want == "" || want == a.Name {
		return ""
	}
	if h, ok := agents.Lookup(want); !ok || h.Harness == nil {
		return "" // the launched agent runs in no harness Bridle knows
	}
	return a.Name
}

// MaxClientString is the longest client name or version Bridle keeps: a
// client says what it likes there, and it lands in logs, audit events and
// session lists.
const MaxClientString = 128

// ClientString is a client-sent name or version as Bridle records it: one
// line, no control characters, at most MaxClientString bytes.
func ClientString(s string) string {
	if len(s) > 4*MaxClientString {
		s = s[:4*MaxClientString]
	}
	return proposals.OneLine(s, MaxClientString)
}

// TokenAgent is the auth.TokenInfo.Extra key naming the agent a bearer
// token belongs to (Options.TokenIdentity).
const TokenAgent = "bridle.agent"

// Unknown is the agent name of a caller Bridle cannot identify.
const Unknown = "unknown"

type clientInfoer interface{ ClientInfo() *sdk.Implementation }

// identify resolves the calling agent: bound at launch first, then the
// client's name through the profiles, else unknown.
func (s *Server) identify(req sdk.Request, snap *compiler.Snapshot) Identity {
	var client string
	if ci, ok := req.(clientInfoer); ok {
		if info := ci.ClientInfo(); info != nil {
			client = ClientString(info.Name)
		}
	}
	if s.opts.TokenIdentity {
		if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
			if a, _ := ex.TokenInfo.Extra[TokenAgent].(string); a != "" {
				return Identity{Agent: a, Client: client, Via: "token"}
			}
		}
		return Identity{Agent: Unknown, Client: client, Via: "unknown"}
	}
	if s.opts.Agent != "" {
		if other := harnessMismatch(snap, s.opts.Agent, client); other != "" {
			// A harness that reads another's configuration (Copilot CLI
			// and Qwen Code list Claude Code's .mcp.json as their own) must
			// not inherit that agent's identity: least privilege, and the
			// rules say why.
			if _, done := s.warned.LoadOrStore(client, true); !done {
				s.log.Warn("the client says it is another agent's harness: serving least privilege",
					"launched_as", s.opts.Agent, "client", client, "harness", other, "fix", "bridle install "+other)
			}
			return Identity{Agent: Unknown, Client: client, Via: ViaMismatch, Launched: s.opts.Agent, Harness: other}
		}
		return Identity{Agent: s.opts.Agent, Client: client, Via: "launch"}
	}
	if snap != nil {
		if a := snap.Document.AgentForClient(client); a != "" {
			return Identity{Agent: a, Client: client, Via: "client"}
		}
	}
	return Identity{Agent: Unknown, Client: client, Via: "unknown"}
}

// permissions returns what agent may do; an agent without a profile may do
// nothing, whatever the document says.
func permissions(snap *compiler.Snapshot, agent string) schema.Permissions {
	if snap == nil {
		return schema.Permissions{}
	}
	if _, ok := snap.Document.AgentProfiles[agent]; !ok {
		return schema.Permissions{}
	}
	return snap.Document.Permissions[agent]
}

// Allowed reports whether agent may use t under snap.
func Allowed(t Tool, snap *compiler.Snapshot, agent string) bool {
	return t.Permission == "" || permissions(snap, agent).Allows(string(t.Permission))
}

// call is what the middleware hands to a handler through the context.
type call struct {
	id      Identity
	snap    *compiler.Snapshot
	status  Status
	err     error  // the snapshot could not be loaded at all
	session string // this session's id: the HTTP session's, else the sidecar's
	project string // the project's name (Options.Project, else the rules' id)
	record  func(*compiler.Snapshot, audit.Event)
	// admitted is the tool this tools/call passed the permission check
	// for; a handler refuses a call it was not admitted to (see admitted).
	admitted string
}

type callKey struct{}

func callFrom(ctx context.Context) call {
	c, _ := ctx.Value(callKey{}).(call)
	return c
}

// actor is who calls: the agent of the session, never anything the call
// carries.
func (c call) actor() actor.Actor { return c.id.Actor(c.project, c.session) }

// into is ctx carrying c and its actor (actor.With): handlers, and the
// packages they call, read who acts the same way for agents and people.
func (c call) into(ctx context.Context) context.Context {
	return actor.With(context.WithValue(ctx, callKey{}, c), c.actor())
}

// admitted reports whether the permission middleware admitted this call to
// the named tool. Every tool's handler checks it first, so that a call that
// reached a tool without passing the middleware — a tool registered between
// the middleware's lookup and the SDK's dispatch — fails closed. It decides
// nothing itself: permissions are checked in the middleware alone.
func admitted(ctx context.Context, name string) bool { return callFrom(ctx).admitted == name }

func notAdmitted(name string) *sdk.CallToolResult {
	return toolError("%s was registered while this call was checked; call it again", name)
}

// audit records e as done by the calling agent: who called comes from the
// session alone, never from e.
func (c call) audit(e audit.Event) {
	if c.record == nil {
		return
	}
	e.Agent, e.Client, e.Session = c.id.Agent, c.id.Client, c.session
	a := c.actor()
	e.Actor = &a
	c.record(c.snap, e)
}

// permissionMiddleware is the one place permissions are enforced.
func (s *Server) permissionMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, rerr error) {
		if method != "tools/list" && method != "tools/call" && method != "resources/read" {
			return next(ctx, method, req)
		}
		snap, status, err := s.current()
		s.checkAgent(snap)
		c := call{id: s.identify(req, snap), snap: snap, status: status, err: err, session: s.session,
			project: s.project(snap), record: s.record}
		if ss := req.GetSession(); ss != nil && ss.ID() != "" {
			c.session = ss.ID()
		}
		switch method {
		case "tools/list":
			ctx = c.into(ctx)
			res, err := next(ctx, method, req)
			if lt, ok := res.(*sdk.ListToolsResult); ok && err == nil {
				// A tool the registry does not know (being added or removed
				// at this moment) is not listed either.
				lt.Tools = slices.DeleteFunc(lt.Tools, func(def *sdk.Tool) bool {
					t, known := s.tool(def.Name)
					return !known || !t.isEnabled(ctx) || !Allowed(t, snap, c.id.Agent)
				})
			}
			if s.opts.Listed != nil {
				defer s.listedOnce.Do(s.opts.Listed)
			}
			return res, err
		case "tools/call":
			p, _ := req.GetParams().(*sdk.CallToolParamsRaw)
			var t Tool
			known := false
			if p != nil {
				t, known = s.tool(p.Name)
			}
			var outcome Outcome // refused or unavailable; else from the result
			if s.opts.Observe != nil {
				start, tool := time.Now(), ""
				if known {
					tool = t.Name // a registered name; a client-sent one is never reported
				}
				defer func() { s.observeCall(req, c, tool, time.Since(start), outcome, res, rerr) }()
			}
			if !known {
				// The SDK answers that there is no such tool; a tool added
				// since the lookup refuses a call it was not admitted to.
				return next(c.into(ctx), method, req)
			}
			if !t.isEnabled(ctx) {
				outcome = OutcomeUnavailable
				return toolError("%s is not available: the %s toolset is not set up on this server. Tell the human if the task needs it.", t.Name, t.Toolset), nil
			}
			if !Allowed(t, snap, c.id.Agent) {
				msg := fmt.Sprintf("permission denied: %s needs the %s permission, which agent %q does not have. "+
					"Bridle enforces this; do not try another way. Ask the human if the task needs it.", t.Name, t.Permission, c.id.Agent)
				if c.id.Agent == Unknown {
					msg += fmt.Sprintf(" (Bridle could not identify this client %q: launch it with `bridle mcp --agent NAME`, or list the client under mcp_clients in the agent's profile.)", c.id.Client)
				}
				outcome = OutcomeRefused
				c.audit(audit.Event{Kind: audit.KindRefusal, Tool: t.Name, Permission: string(t.Permission), Summary: "refused " + t.Name})
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}, nil
			}
			c.admitted = t.Name
			res, err := next(c.into(ctx), method, req)
			if ct, ok := res.(*sdk.CallToolResult); ok && err == nil && !ct.IsError && !t.ReadOnly && !t.AuditsItself && ct.InputRequests == nil {
				c.audit(audit.Event{Kind: audit.KindWrite, Tool: t.Name, Summary: t.Name})
			}
			return res, err
		}
		return next(c.into(ctx), method, req)
	}
}

// redactMiddleware masks secrets in everything the server returns: tool
// results (text and structured content), resources, and errors (message and
// data). JSON is masked on its decoded strings and re-encoded (see
// redact.Redactor.JSON), so every escaped form is covered; the stdio
// transport masks every line it writes once more, for what the SDK answers
// by itself.
func (s *Server) redactMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			var je *jsonrpc.Error
			if errors.As(err, &je) {
				cp := *je
				cp.Message = s.red.Redact(cp.Message)
				if len(cp.Data) > 0 {
					cp.Data = s.red.JSON(cp.Data)
				}
				return res, &cp
			}
			return res, s.red.Error(err)
		}
		switch r := res.(type) {
		case *sdk.CallToolResult:
			var structured []byte
			if r.StructuredContent != nil {
				if b, err := json.Marshal(r.StructuredContent); err == nil {
					structured = b
					if red := s.red.JSON(b); !bytes.Equal(red, b) {
						r.StructuredContent = json.RawMessage(red)
					}
				}
			}
			for _, c := range r.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					tc.Text = s.redactText(tc.Text, structured)
				}
			}
		case *sdk.ReadResourceResult:
			for _, c := range r.Contents {
				c.Text = s.redactText(c.Text, nil)
			}
		}
		return res, nil
	}
}

// redactText masks text, as JSON when it is JSON (the text copy of a
// structured result is), so that it stays parseable.
func (s *Server) redactText(text string, structured []byte) string {
	t := strings.TrimSpace(text)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') && (structured != nil && t == string(structured) || json.Valid([]byte(t))) {
		if red := s.red.JSON([]byte(t)); string(red) != t {
			return string(red)
		}
		return text
	}
	return s.red.Redact(text)
}

// toolError is a tool result that reports a problem to the model.
func toolError(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// clean removes control characters (but not newlines and tabs) from text an
// agent supplies, so it cannot forge lines in logs or prompts.
var clean = proposals.MultiLine

// schemaFiles are the tools' schemas as the Go types reflect them, one file
// each (NAME.input.json, NAME.output.json), kept in step by
// TestSchemasCommitted: served as they are, with nothing to parse at start
// (one JSON document of them all took a tenth of a sidecar's start to read).
//
//go:embed schemas
var schemaFiles embed.FS

// committedSchemas returns the precomputed schemas of a tool.
func committedSchemas(name string) (in, out json.RawMessage, ok bool) {
	in, err := schemaFiles.ReadFile("schemas/" + name + ".input.json")
	if err != nil || len(bytes.TrimSpace(in)) == 0 {
		return nil, nil, false
	}
	if o, err := schemaFiles.ReadFile("schemas/" + name + ".output.json"); err == nil {
		out = bytes.TrimSpace(o)
	}
	return bytes.TrimSpace(in), out, true
}

// SchemaFiles reflects every tool's schemas from the Go types, as the
// schemas directory holds them: file name to content.
func SchemaFiles(tools []Tool) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, t := range tools {
		in, out, err := t.schemas()
		if err != nil {
			return nil, err
		}
		files[t.Name+".input.json"] = append(in, '\n')
		if out != nil {
			files[t.Name+".output.json"] = append(out, '\n')
		}
	}
	return files, nil
}
