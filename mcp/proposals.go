package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

// proposalDeps is what the proposals toolset needs.
type proposalDeps struct {
	// service returns the proposal layer; nil when no backend is configured,
	// which disables the toolset.
	service func() (proposals.Service, error)
	red     *redact.Redactor // refuses secrets in what agents propose
}

// proposalsToolset opens pull requests (or local branches) with rule
// changes, lists them and approves them.
func proposalsToolset(d proposalDeps) Toolset {
	return Toolset{ID: ToolsetProposals, Enabled: configured(d.service != nil), Tools: []Tool{
		proposeGuardrail(d), addPattern(d), updateRules(d), listProposals(d), getProposal(d), approveProposal(d),
	}}
}

// proposalService opens the backend on first use; nil when open is nil.
func proposalService(open func() (proposals.Backend, error), version string, red *redact.Redactor) func() (proposals.Service, error) {
	if open == nil {
		return nil
	}
	backend := sync.OnceValues(open)
	return func() (proposals.Service, error) {
		b, err := backend()
		return proposals.Service{Backend: b, Version: version, Redactor: red}, err
	}
}

func (d proposalDeps) open() (proposals.Service, error) {
	if d.service == nil {
		return proposals.Service{}, errors.New("proposals are not configured for this server")
	}
	return d.service()
}

// origin is who proposes, from the session alone: whatever an agent puts in
// its arguments never reaches provenance.
func origin(c call) proposals.Origin {
	return proposals.OriginOf(c.actor())
}

// proposalError turns a proposal failure into a message for the model.
func proposalError(err error) error {
	var inv *proposals.InvalidError
	if errors.As(err, &inv) {
		var b strings.Builder
		b.WriteString("the proposal would make the rules invalid, so nothing was created. Fix these and propose again:\n")
		for _, d := range inv.Diagnostics {
			fmt.Fprintf(&b, "- %s: %s", d.Path, d.Message)
			if d.Suggest != "" {
				fmt.Fprintf(&b, " (did you mean %q?)", d.Suggest)
			}
			if d.Fix != "" {
				b.WriteString(" — " + d.Fix)
			}
			b.WriteByte('\n')
		}
		return errors.New(b.String())
	}
	return err
}

// ProposalView is a proposal as the tools return it.
type ProposalView struct {
	Number    int      `json:"number"`
	Title     string   `json:"title"`
	State     string   `json:"state"`
	Branch    string   `json:"branch"`
	URL       string   `json:"url,omitempty"`
	Mergeable bool     `json:"mergeable"`
	Conflict  string   `json:"conflict,omitempty"`
	Author    string   `json:"author,omitempty"`
	MergedBy  string   `json:"merged_by,omitempty"`
	MergedAt  string   `json:"merged_at,omitempty"`
	Labels    []string `json:"labels,omitempty"`
	Body      string   `json:"body,omitempty"`
}

func proposalView(p proposals.Proposal) ProposalView {
	v := ProposalView{Number: p.Number, Title: p.Title, State: string(p.State), Branch: p.Branch, URL: p.URL,
		Mergeable: p.Mergeable, Conflict: p.Conflict, Author: p.Author, MergedBy: p.MergedBy, Labels: p.Labels, Body: p.Body}
	if p.MergedAt != nil {
		v.MergedAt = p.MergedAt.UTC().Format("2006-01-02T15:04:05Z")
	}
	return v
}

func (d proposalDeps) propose(ctx context.Context, tool string, args json.RawMessage, change proposals.Change) (ProposalView, error) {
	c := callFrom(ctx)
	if err := refuseSecrets(d.red, tool, args); err != nil {
		return ProposalView{}, err
	}
	svc, err := d.open()
	if err != nil {
		return ProposalView{}, err
	}
	p, err := svc.Propose(ctx, proposals.Draft{Change: change, Origin: origin(c)})
	if err != nil {
		return ProposalView{}, proposalError(err)
	}
	c.audit(audit.Event{Kind: audit.KindWrite, Tool: tool, ID: fmt.Sprint(p.Number),
		Summary: fmt.Sprintf("proposed #%d: %s", p.Number, p.Title), Detail: map[string]any{"branch": p.Branch, "url": p.URL, "subject": change.Subject()}})
	return proposalView(p), nil
}

