package enforce

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// HookInput is the part of what Claude Code sends a PreToolUse hook on
// stdin that a decision needs.
type HookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Cwd           string          `json:"cwd"`
}

// MaxHookInput bounds what a hook reads from stdin.
const MaxHookInput = 1 << 20

// ParseHookInput decodes a PreToolUse hook's stdin.
func ParseHookInput(data []byte) (HookInput, error) {
	var in HookInput
	if len(data) > MaxHookInput {
		return in, fmt.Errorf("hook input: larger than %d bytes", MaxHookInput)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("hook input: %w", err)
	}
	return in, nil
}

// ClaudeHook decides one Claude Code tool call: Bash commands by
// CheckCommand, file reads and edits by CheckPath on the path made relative
// to projectDir (Claude passes absolute paths). Tools it does not know are
// allowed: Claude Code's own permission rules still apply to them.
func (r *Rules) ClaudeHook(in HookInput, projectDir string) Decision {
	var ti struct {
		Command      string `json:"command"`
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Path         string `json:"path"`
	}
	if len(in.ToolInput) > 0 && json.Unmarshal(in.ToolInput, &ti) != nil {
		return Decision{Verdict: Ask, Reason: "Bridle could not read the tool's input, so the human decides"}
	}
	rel := func(p string) string {
		if p == "" || !filepath.IsAbs(p) || projectDir == "" {
			return p
		}
		if r, err := filepath.Rel(projectDir, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			return filepath.ToSlash(r)
		}
		return p
	}
	switch in.ToolName {
	case "Bash":
		return r.CheckCommand(ti.Command)
	case "Read":
		return r.CheckPath(rel(ti.FilePath), Read)
	case "Edit", "Write", "MultiEdit":
		return r.CheckPath(rel(ti.FilePath), Write)
	case "NotebookEdit":
		return r.CheckPath(rel(ti.NotebookPath), Write)
	}
	return Decision{Verdict: Allow}
}

// ClaudeHookOutput is what the hook prints for d: Claude Code's
// hookSpecificOutput with permissionDecision deny or ask and the reason
// (capped at Claude's 2,000 characters), or nothing for allow, which defers
// to Claude Code's own rules.
func ClaudeHookOutput(d Decision) []byte {
	decision := ""
	switch d.Verdict {
	case Forbid:
		decision = "deny"
	case Ask:
		decision = "ask"
	default:
		return nil
	}
	reason := d.String()
	if len(reason) > 2000 {
		reason = strings.ToValidUTF8(reason[:1997], "") + "..."
	}
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}})
	return append(out, '\n')
}
