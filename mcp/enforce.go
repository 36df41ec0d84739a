package mcp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/enforce"
)

// enforcer keeps the enforce rules of the snapshot last asked about, per
// agent: building them parses every command prefix, checking is per call.
type enforcer struct {
	mu    sync.Mutex
	hash  string
	rules map[string]*enforce.Rules
}

func (e *enforcer) get(snap *compiler.Snapshot, agent string) (*enforce.Rules, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.hash != snap.ContentHash {
		e.hash, e.rules = snap.ContentHash, map[string]*enforce.Rules{}
	}
	if r, ok := e.rules[agent]; ok {
		return r, nil
	}
	r, err := enforce.New(&snap.Document, agent)
	if err != nil {
		return nil, err
	}
	e.rules[agent] = r
	return r, nil
}

type checkCommandInput struct {
	Command string `json:"command" jsonschema:"the shell command you are about to run, exactly as you would run it"`
}

var commandLimit = tweaks(limits(map[string]int{"command": 20000}), nonEmpty("command"))

func checkCommand(e *enforcer) Tool {
	return newTool(Tool{
		Name:  "check_command",
		Title: "Check a shell command against the guardrails",
		Description: "Before running a shell command, ask whether the project's guardrails allow it. Answers allow, ask (get the human's OK first) " +
			"or forbid (do not run it), naming the guardrail that decides. Compound commands, sh -c strings and wrappers are checked part by part.",
		Toolset:  ToolsetRules,
		ReadOnly: true,
	}, commandLimit, func(ctx context.Context, req *sdk.CallToolRequest, in checkCommandInput) (*sdk.CallToolResult, enforce.Decision, error) {
		c := callFrom(ctx)
		if c.snap == nil {
			return nil, enforce.Decision{}, unavailableErr(c)
		}
		r, err := e.get(c.snap, c.id.Agent)
		if err != nil {
			return nil, enforce.Decision{}, fmt.Errorf("the rules' enforce entries are invalid (%w); treat every command as needing the human's OK", err)
		}
		return nil, r.CheckCommand(in.Command), nil
	})
}

type checkPathInput struct {
	Path string `json:"path" jsonschema:"the file, relative to the project root (or absolute inside it)"`
	Op   string `json:"op" jsonschema:"read or write"`
}

var pathLimit = tweaks(limits(map[string]int{"path": 4096}), nonEmpty("path"), enum("op", "read", "write"))

func checkPath(e *enforcer) Tool {
	return newTool(Tool{
		Name:        "check_path",
		Title:       "Check a file access against the guardrails",
		Description: "Before reading or writing a file, ask whether the project's guardrails allow it. Answers allow or forbid, naming the guardrail that decides.",
		Toolset:     ToolsetRules,
		ReadOnly:    true,
	}, pathLimit, func(ctx context.Context, req *sdk.CallToolRequest, in checkPathInput) (*sdk.CallToolResult, enforce.Decision, error) {
		c := callFrom(ctx)
		if c.snap == nil {
			return nil, enforce.Decision{}, unavailableErr(c)
		}
		r, err := e.get(c.snap, c.id.Agent)
		if err != nil {
			return nil, enforce.Decision{}, fmt.Errorf("the rules' enforce entries are invalid (%w); ask the human before touching the file", err)
		}
		op := enforce.Read
		if in.Op == "write" {
			op = enforce.Write
		}
		return nil, r.CheckPath(in.Path, op), nil
	})
}