type proposeGuardrailInput struct {
	ID            string   `json:"id" jsonschema:"a new guardrail id: lower-case letters, digits and dashes"`
	Statement     string   `json:"statement" jsonschema:"the rule, in one line"`
	Severity      string   `json:"severity" jsonschema:"guidance, hard-instruction or enforcement"`
	Rationale     string   `json:"rationale,omitempty" jsonschema:"why the rule should exist, in one line"`
	AppliesTo     []string `json:"applies_to,omitempty" jsonschema:"agents it applies to; all agents when empty"`
	ScopeApproval bool     `json:"scope_approval,omitempty" jsonschema:"agents must call request_scope_approval before acting beyond the task"`
	EnforcedBy    []string `json:"enforced_by,omitempty" jsonschema:"for enforcement rules: the permission Bridle checks"`
	Why           string   `json:"why" jsonschema:"what happened in this session that makes the rule worth having; shown to the human who approves"`
}

func proposeGuardrail(d proposalDeps) Tool {
	return newTool(Tool{
		Name:  "propose_guardrail",
		Title: "Propose a new guardrail",
		Description: "Propose a new guardrail as a pull request. Bridle validates it first and refuses an invalid one; a human approves it by merging. " +
			"You are recorded as the proposer from this session; you cannot approve your own proposal.",
		Toolset: ToolsetProposals, Permission: schema.PermRulesPropose, AuditsItself: true,
	}, tweaks(limits(map[string]int{"id": 80, "statement": 1000, "rationale": 2000, "why": 4000}),
		enum("severity", "guidance", "hard-instruction", "enforcement"),
	), func(ctx context.Context, req *sdk.CallToolRequest, in proposeGuardrailInput) (*sdk.CallToolResult, ProposalView, error) {
		v, err := d.propose(ctx, "propose_guardrail", req.Params.Arguments, proposals.Change{Kind: proposals.KindGuardrail, Rationale: in.Why, Guardrail: &schema.Guardrail{
			ID: in.ID, Statement: in.Statement, Severity: schema.Severity(in.Severity), Rationale: in.Rationale,
			AppliesTo: in.AppliesTo, ScopeApproval: in.ScopeApproval, EnforcedBy: in.EnforcedBy,
		}})
		return nil, v, err
	})
}

type exampleRepoInput struct {
	URL          string   `json:"url" jsonschema:"repository URL or local path"`
	Ref          string   `json:"ref,omitempty" jsonschema:"branch, tag or commit"`
	ReferenceTag string   `json:"reference_tag" jsonschema:"unique tag for this example"`
	ArchTag      string   `json:"arch_tag,omitempty" jsonschema:"architecture tag; the pattern name when empty"`
	Paths        []string `json:"paths,omitempty" jsonschema:"paths inside the repository to index"`
}

type addPatternInput struct {
	Name         string             `json:"name" jsonschema:"pattern name: lower-case letters, digits and dashes; an existing name is replaced"`
	Description  string             `json:"description" jsonschema:"what the pattern is and when to use it"`
	ExampleRepos []exampleRepoInput `json:"example_repos,omitempty" jsonschema:"repositories that show the pattern"`
	Why          string             `json:"why" jsonschema:"why the project should adopt or change this pattern"`
}

func addPattern(d proposalDeps) Tool {
	return newTool(Tool{
		Name:        "add_pattern",
		Title:       "Propose a custom architecture pattern",
		Description: "Propose adding (or replacing) a custom architecture pattern with example repositories, as a pull request a human approves by merging.",
		Toolset:     ToolsetProposals, Permission: schema.PermRulesPropose, AuditsItself: true,
	}, limits(map[string]int{"name": 80, "description": 5000, "why": 4000}),
		func(ctx context.Context, req *sdk.CallToolRequest, in addPatternInput) (*sdk.CallToolResult, ProposalView, error) {
			p := &schema.CustomPattern{Name: in.Name, Description: in.Description}
			for _, r := range in.ExampleRepos {
				p.ExampleRepos = append(p.ExampleRepos, schema.ExampleRepo{URL: r.URL, Ref: r.Ref, ReferenceTag: r.ReferenceTag, ArchTag: r.ArchTag, Paths: r.Paths})
			}
			v, err := d.propose(ctx, "add_pattern", req.Params.Arguments, proposals.Change{Kind: proposals.KindPattern, Rationale: in.Why, Pattern: p})
			return nil, v, err
		})
}

type updateRulesInput struct {
	Section string `json:"section" jsonschema:"the section to replace"`
	Value   any    `json:"value" jsonschema:"its new value: text for project.name and project.overview, a list for the others"`
	Why     string `json:"why" jsonschema:"why the section should change"`
}

