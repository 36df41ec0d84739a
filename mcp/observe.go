package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Outcome is how a tools/call ended, as Observe reports it.
type Outcome string

// Outcomes.
const (
	OutcomeOK          Outcome = "ok"
	OutcomeError       Outcome = "error"       // the tool answered an error (bad input, a backend down)
	OutcomeRefused     Outcome = "refused"     // the agent lacks the tool's permission
	OutcomeUnavailable Outcome = "unavailable" // the tool's toolset is not set up
)

// Observation is what Options.Observe is told: a session's initialize, or
// one tools/call. It carries names and numbers, never arguments or results.
type Observation struct {
	Kind          string // "initialize" or "call"
	Session       string // the session's id ("" over stdio)
	Agent         string // who the token (or launch, or client) says is calling
	Client        string // clientInfo.name, as the client claims it
	ClientVersion string
	Protocol      string // the negotiated protocol version
	Tool          string // calls: the tool's registered name ("" for a tool the server does not know)
	Outcome       Outcome
	Duration      time.Duration
}

// observeMiddleware reports initialize (the permission middleware reports
// calls, where it knows refusals).
func (s *Server) observeMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if method == "initialize" && err == nil {
			snap, _, _ := s.current()
			o := s.observation(req, s.identify(req, snap))
			o.Kind = "initialize"
			if p, ok := req.GetParams().(*sdk.InitializeParams); ok && p != nil {
				o.Protocol = ClientString(p.ProtocolVersion)
				if p.ClientInfo != nil {
					o.Client, o.ClientVersion = ClientString(p.ClientInfo.Name), ClientString(p.ClientInfo.Version)
				}
			}
			if r, ok := res.(*sdk.InitializeResult); ok && r != nil {
				o.Protocol = ClientString(r.ProtocolVersion)
			}
			s.opts.Observe(o)
		}
		return res, err
	}
}

func (s *Server) observation(req sdk.Request, id Identity) Observation {
	o := Observation{Agent: id.Agent, Client: id.Client}
	if ss, ok := req.GetSession().(*sdk.ServerSession); ok && ss != nil {
		o.Session = ss.ID()
		if p := ss.InitializeParams(); p != nil {
			o.Protocol = ClientString(p.ProtocolVersion)
			if p.ClientInfo != nil {
				o.ClientVersion = ClientString(p.ClientInfo.Version)
			}
		}
	}
	return o
}

func (s *Server) observeCall(req sdk.Request, c call, tool string, d time.Duration, outcome Outcome, res sdk.Result, err error) {
	o := s.observation(req, c.id)
	o.Kind, o.Tool, o.Duration, o.Outcome = "call", tool, d, outcome
	if o.Outcome == "" {
		o.Outcome = OutcomeOK
		if ct, ok := res.(*sdk.CallToolResult); err != nil || !ok || ct.IsError {
			o.Outcome = OutcomeError
		}
	}
	s.opts.Observe(o)
}
