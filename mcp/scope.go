package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/schema"
)

type scopeInput struct {
	Action      string `json:"action" jsonschema:"what you want to do that goes beyond the task, in one or two sentences"`
	Reason      string `json:"reason" jsonschema:"why the task needs it"`
	GuardrailID string `json:"guardrail_id,omitempty" jsonschema:"the scope guardrail that requires asking, e.g. no-unrequested-refactors"`
}

// ScopeResult is request_scope_approval's answer.
type ScopeResult struct {
	RequestID string `json:"request_id"`
	Decision  string `json:"decision"` // approved, denied, pending
	Message   string `json:"message"`
}

var scopeLimits = tweaks(limits(map[string]int{"action": 2000, "reason": 4000, "guardrail_id": 80}), nonEmpty("action", "reason"))

const elicitKey = "approval"

func requestScopeApproval() Tool {
	return newTool(Tool{
		Name:  "request_scope_approval",
		Title: "Ask the human to approve going beyond the task",
		Description: "Call this before any action beyond the task you were given (hard-instruction scope rules require it). " +
			"Bridle asks the human and answers approved or denied; if it cannot ask, it records the request and tells you to ask in chat and wait.",
		Toolset:      ToolsetRules,
		ReadOnly:     false,
		Destructive:  false,
		Idempotent:   false,
		AuditsItself: true,
	}, scopeLimits, func(ctx context.Context, req *sdk.CallToolRequest, in scopeInput) (*sdk.CallToolResult, ScopeResult, error) {
		c := callFrom(ctx)
		action, reason, gid := strings.TrimSpace(clean(in.Action)), strings.TrimSpace(clean(in.Reason)), strings.TrimSpace(clean(in.GuardrailID))
		if action == "" || reason == "" {
			return nil, ScopeResult{}, errors.New("request_scope_approval needs a non-empty action and reason")
		}
		if gid != "" && c.snap != nil {
			var ids []string
			found := false
			for _, g := range c.snap.Document.Guardrails {
				ids = append(ids, g.ID)
				found = found || g.ID == gid
			}
			if !found {
				msg := fmt.Sprintf("no guardrail %q", gid)
				if sg := schema.Suggest(gid, ids); sg != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", sg)
				}
				return nil, ScopeResult{}, fmt.Errorf("%s; leave guardrail_id empty or use an id from list_guardrails", msg)
			}
		}
		detail := map[string]any{"action": action, "reason": reason}
		if gid != "" {
			detail["guardrail_id"] = gid
		}
		ev := func(kind, id, summary string, extra map[string]any) {
			d := map[string]any{}
			for k, v := range detail {
				d[k] = v
			}
			for k, v := range extra {
				d[k] = v
			}
			c.audit(audit.Event{Kind: kind, Tool: "request_scope_approval", ID: id, Summary: summary, Detail: d})
		}

		// Second round: the client answered the elicitation.
		if resp, ok := req.Params.InputResponses[elicitKey]; ok {
			id := req.Params.RequestState
			if !strings.HasPrefix(id, "scope-") {
				id = newRequestID()
			}
			er, _ := resp.(*sdk.ElicitResult)
			approved := er != nil && er.Action == "accept" && er.Content["approve"] == true
			decision, msg := "denied", "The human did not approve. Do not do it; continue with the task as asked, or stop and ask in chat."
			if approved {
				decision, msg = "approved", "The human approved. You may do exactly this: "+action
			} else if er != nil && er.Action != "accept" {
				msg = fmt.Sprintf("The human %sed the request. Do not do it.", strings.TrimSuffix(er.Action, "e"))
			}
			ev(audit.KindScopeDecision, id, "scope "+decision, map[string]any{"decision": decision, "via": "elicitation"})
			return nil, ScopeResult{RequestID: id, Decision: decision, Message: msg}, nil
		}

		id := newRequestID()
		caps := req.ClientCapabilities()
		if caps != nil && caps.Elicitation != nil {
			ev(audit.KindScopeRequest, id, "asked the human", nil)
			q := fmt.Sprintf("Agent %s asks to go beyond its task.\n\nAction: %s\nReason: %s", c.id.Agent, action, reason)
			if gid != "" {
				q += "\nRule: " + gid
			}
			return &sdk.CallToolResult{
				RequestState: id,
				InputRequests: sdk.InputRequestMap{elicitKey: &sdk.ElicitParams{
					Mode:    "form",
					Message: q,
					RequestedSchema: &jsonschema.Schema{
						Type: "object",
						Properties: map[string]*jsonschema.Schema{
							"approve": {Type: "boolean", Title: "Approve", Description: "Allow the agent to do this?"},
						},
						Required: []string{"approve"},
					},
				}},
			}, ScopeResult{}, nil
		}
		ev(audit.KindScopePending, id, "no elicitation; the agent must ask in chat", nil)
		msg := fmt.Sprintf("STOP. This client cannot show Bridle's approval prompt, so ask the human in chat now: "+
			"\"May I %s? Reason: %s\" Then wait for their answer and do it only if they say yes. The request is recorded as %s.", action, reason, id)
		return nil, ScopeResult{RequestID: id, Decision: "pending", Message: msg}, nil
	})
}

func newRequestID() string {
	b := make([]byte, 5)
	rand.Read(b)
	return "scope-" + hex.EncodeToString(b)
}