func updateRules(d proposalDeps) Tool {
	return newTool(Tool{
		Name:  "update_rules",
		Title: "Propose a change to one section of the rules",
		Description: "Propose replacing one section of the project description (" + strings.Join(proposals.Sections, ", ") +
			") as a pull request a human approves by merging. Guardrails and permissions cannot be changed this way.",
		Toolset: ToolsetProposals, Permission: schema.PermRulesPropose, AuditsItself: true,
	}, tweaks(limits(map[string]int{"why": 4000}), enum("section", proposals.Sections...)), func(ctx context.Context, req *sdk.CallToolRequest, in updateRulesInput) (*sdk.CallToolResult, ProposalView, error) {
		v, err := d.propose(ctx, "update_rules", req.Params.Arguments, proposals.Change{Kind: proposals.KindRules, Rationale: in.Why, Section: in.Section, Value: in.Value})
		return nil, v, err
	})
}

type listProposalsInput struct {
	State string `json:"state,omitempty" jsonschema:"open (the default), merged, closed or all"`
}

// ProposalList is list_proposals' result.
type ProposalList struct {
	Proposals []ProposalView `json:"proposals"`
}

func listProposals(d proposalDeps) Tool {
	return newTool(Tool{
		Name: "list_proposals", Title: "List proposals",
		Description: "Proposals (pull requests) to the rules, with their state and whether they still merge cleanly.",
		Toolset:     ToolsetProposals, Permission: schema.PermRulesPropose, ReadOnly: true,
	}, enum("state", "open", "merged", "closed", "all"), func(ctx context.Context, req *sdk.CallToolRequest, in listProposalsInput) (*sdk.CallToolResult, ProposalList, error) {
		svc, err := d.open()
		if err != nil {
			return nil, ProposalList{}, err
		}
		st := proposals.State(in.State)
		if st == "" {
			st = proposals.Open
		}
		ps, err := svc.Backend.List(ctx, st)
		if err != nil {
			return nil, ProposalList{}, err
		}
		out := ProposalList{Proposals: []ProposalView{}}
		for _, p := range ps {
			out.Proposals = append(out.Proposals, proposalView(p))
		}
		return nil, out, nil
	})
}

type numberInput struct {
	Number int `json:"number" jsonschema:"the proposal (pull request) number"`
}

func getProposal(d proposalDeps) Tool {
	return newTool(Tool{
		Name: "get_proposal", Title: "Get one proposal",
		Description: "One proposal with its state, mergeability and body (rationale, change and its effect on each agent's file).",
		Toolset:     ToolsetProposals, Permission: schema.PermRulesPropose, ReadOnly: true,
	}, nil, func(ctx context.Context, req *sdk.CallToolRequest, in numberInput) (*sdk.CallToolResult, ProposalView, error) {
		svc, err := d.open()
		if err != nil {
			return nil, ProposalView{}, err
		}
		p, err := svc.Backend.Get(ctx, in.Number)
		if err != nil {
			return nil, ProposalView{}, err
		}
		return nil, proposalView(p), nil
	})
}

func approveProposal(d proposalDeps) Tool {
	return newTool(Tool{
		Name: "approve_proposal", Title: "Approve (merge) a proposal",
		Description: "Agents never approve proposals: only a person does, by merging it (bridle approve, the gateway's panel or admin API, or Gitea). " +
			"This tool is listed only where the rules grant rules.approve, and it always refuses, saying so.",
		Toolset: ToolsetProposals, Permission: schema.PermRulesApprove, AuditsItself: true,
	}, nil, func(ctx context.Context, req *sdk.CallToolRequest, in numberInput) (*sdk.CallToolResult, ProposalView, error) {
		c := callFrom(ctx)
		svc, err := d.open()
		if err != nil {
			return nil, ProposalView{}, err
		}
		p, err := svc.Approve(ctx, in.Number, proposals.Principal{Actor: c.actor()})
		switch {
		case errors.Is(err, proposals.ErrSelfApproval):
			c.audit(audit.Event{Kind: audit.KindRefusal, Tool: "approve_proposal",
				ID: fmt.Sprint(in.Number), Summary: fmt.Sprintf("refused self-approval of #%d", in.Number)})
		case errors.Is(err, proposals.ErrAgentApproval):
			c.audit(audit.Event{Kind: audit.KindRefusal, Tool: "approve_proposal",
				ID: fmt.Sprint(in.Number), Summary: fmt.Sprintf("refused an agent's approval of #%d", in.Number)})
		}
		if err != nil {
			return nil, ProposalView{}, proposalError(err)
		}
		c.audit(audit.Event{Kind: audit.KindWrite, Tool: "approve_proposal", ID: fmt.Sprint(p.Number),
			Summary: fmt.Sprintf("approved #%d: %s", p.Number, p.Title)})
		return nil, proposalView(p), nil
	})
}
