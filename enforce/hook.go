package enforce

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
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
// CheckCommandWith with links resolved (LinkResolver), file reads and edits by CheckPath on the path made relative
// to projectDir (Claude passes absolute paths). A path is checked as given
// and, when it exists, with its symbolic links resolved (a link to .env is
// .env); one that resolves outside the project is asked about. Grep is
// checked as a read of its path, and asked about when that directory
// holds a no_read file its glob may match; Glob, which lists names only,
// is forbidden only for a path that is itself protected. Tools it does not
// know are allowed: Claude Code's own permission rules still apply to
// them. Unlike CheckCommand and CheckPath, ClaudeHook reads the file
// system (to resolve links).
func (r *Rules) ClaudeHook(in HookInput, projectDir string) Decision {
	c, err := in.call()
	if err != nil {
		return Decision{Verdict: Ask, Reason: "Bridle could not read the tool's input, so the human decides"}
	}
	return r.Decide(c, projectDir)
}

// searchDir is where Grep and Glob search: their path, else the session's
// working directory, else the project.
func searchDir(p, cwd, projectDir string) string {
	switch {
	case p != "":
		return p
	case cwd != "":
		return cwd
	case projectDir != "":
		return projectDir
	}
	return "."
}

// hookPath checks p, as given and with its links resolved.
func (r *Rules) hookPath(p, projectDir string, op Op) Decision {
	d, _ := r.hookPaths(p, projectDir, op)
	return d
}

// hookPaths checks p as hookPath does and returns the project-relative
// forms it was checked in.
func (r *Rules) hookPaths(p, projectDir string, op Op) (Decision, []string) {
	given := relTo(p, projectDir)
	d := r.CheckPath(given, op)
	rels := []string{given}
	if p == "" || projectDir == "" {
		return d, rels
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(projectDir, abs)
	}
	resolved, ok := resolveLinks(abs)
	if !ok {
		return d, rels
	}
	root, err := filepath.EvalSymlinks(projectDir)
	if err != nil {
		root = filepath.Clean(projectDir)
	}
	rr, err := filepath.Rel(root, resolved)
	if err != nil || rr == ".." || strings.HasPrefix(rr, ".."+string(filepath.Separator)) {
		if d.Verdict == Allow {
			return Decision{Verdict: Ask, Command: given,
				Reason: fmt.Sprintf("%s resolves to %s, outside the project, so Bridle's globs cannot say whether it is protected", bound(given, 200), bound(resolved, 200))}, rels
		}
		return d, rels
	}
	rr = filepath.ToSlash(rr)
	if rr == given {
		return d, rels
	}
	rd := r.CheckPath(rr, op)
	if rd.Verdict != Allow && rd.Reason != "" {
		rd.Reason = bound(given, 200) + " resolves to " + rr + ": " + rd.Reason
	}
	return stronger(d, rd), append(rels, rr)
}

// relTo makes an absolute path inside projectDir relative to it; other
// paths are returned as they are.
func relTo(p, projectDir string) string {
	if p == "" || !filepath.IsAbs(p) || projectDir == "" {
		return p
	}
	if r, err := filepath.Rel(projectDir, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		return filepath.ToSlash(r)
	}
	return p
}

// resolveLinks resolves the symbolic links in abs: in the whole path when
// it exists, else in its longest existing parent (a file about to be
// written below a linked directory).
func resolveLinks(abs string) (string, bool) {
	dir, rest := filepath.Clean(abs), ""
	for range 256 {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
	return "", false
}

// stronger is the decision with the stronger verdict, a on a tie.
func stronger(a, b Decision) Decision {
	if rank(b.Verdict) > rank(a.Verdict) {
		return b
	}
	return a
}

// hookGrep decides a Grep call over dir: forbidden when dir is a protected
// file, asked about when it is a directory holding files a no_read glob
// protects that the call's glob may match.
func (r *Rules) hookGrep(dir, glob, projectDir string) Decision {
	d, rels := r.hookPaths(dir, projectDir, Read)
	if d.Verdict != Allow {
		return d
	}
	for _, rel := range rels {
		rel = path.Clean(rel)
		for _, e := range r.paths {
			if e.Op != Read || !dirHolds(rel, false, e.Pattern) || !grepGlobMayMatch(glob, rel, e.Pattern) {
				continue
			}
			return Decision{Verdict: Ask, Guardrail: e.Guardrail, Statement: e.Statement, Matched: e.Pattern, Command: "Grep " + rel,
				Reason: fmt.Sprintf("Grep searches everything below %s, which holds files that must not be read (%q)", rel, e.Pattern)}
		}
	}
	return Decision{Verdict: Allow}
}

// grepGlobMayMatch reports whether Grep's glob filter (ripgrep's: a glob
// without / matches the file name) may let it search a file the protected
// glob matches; an empty filter searches everything.
func grepGlobMayMatch(glob, dir, protected string) bool {
	if last := path.Base(protected); glob == "" || last == "**" || last == "*" {
		return true // any file name
	}
	sample := sampleOf(protected)
	rel := strings.TrimPrefix(sample, dir+"/")
	for _, g := range []string{glob, "**/" + glob} {
		for _, s := range []string{rel, path.Base(sample)} {
			if ok, err := doublestar.Match(g, s); err != nil || ok {
				return true
			}
		}
	}
	return false
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
