package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/internal/mdsafe"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// RulesFor returns the markdown an agent receives: its own render, or for
// an agent without a profile a reference render of the rules that apply to
// all agents, with a note on how to be identified.
func RulesFor(snap *compiler.Snapshot, id Identity) string {
	if r, ok := snap.Render(id.Agent); ok {
		return r.Content
	}
	doc := snap.Document
	meta := renderers.Meta{BridleVersion: snap.BridleVersion, ContentHash: snap.ContentHash,
		Commit: snap.Source.Commit, Ref: snap.Source.Ref, Dirty: snap.Source.Dirty}
	if snap.Approval != nil {
		meta.Unapproved = snap.Approval.Unapproved
	}
	f := renderers.RenderAs(&doc, id.Agent, schema.AgentProfile{
		DisplayName: id.Agent, InstructionFormat: schema.AgentsMD, Style: schema.Reference, Output: schema.AgentsMD,
	}, meta)
	note := fmt.Sprintf("> Bridle does not know this agent (client %q), so these are the rules for all agents and you have no permissions. "+
		"Launch the server with `bridle mcp --agent NAME`, or add the client name to mcp_clients in an agent profile.\n\n", id.Client)
	if id.Via == ViaMismatch {
		note = fmt.Sprintf("> This Bridle server was started as agent %s, but the client that connected says it is %s (client %q), "+
			"so it serves the rules for all agents and no permissions: one agent's configuration must not give another its identity. "+
			"Give %s its own entry: `bridle install %s`.\n\n", mdsafe.Inline(id.Launched), mdsafe.Inline(id.Harness), id.Client, mdsafe.Inline(id.Harness), mdsafe.Inline(id.Harness))
	}
	i := strings.Index(f.Content, "-->\n")
	if i < 0 {
		return note + f.Content
	}
	return f.Content[:i+4] + "\n" + note + f.Content[i+4:]
}

// unavailable is the answer when no snapshot could be loaded at all.
func unavailable(c call) *sdk.CallToolResult {
	return toolError("%v", unavailableErr(c))
}

func unavailableErr(c call) error {
	// The message is for the model, so it reads as a sentence.
	return fmt.Errorf("Bridle cannot load the rules: %w. Tell the human; until it is fixed, work only on what the task asks and ask before anything else", c.err) //lint:ignore ST1005 shown to the agent as prose
}

type noInput struct{}

// rulesToolset serves the rules to the calling agent. Its tools need only
// the request's snapshot and identity, and the enforce rules built from it.
func rulesToolset() Toolset {
	e := &enforcer{}
	return Toolset{ID: ToolsetRules, Tools: []Tool{
		getRules(), listGuardrails(), getGuardrail(), checkCommand(e), checkPath(e), requestScopeApproval(),
	}}
}

func getRules() Tool {
	return newTool(Tool{
		Name:        "get_rules",
		Title:       "Get the project rules",
		Description: "The full rules of this project, rendered for you as markdown. Call it at the start of every session and follow it.",
		Toolset:     ToolsetRules,
		ReadOnly:    true,
	}, nil, func(ctx context.Context, req *sdk.CallToolRequest, _ noInput) (*sdk.CallToolResult, any, error) {
		c := callFrom(ctx)
		if c.snap == nil {
			return unavailable(c), nil, nil
		}
		body := RulesFor(c.snap, c.id)
		if n := c.status.Notice(); n != "" {
			body = n + "\n\n" + body
		}
		return text(body), nil, nil
	})
}

// GuardrailView is a guardrail as the tools return it.
type GuardrailView struct {
	ID            string         `json:"id"`
	Statement     string         `json:"statement"`
	Rationale     string         `json:"rationale,omitempty"`
	Severity      string         `json:"severity"`
	AppliesTo     []string       `json:"applies_to"`
	AppliesToYou  bool           `json:"applies_to_you"`
	ScopeApproval bool           `json:"scope_approval,omitempty"`
	EnforcedBy    []string       `json:"enforced_by,omitempty"`
	Provenance    ProvenanceView `json:"provenance"`
	Origin        string         `json:"origin"`
}

// ProvenanceView is where a guardrail came from. (schema.Provenance carries
// invopop tags that the SDK's schema inference would misread.)
type ProvenanceView struct {
	Source       string `json:"source"`
	Agent        string `json:"agent,omitempty"`
	AgentSession string `json:"agent_session,omitempty"`
	Vendor       string `json:"vendor,omitempty"`
	ProposedBy   string `json:"proposed_by,omitempty"`
	// Approval is approved (a merge the history proves), baseline (the
	// owner's first commit of the rules), unapproved (no approved merge
	// produced the current text) or unverified (no history to check).
	Approval    string `json:"approval"`
	Unapproved  string `json:"unapproved,omitempty"` // how an unapproved change came in
	PullRequest string `json:"pull_request,omitempty"`
	ApprovedBy  string `json:"approved_by,omitempty"` // only when approved
	ApprovedAt  string `json:"approved_at,omitempty"`
	MergeCommit string `json:"merge_commit,omitempty"`
}

// UnapprovedView is one part of the rules served without approval.
type UnapprovedView struct {
	Subject  string `json:"subject"`
	Change   string `json:"change"`
	Commit   string `json:"commit,omitempty"`
	At       string `json:"at,omitempty"`
	Reason   string `json:"reason"`
	Approved string `json:"approved,omitempty"` // the approved statement, which still applies
}

func unapprovedViews(snap *compiler.Snapshot) []UnapprovedView {
	if snap.Approval == nil {
		return nil
	}
	var out []UnapprovedView
	for _, u := range snap.Approval.Unapproved {
		out = append(out, UnapprovedView(u))
	}
	return out
}

func provenanceView(p schema.Provenance) ProvenanceView {
	v := ProvenanceView{Source: string(p.Source), Agent: p.Agent, AgentSession: p.AgentSession,
		Vendor: p.Vendor, ProposedBy: p.ProposedBy}
	switch {
	case p.Unapproved != "":
		v.Approval, v.Unapproved = "unapproved", p.Unapproved
	case p.Verified && p.Baseline != "":
		v.Approval, v.MergeCommit = "baseline", p.Baseline
	case p.Verified:
		v.Approval, v.PullRequest, v.ApprovedBy, v.ApprovedAt, v.MergeCommit = "approved", p.PullRequest, p.ApprovedBy, p.ApprovedAt, p.MergeCommit
	default:
		v.Approval = "unverified"
	}
	return v
}

func view(g schema.Guardrail, agent string) GuardrailView {
	return GuardrailView{
		ID: g.ID, Statement: g.Statement, Rationale: g.Rationale, Severity: string(g.Severity),
		AppliesTo: g.AppliesTo, AppliesToYou: g.AppliesToAgent(agent), ScopeApproval: g.ScopeApproval,
		EnforcedBy: g.EnforcedBy, Origin: renderers.Origin(g.Provenance),
		Provenance: provenanceView(g.Provenance),
	}
}

type listGuardrailsInput struct {
	Tier string `json:"tier,omitempty" jsonschema:"only guardrails of this severity tier"`
	All  bool   `json:"all,omitempty" jsonschema:"include guardrails that do not apply to you"`
}

// GuardrailList is list_guardrails' result.
type GuardrailList struct {
	Agent      string          `json:"agent"`
	Count      int             `json:"count"`
	Guardrails []GuardrailView `json:"guardrails"`
	// Unapproved lists the parts of the rules changed without approval.
	Unapproved []UnapprovedView `json:"unapproved,omitempty"`
	Stale      *Status          `json:"stale,omitempty"`
}

var tierEnum = enum("tier", schema.Enforcement, schema.HardInstruction, schema.Guidance)

func listGuardrails() Tool {
	return newTool(Tool{
		Name:        "list_guardrails",
		Title:       "List guardrails",
		Description: "The project's guardrails that apply to you, strongest tier first, with severity, applies_to and provenance. Filter by tier; all=true includes rules for other agents.",
		Toolset:     ToolsetRules,
		ReadOnly:    true,
	}, tierEnum, func(ctx context.Context, req *sdk.CallToolRequest, in listGuardrailsInput) (*sdk.CallToolResult, GuardrailList, error) {
		c := callFrom(ctx)
		if c.snap == nil {
			return nil, GuardrailList{}, unavailableErr(c)
		}
		out := GuardrailList{Agent: c.id.Agent, Guardrails: []GuardrailView{}}
		for _, tier := range schema.Severities {
			if in.Tier != "" && string(tier) != in.Tier {
				continue
			}
			for _, g := range c.snap.Document.Guardrails {
				if g.Severity == tier && (in.All || g.AppliesToAgent(c.id.Agent)) {
					out.Guardrails = append(out.Guardrails, view(g, c.id.Agent))
				}
			}
		}
		out.Count = len(out.Guardrails)
		out.Unapproved = unapprovedViews(c.snap)
		if c.status.Stale {
			st := c.status
			out.Stale = &st
		}
		return nil, out, nil
	})
}

type getGuardrailInput struct {
	ID string `json:"id" jsonschema:"the guardrail id, e.g. no-unrequested-refactors"`
}

var idLimit = tweaks(limits(map[string]int{"id": 80}), nonEmpty("id"))

func getGuardrail() Tool {
	return newTool(Tool{
		Name:        "get_guardrail",
		Title:       "Get one guardrail",
		Description: "One guardrail by id: statement, rationale, severity, who it applies to, and where it came from.",
		Toolset:     ToolsetRules,
		ReadOnly:    true,
	}, idLimit, func(ctx context.Context, req *sdk.CallToolRequest, in getGuardrailInput) (*sdk.CallToolResult, GuardrailView, error) {
		c := callFrom(ctx)
		if c.snap == nil {
			return nil, GuardrailView{}, unavailableErr(c)
		}
		var ids []string
		for _, g := range c.snap.Document.Guardrails {
			if g.ID == in.ID {
				return nil, view(g, c.id.Agent), nil
			}
			ids = append(ids, g.ID)
		}
		msg := fmt.Sprintf("no guardrail %q", clean(in.ID))
		if sg := schema.Suggest(in.ID, ids); sg != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", sg)
		}
		return nil, GuardrailView{}, fmt.Errorf("%s; list_guardrails shows them all", msg)
	})
}

func (s *Server) addResources(srv *sdk.Server) {
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: "bridle://rules/{agent}",
		Name:        "rules",
		Title:       "Rules rendered for an agent",
		Description: "The rules document rendered for the named agent, as markdown.",
		MIMEType:    "text/markdown",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		c := callFrom(ctx)
		if c.snap == nil {
			return nil, fmt.Errorf("bridle cannot load the rules: %v", c.err)
		}
		agent := strings.TrimPrefix(req.Params.URI, "bridle://rules/")
		if _, ok := c.snap.Document.AgentProfiles[agent]; !ok {
			return nil, sdk.ResourceNotFoundError(req.Params.URI)
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{
			URI: req.Params.URI, MIMEType: "text/markdown", Text: RulesFor(c.snap, Identity{Agent: agent}),
		}}}, nil
	})
	srv.AddResource(&sdk.Resource{
		URI:         "bridle://snapshot",
		Name:        "snapshot",
		Title:       "Compiled rules snapshot",
		Description: "The compiled snapshot: normalised document, every agent's render, content hash and source commit.",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		c := callFrom(ctx)
		if c.snap == nil {
			return nil, fmt.Errorf("bridle cannot load the rules: %v", c.err)
		}
		b, err := c.snap.JSON()
		if err != nil {
			return nil, err
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
	})
}
