package enforce

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// CallKind is what a tool call does, in Bridle's terms.
type CallKind string

// The kinds of call a hook decides.
const (
	Shell  CallKind = "shell"  // runs Command
	ReadOp CallKind = "read"   // reads Paths
	Edit   CallKind = "write"  // writes Paths
	Search CallKind = "search" // searches the file contents below Paths[0] (Glob filters names)
	List   CallKind = "list"   // lists names below Paths[0]
	Other  CallKind = "other"  // a tool Bridle does not check
)

// Call is one tool call a harness's pre-tool hook asks about, read from the
// harness's own input by its Protocol.
type Call struct {
	Kind    CallKind
	Tool    string // the harness's tool name, for messages
	Command string
	Paths   []string
	Glob    string
	Cwd     string // the session's working directory, when the harness says
}

// Decide decides one call: Shell by CheckCommand, reads and writes by
// CheckPath on each path made relative to projectDir, with its links
// resolved (a link to .env is .env; a path resolving outside the project is
// asked about), Search as a read of its directory, asked about when that
// directory holds a no_read file its glob may match, and List, which names
// files only, forbidden only for a path that is itself protected. Relative
// paths are taken from Cwd, else projectDir. Other calls are allowed: the
// harness's own rules still apply to them. Decide reads the file system
// only to resolve links.
func (r *Rules) Decide(c Call, projectDir string) Decision {
	abs := func(p string) string {
		if p == "" || strings.HasPrefix(p, "/") || c.Cwd == "" || c.Cwd == projectDir {
			return p
		}
		return strings.TrimSuffix(c.Cwd, "/") + "/" + p
	}
	switch c.Kind {
	case Shell:
		// Links in the command's words are resolved from the project, as
		// the file tools' paths are.
		return r.CheckCommandWith(c.Command, CheckOptions{Resolve: LinkResolver(projectDir)})
	case ReadOp, Edit:
		op := Read
		if c.Kind == Edit {
			op = Write
		}
		d := Decision{Verdict: Allow}
		for _, p := range c.Paths {
			d = stronger(d, r.hookPath(abs(p), projectDir, op))
		}
		return d
	case Search:
		return r.hookGrep(searchDir(abs(first(c.Paths)), c.Cwd, projectDir), c.Glob, projectDir)
	case List:
		if d := r.hookPath(searchDir(abs(first(c.Paths)), c.Cwd, projectDir), projectDir, Read); d.Verdict == Forbid {
			return d
		}
	}
	return Decision{Verdict: Allow}
}

func first(ps []string) string {
	if len(ps) == 0 {
		return ""
	}
	return ps[0]
}

// Protocol is one harness's pre-tool hook protocol: how bridle hook AGENT
// reads the call from stdin and answers. The agents registry names each
// harness's protocol (agents.Harness.Hook); a test proves every name it
// uses is one of Protocols.
type Protocol interface {
	// Parse reads the hook's stdin (at most MaxHookInput bytes).
	Parse(data []byte) (Call, error)
	// Output is what the hook prints for d and the exit code it ends with;
	// an allow prints what leaves the call to the harness's own rules.
	Output(d Decision) Reply
}

// Reply is what a hook prints and the code it exits with.
type Reply struct {
	Stdout, Stderr []byte
	Exit           int
}

// protocols is the registry of hook protocols, by name.
var protocols = map[string]Protocol{
	"claude":   claudeProtocol{},
	"gemini":   geminiProtocol{},
	"opencode": opencodeProtocol{},
	"copilot":  copilotProtocol{},
	"qwen":     qwenProtocol{},
	"cursor":   cursorProtocol{},
	"windsurf": windsurfProtocol{},
	"crush":    crushProtocol{},
	"droid":    droidProtocol{},
	"cline":    clineProtocol{},
	"augment":  augmentProtocol{},
	"amp":      ampProtocol{},
}

// ProtocolFor returns the hook protocol of that name.
func ProtocolFor(name string) (Protocol, bool) {
	p, ok := protocols[name]
	return p, ok
}

// Protocols lists the hook protocols' names, sorted.
func Protocols() []string {
	out := make([]string, 0, len(protocols))
	for n := range protocols {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// maxReason bounds the reason a hook prints (Claude Code shows 2,000
// characters).
const maxReason = 2000

func reasonOf(d Decision) string {
	reason := d.String()
	if len(reason) > maxReason {
		reason = strings.ToValidUTF8(reason[:maxReason-3], "") + "..."
	}
	return reason
}

// decodeHook decodes a hook's stdin into v, bounded.
func decodeHook(data []byte, v any) error {
	if len(data) > MaxHookInput {
		return fmt.Errorf("hook input: larger than %d bytes", MaxHookInput)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("hook input: %w", err)
	}
	return nil
}

// args decodes a tool's arguments, which some harnesses send as an object
// and some as a JSON string holding one.
func args(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		raw = json.RawMessage(s)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("the tool's arguments: %w", err)
	}
	return nil
}

// toolArgs are the argument names the harnesses use for what Bridle
// checks; each protocol reads the ones its tools send.
type toolArgs struct {
	Command      string   `json:"command"`
	FilePath     string   `json:"file_path"`
	FilePathCC   string   `json:"filePath"`
	NotebookPath string   `json:"notebook_path"`
	Path         string   `json:"path"`
	DirPath      string   `json:"dir_path"`
	Paths        []string `json:"paths"`
	Include      any      `json:"include"`
	Glob         string   `json:"glob"`
	Pattern      string   `json:"pattern"`
}

// claudeProtocol is Claude Code's PreToolUse hook: tool_name and
// tool_input in, hookSpecificOutput with permissionDecision deny or ask
// out (nothing for allow, which defers to Claude Code's own rules).
type claudeProtocol struct{}

func (claudeProtocol) Parse(data []byte) (Call, error) {
	in, err := ParseHookInput(data)
	if err != nil {
		return Call{}, err
	}
	return in.call()
}

func (in HookInput) call() (Call, error) {
	var a toolArgs
	if err := args(in.ToolInput, &a); err != nil {
		return Call{}, err
	}
	c := Call{Tool: in.ToolName, Kind: Other, Cwd: in.Cwd}
	switch in.ToolName {
	case "Bash":
		c.Kind, c.Command = Shell, a.Command
	case "Read":
		c.Kind, c.Paths = ReadOp, []string{a.FilePath}
	case "Edit", "Write", "MultiEdit":
		c.Kind, c.Paths = Edit, []string{a.FilePath}
	case "NotebookEdit":
		c.Kind, c.Paths = Edit, []string{a.NotebookPath}
	case "Grep":
		c.Kind, c.Paths, c.Glob = Search, []string{a.Path}, a.Glob
	case "Glob":
		c.Kind, c.Paths = List, []string{a.Path}
	}
	return c, nil
}

func (claudeProtocol) Output(d Decision) Reply { return Reply{Stdout: ClaudeHookOutput(d)} }

// geminiProtocol is Gemini CLI's BeforeTool hook (verified with 0.61.0):
// tool_name and tool_input in; {"decision":"deny","reason":…} out, exit 0.
// Gemini's "ask" hung a headless session, so a verdict to ask is answered
// deny, with the reason saying a human must approve; the policy file
// Bridle writes asks through Gemini's own ask_user for the commands it
// can express.
type geminiProtocol struct{}

type geminiInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Cwd           string          `json:"cwd"`
}

func (geminiProtocol) Parse(data []byte) (Call, error) {
	var in geminiInput
	if err := decodeHook(data, &in); err != nil {
		return Call{}, err
	}
	var a toolArgs
	if err := args(in.ToolInput, &a); err != nil {
		return Call{}, err
	}
	c := Call{Tool: in.ToolName, Kind: Other, Cwd: in.Cwd}
	switch in.ToolName {
	case "run_shell_command":
		c.Kind, c.Command = Shell, a.Command
	case "read_file":
		c.Kind, c.Paths = ReadOp, []string{a.FilePath}
	case "read_many_files":
		c.Kind, c.Paths = ReadOp, stringsOf(a.Include)
		if len(c.Paths) == 0 {
			c.Kind = Other
		}
	case "write_file", "replace", "edit":
		c.Kind, c.Paths = Edit, []string{a.FilePath}
	case "grep_search", "search_file_content", "grep":
		c.Kind, c.Paths, c.Glob = Search, []string{firstOf(a.DirPath, a.Path)}, a.Glob
	case "glob", "list_directory":
		c.Kind, c.Paths = List, []string{firstOf(a.DirPath, a.Path)}
	}
	return c, nil
}

func (geminiProtocol) Output(d Decision) Reply {
	if d.Verdict == Allow {
		return Reply{}
	}
	reason := reasonOf(d)
	if d.Verdict == Ask {
		reason = "A human must approve this first (ask them; they can run it themselves). " + reason
	}
	out, _ := json.Marshal(map[string]string{"decision": "deny", "reason": reason})
	return Reply{Stdout: append(out, '\n')}
}

// opencodeProtocol is what Bridle's OpenCode plugin (.opencode/plugins/
// bridle.js, tool.execute.before) sends: the tool, its args and the
// session's directory; {"decision":"deny","reason":…} out, which the
// plugin throws as the tool's error. OpenCode's plugins cannot ask, so a
// verdict to ask is answered deny, as for Gemini; the permission block
// Bridle writes asks through OpenCode's own "ask" for commands.
type opencodeProtocol struct{}

type opencodeInput struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
	Cwd  string          `json:"cwd"`
}

func (opencodeProtocol) Parse(data []byte) (Call, error) {
	var in opencodeInput
	if err := decodeHook(data, &in); err != nil {
		return Call{}, err
	}
	var a toolArgs
	if err := args(in.Args, &a); err != nil {
		return Call{}, err
	}
	c := Call{Tool: in.Tool, Kind: Other, Cwd: in.Cwd}
	switch in.Tool {
	case "bash":
		c.Kind, c.Command = Shell, a.Command
	case "read":
		c.Kind, c.Paths = ReadOp, []string{a.FilePathCC}
	case "write", "edit", "patch", "multiedit":
		c.Kind, c.Paths = Edit, []string{a.FilePathCC}
		if a.FilePathCC == "" {
			c.Kind = Other // patch names its files inside the patch text
		}
	case "grep":
		c.Kind, c.Paths, c.Glob = Search, []string{a.Path}, stringOf(a.Include)
	case "glob", "list":
		c.Kind, c.Paths = List, []string{a.Path}
	}
	return c, nil
}

func (opencodeProtocol) Output(d Decision) Reply { return geminiProtocol{}.Output(d) }

// copilotProtocol is GitHub Copilot CLI's preToolUse hook (camelCase
// dialect, verified with 1.0.102): toolName and toolArgs in;
// {"permissionDecision":"deny"|"ask","permissionDecisionReason":…} out,
// exit 0. Copilot asks the person for "ask" and denies it when it cannot
// (copilot -p).
type copilotProtocol struct{}

type copilotInput struct {
	ToolName string          `json:"toolName"`
	ToolArgs json.RawMessage `json:"toolArgs"`
	Cwd      string          `json:"cwd"`
}

func (copilotProtocol) Parse(data []byte) (Call, error) {
	var in copilotInput
	if err := decodeHook(data, &in); err != nil {
		return Call{}, err
	}
	var a toolArgs
	if err := args(in.ToolArgs, &a); err != nil {
		return Call{}, err
	}
	c := Call{Tool: in.ToolName, Kind: Other, Cwd: in.Cwd}
	switch in.ToolName {
	case "bash", "powershell":
		c.Kind, c.Command = Shell, a.Command
	case "view":
		c.Kind, c.Paths = ReadOp, []string{a.Path}
	case "create", "edit":
		c.Kind, c.Paths = Edit, []string{a.Path}
	case "grep":
		c.Kind, c.Paths, c.Glob = Search, []string{first(a.Paths)}, a.Glob
	case "glob":
		c.Kind, c.Paths = List, []string{first(a.Paths)}
	}
	return c, nil
}

func (copilotProtocol) Output(d Decision) Reply {
	decision := ""
	switch d.Verdict {
	case Forbid:
		decision = "deny"
	case Ask:
		decision = "ask"
	default:
		return Reply{}
	}
	out, _ := json.Marshal(map[string]string{"permissionDecision": decision, "permissionDecisionReason": reasonOf(d)})
	return Reply{Stdout: append(out, '\n')}
}

// qwenProtocol is Qwen Code's PreToolUse hook (verified with 0.24.4):
// Gemini CLI's tool names in Claude Code's input, and Claude Code's
// hookSpecificOutput out (Qwen denies an "ask" it cannot put to a person).
type qwenProtocol struct{}

func (qwenProtocol) Parse(data []byte) (Call, error) {
	c, err := geminiProtocol{}.Parse(data)
	if err != nil {
		return c, err
	}
	if c.Tool == "edit" {
		c.Kind = Edit
	}
	return c, nil
}

func (qwenProtocol) Output(d Decision) Reply { return Reply{Stdout: ClaudeHookOutput(d)} }

// cursorProtocol is Cursor's hooks (.cursor/hooks.json), from its
// documentation (no Cursor runs here): beforeShellExecution (command,
// cwd), beforeReadFile (file_path) and the generic preToolUse (tool_name,
// tool_input) in; {"permission":"allow"|"deny"|"ask", with messages for
// the person and the agent} out, always, since Bridle's hooks are declared
// failClosed and an empty answer would block.
type cursorProtocol struct{}

type cursorInput struct {
	HookEventName  string          `json:"hook_event_name"`
	Command        string          `json:"command"`
	Cwd            string          `json:"cwd"`
	FilePath       string          `json:"file_path"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	WorkspaceRoots []string        `json:"workspace_roots"`
}

func (cursorProtocol) Parse(data []byte) (Call, error) {
	var in cursorInput
	if err := decodeHook(data, &in); err != nil {
		return Call{}, err
	}
	c := Call{Tool: firstOf(in.ToolName, in.HookEventName), Kind: Other, Cwd: firstOf(in.Cwd, first(in.WorkspaceRoots))}
	switch in.HookEventName {
	case "beforeShellExecution":
		c.Kind, c.Command = Shell, in.Command
		return c, nil
	case "beforeReadFile":
		c.Kind, c.Paths = ReadOp, []string{in.FilePath}
		return c, nil
	case "preToolUse":
	default:
		return c, nil
	}
	var a toolArgs
	if err := args(in.ToolInput, &a); err != nil {
		return Call{}, err
	}
	file := firstOf(a.FilePath, a.Path, a.FilePathCC)
	switch in.ToolName {
	case "Shell", "Bash", "run_terminal_cmd":
		c.Kind, c.Command = Shell, a.Command
	case "Read", "read_file":
		c.Kind, c.Paths = ReadOp, []string{file}
	case "Write", "Edit", "StrReplace", "MultiEdit", "Delete", "edit_file":
		c.Kind, c.Paths = Edit, []string{file}
	case "Grep", "grep_search":
		c.Kind, c.Paths, c.Glob = Search, []string{a.Path}, a.Glob
	case "Glob", "LS", "list_dir":
		c.Kind, c.Paths = List, []string{a.Path}
	}
	return c, nil
}

func (cursorProtocol) Output(d Decision) Reply {
	permission, msg := "allow", ""
	switch d.Verdict {
	case Forbid:
		permission, msg = "deny", reasonOf(d)
	case Ask:
		permission, msg = "ask", reasonOf(d)
	}
	out := map[string]string{"permission": permission}
	if msg != "" {
		// Both spellings: Cursor's documentation has used each.
		out["user_message"], out["agent_message"], out["userMessage"], out["agentMessage"] = msg, msg, msg, msg
	}
	b, _ := json.Marshal(out)
	return Reply{Stdout: append(b, '\n')}
}

// windsurfProtocol is Windsurf's Cascade hooks (.windsurf/hooks.json), from
// its documentation (no Windsurf runs here): agent_action_name and
// tool_info in; a block is exit code 2 with the reason on stderr. Windsurf
// cannot ask, so a verdict to ask blocks, saying a human must approve.
type windsurfProtocol struct{}

type windsurfInput struct {
	Action   string `json:"agent_action_name"`
	ToolInfo struct {
		CommandLine string `json:"command_line"`
		Cwd         string `json:"cwd"`
		FilePath    string `json:"file_path"`
	} `json:"tool_info"`
}

func (windsurfProtocol) Parse(data []byte) (Call, error) {
	var in windsurfInput
	if err := decodeHook(data, &in); err != nil {
		return Call{}, err
	}
	c := Call{Tool: in.Action, Kind: Other, Cwd: in.ToolInfo.Cwd}
	switch in.Action {
	case "pre_run_command":
		c.Kind, c.Command = Shell, in.ToolInfo.CommandLine
	case "pre_read_code":
		c.Kind, c.Paths = ReadOp, []string{in.ToolInfo.FilePath}
	case "pre_write_code":
		c.Kind, c.Paths = Edit, []string{in.ToolInfo.FilePath}
	}
	return c, nil
}

func (windsurfProtocol) Output(d Decision) Reply {
	switch d.Verdict {
	case Forbid:
		return Reply{Stderr: []byte(reasonOf(d) + "\n"), Exit: 2}
	case Ask:
		return Reply{Stderr: []byte("A human must approve this first (ask them; they can run it themselves). " + reasonOf(d) + "\n"), Exit: 2}
	}
	return Reply{}
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// stringsOf is a string or a list of strings as a list; anything else is
// none.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		if x != "" {
			return []string{x}
		}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func stringOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// crushProtocol is Crush's PreToolUse hook (charmbracelet/crush
// internal/hooks, docs/hooks/README.md): event, cwd, tool_name and
// tool_input in, with Crush's lower-case tools (bash, view, write, edit,
// multiedit, download, grep, glob, ls); Crush's own envelope
// {"decision":"deny","reason":…} out, exit 0. Crush has no "ask" (an
// undecided hook falls through to its permission prompt, which --yolo
// skips), so a verdict to ask is answered deny, saying a human must
// approve, as for Gemini.
type crushProtocol struct{}

func (crushProtocol) Parse(data []byte) (Call, error) {
	var in geminiInput // event, tool_name, tool_input, cwd: the same keys
	if err := decodeHook(data, &in); err != nil {
		return Call{}, err
	}
	var a struct {
		toolArgs
		Include string `json:"include"`
	}
	if err := args(in.ToolInput, &a); err != nil {
		return Call{}, err
	}
	c := Call{Tool: in.ToolName, Kind: Other, Cwd: in.Cwd}
	switch in.ToolName {
	case "bash":
		c.Kind, c.Command = Shell, a.Command
	case "view":
		c.Kind, c.Paths = ReadOp, []string{a.FilePath}
	case "write", "edit", "multiedit", "download":
		c.Kind, c.Paths = Edit, []string{a.FilePath}
	case "grep":
		c.Kind, c.Paths, c.Glob = Search, []string{a.Path}, a.Include
	case "glob", "ls":
		c.Kind, c.Paths = List, []string{a.Path}
	}
	return c, nil
}

func (crushProtocol) Output(d Decision) Reply { return geminiProtocol{}.Output(d) }

// droidProtocol is Factory Droid's PreToolUse hook, Claude Code's own
// contract (docs.factory.ai hooks reference, read in Factory-AI/factory
// docs/reference/hooks-reference.mdx, and Factory's own hook
// .factory/hooks/guard_execute.py): hook_event_name, cwd, tool_name and
// tool_input in; hookSpecificOutput with permissionDecision deny or ask out
// ("ask" asks the person in Droid's UI), nothing for allow. Droid's tools
// are Execute (command), Read (file_path), Create, Edit and MultiEdit
// (file_path); its documentation's older names (Bash, Write) are read too.
// ApplyPatch names its files inside the patch, so it is left to Droid's
// own rules, as OpenCode's patch is. Grep's, Glob's and LS's argument names
// are not documented: path (or directory_path, folder) is read, and a call
// naming none is checked as one over the project root.
type droidProtocol struct{}

func (droidProtocol) Parse(data []byte) (Call, error) {
	in, err := ParseHookInput(data)
	if err != nil {
		return Call{}, err
	}
	var a struct {
		toolArgs
		DirectoryPath string `json:"directory_path"`
		Folder        string `json:"folder"`
		GlobPattern   string `json:"glob_pattern"`
	}
	if err := args(in.ToolInput, &a); err != nil {
		return Call{}, err
	}
	dir := firstOf(a.Path, a.DirectoryPath, a.Folder, a.DirPath)
	c := Call{Tool: in.ToolName, Kind: Other, Cwd: in.Cwd}
	switch in.ToolName {
	case "Execute", "Bash":
		c.Kind, c.Command = Shell, a.Command
	case "Read":
		c.Kind, c.Paths = ReadOp, []string{a.FilePath}
	case "Create", "Edit", "MultiEdit", "Write":
		c.Kind, c.Paths = Edit, []string{a.FilePath}
	case "Grep":
		c.Kind, c.Paths, c.Glob = Search, []string{dir}, firstOf(a.Glob, a.GlobPattern)
	case "Glob", "LS":
		c.Kind, c.Paths = List, []string{dir}
	}
	return c, nil
}

func (droidProtocol) Output(d Decision) Reply { return Reply{Stdout: ClaudeHookOutput(d)} }

// clineProtocol is Cline's PreToolUse hook file (.clinerules/hooks/
// PreToolUse), read in cline/cline at 21cb8d25: sdk/packages/core/src/
// hooks/hook-file-hooks.ts sends, for each tool call, workspaceRoots and
// both tool_call {name, input} (the CLI's tools) and the legacy preToolUse
// {toolName, parameters} (parameters as strings); the answer is
// {"cancel": true, "errorMessage": …}, which stops the task with that
// reason (the runtime's ControlledStopError: a file hook cannot skip one
// call), or {} to go on. Cline's hooks cannot ask, so a verdict to ask is a
// cancel whose reason says a human must approve. Its tools: run_commands
// (commands, a list of strings or of {command, args}, or one of them),
// read_files (files or paths: paths or {path}), editor (path),
// apply_patch (input, whose "*** Add/Update/Delete File:" and "*** Move
// to:" lines name the files), search_codebase (queries, over the
// workspace); the VS Code extension's execute_command, read_file,
// write_to_file, replace_in_file, search_files, list_files and
// list_code_definition_names.
type clineProtocol struct{}

type clineInput struct {
	ToolCall struct {
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool_call"`
	PreToolUse struct {
		ToolName   string          `json:"toolName"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"preToolUse"`
	WorkspaceRoots []string `json:"workspaceRoots"`
}

func (clineProtocol) Parse(data []byte) (Call, error) {
	var in clineInput
	if err := decodeHook(data, &in); err != nil {
		return Call{}, err
	}
	name, raw := in.ToolCall.Name, in.ToolCall.Input
	if name == "" {
		name, raw = in.PreToolUse.ToolName, in.PreToolUse.Parameters
	}
	c := Call{Tool: name, Kind: Other, Cwd: first(in.WorkspaceRoots)}
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return Call{}, fmt.Errorf("hook input: the tool's arguments: %w", err)
		}
	}
	obj, _ := v.(map[string]any)
	str := func(k string) string { return stringOf(obj[k]) }
	switch name {
	case "run_commands":
		c.Kind, c.Command = Shell, clineCommands(v)
	case "execute_command":
		c.Kind, c.Command = Shell, str("command")
	case "read_files":
		c.Kind, c.Paths = ReadOp, clinePaths(v)
	case "read_file":
		c.Kind, c.Paths = ReadOp, []string{str("path")}
	case "editor", "write_to_file", "replace_in_file":
		c.Kind, c.Paths = Edit, []string{str("path")}
	case "apply_patch":
		patch := stringOf(v)
		if patch == "" {
			patch = str("input")
		}
		c.Kind, c.Paths = Edit, patchFiles(patch)
		if len(c.Paths) == 0 {
			c.Kind = Other // nothing the patch would touch
		}
	case "search_codebase":
		c.Kind, c.Paths = Search, []string{""}
	case "search_files":
		c.Kind, c.Paths, c.Glob = Search, []string{str("path")}, str("file_pattern")
	case "list_files", "list_code_definition_names":
		c.Kind, c.Paths = List, []string{str("path")}
	}
	if c.Kind == Shell && c.Command == "" || c.Kind == ReadOp && len(c.Paths) == 0 {
		c.Kind = Other
	}
	return c, nil
}

// clineCommands is what run_commands would run, one command a line:
// strings as they are, {command, args} as the program and its arguments
// quoted for the shell.
func clineCommands(v any) string {
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"commands", "command", "cmd"} {
			if x, ok := m[k]; ok {
				if _, isObj := x.(map[string]any); isObj || k == "commands" {
					return clineCommands(x)
				}
				if s, ok := x.(string); ok {
					if args, ok := m["args"].([]any); ok && k == "command" {
						return shellWords(s, args)
					}
					return s
				}
			}
		}
		return ""
	}
	var lines []string
	switch x := v.(type) {
	case string:
		return x
	case []any:
		for _, e := range x {
			if s := clineCommands(e); s != "" {
				lines = append(lines, s)
			}
		}
	}
	return strings.Join(lines, "\n")
}

func shellWords(cmd string, args []any) string {
	words := []string{shQuote(cmd)}
	for _, a := range args {
		words = append(words, shQuote(stringOf(a)))
	}
	return strings.Join(words, " ")
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// clinePaths are the files read_files would read, in any of the shapes
// its input schema takes.
func clinePaths(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if x != "" {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range []string{"files", "paths", "file_paths", "path", "file_path", "filePath"} {
				if e, ok := x[k]; ok {
					walk(e)
				}
			}
		}
	}
	walk(v)
	return out
}

// patchFiles are the files an apply_patch payload adds, updates, deletes
// or moves to.
func patchFiles(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSpace(line)
		for _, p := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if rest, ok := strings.CutPrefix(line, p); ok {
				if f := strings.TrimSpace(rest); f != "" {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

func (clineProtocol) Output(d Decision) Reply {
	if d.Verdict == Allow {
		return Reply{Stdout: []byte("{}\n")}
	}
	reason := reasonOf(d)
	if d.Verdict == Ask {
		reason = "A human must approve this first (ask them; they can run it themselves). " + reason
	}
	out, _ := json.Marshal(map[string]any{"cancel": true, "errorMessage": reason})
	return Reply{Stdout: append(out, '\n')}
}

// augmentProtocol is Auggie's PreToolUse hook (read in the bundle of
// @augmentcode/auggie 0.36.0, augment.mjs, and docs.augmentcode.com/cli/
// hooks): hook_event_name, workspace_roots, tool_name, tool_input and
// is_mcp_tool in, with Auggie's tools launch-process and shell (command),
// view, save-file and str-replace-editor (path), remove-files
// (file_paths), grep-search (directory_absolute_path,
// files_include_glob_pattern); Claude Code's hookSpecificOutput out, of
// which Auggie acts on "deny" alone (it stops the call, the reason going to
// the agent). What "ask" does was not found, so a verdict to ask is a deny
// saying a human must approve.
type augmentProtocol struct{}

type augmentInput struct {
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Cwd            string          `json:"cwd"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	IsMCPTool      bool            `json:"is_mcp_tool"`
}

func (augmentProtocol) Parse(data []byte) (Call, error) {
	var in augmentInput
	if err := decodeHook(data, &in); err != nil {
		return Call{}, err
	}
	var a struct {
		Command   string   `json:"command"`
		Args      []string `json:"args"`
		Cwd       string   `json:"cwd"`
		Path      string   `json:"path"`
		FilePaths []string `json:"file_paths"`
		Dir       string   `json:"directory_absolute_path"`
		Include   string   `json:"files_include_glob_pattern"`
	}
	if err := args(in.ToolInput, &a); err != nil {
		return Call{}, err
	}
	c := Call{Tool: in.ToolName, Kind: Other, Cwd: firstOf(in.Cwd, first(in.WorkspaceRoots))}
	if in.IsMCPTool {
		return c, nil // an MCP server's tool of that name is not Auggie's
	}
	switch in.ToolName {
	case "launch-process":
		c.Kind, c.Command = Shell, a.Command
	case "shell":
		c.Kind, c.Command = Shell, a.Command
		if len(a.Args) > 0 {
			words := make([]any, len(a.Args))
			for i, w := range a.Args {
				words[i] = w
			}
			c.Command = shellWords(a.Command, words)
		}
	case "view":
		c.Kind, c.Paths = ReadOp, []string{a.Path}
	case "save-file", "str-replace-editor":
		c.Kind, c.Paths = Edit, []string{a.Path}
	case "remove-files":
		c.Kind, c.Paths = Edit, a.FilePaths
		if len(c.Paths) == 0 {
			c.Kind = Other
		}
	case "grep-search":
		c.Kind, c.Paths, c.Glob = Search, []string{a.Dir}, a.Include
	}
	return c, nil
}

func (augmentProtocol) Output(d Decision) Reply {
	if d.Verdict == Allow {
		return Reply{}
	}
	reason := reasonOf(d)
	if d.Verdict == Ask {
		reason = "A human must approve this first (ask them; they can run it themselves). " + reason
	}
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
	return Reply{Stdout: append(out, '\n')}
}

// EnvProtocol is a Protocol whose harness passes part of the call in the
// hook's environment rather than on stdin: Amp's delegate names the tool
// in AGENT_TOOL_NAME. bridle hook reads it with ParseCall, which hands
// ParseEnv its environment; such a protocol's Parse alone cannot know the
// tool and is an error.
type EnvProtocol interface {
	Protocol
	ParseEnv(data []byte, getenv func(string) string) (Call, error)
}

// ParseCall reads one call with p: through ParseEnv, with getenv, when p
// is an EnvProtocol, else through Parse.
func ParseCall(p Protocol, data []byte, getenv func(string) string) (Call, error) {
	if e, ok := p.(EnvProtocol); ok {
		return e.ParseEnv(data, getenv)
	}
	return p.Parse(data)
}

// UnreadableInput is the decision on a hook input p could not read: asked
// about, with the reason, except for a protocol whose ask carries no
// reason to the person (Amp's: exit 1 is all it reads), where it is a
// refusal that says why.
func UnreadableInput(p Protocol, err error) Decision {
	reason := "Bridle could not read the hook's input (" + err.Error() + ")"
	if _, ok := p.(interface{ rejectsUnreadable() }); ok {
		return Decision{Verdict: Forbid, Reason: reason}
	}
	return Decision{Verdict: Ask, Reason: reason}
}

// ampProtocol is Amp's amp.permissions "delegate" program (bridle hook
// amp, run by the script .amp/bridle-hook Bridle writes). The contract
// was read in the pinned @ampcode/cli 0.0.1790142911-g7618fb's bundled
// JavaScript (bin/amp.exe, its sources stored as UTF-16) and pinned by
// TestRealAmpDelegate: the program is spawned with no arguments and env
// AGENT=amp, AGENT_TOOL_NAME (the tool), AMP_THREAD_ID and
// AGENT_TOOL_USE_ID; it gets the tool's arguments as JSON on stdin and has
// 10 seconds; exit 0 allows, 1 asks (the person sees no reason), any other
// code rejects with stderr as the reason. The tools and their argument
// keys, from the tool specs in the same bundle: Bash {cmd, cwd} (Amp
// applies a rule for Bash to shell_command and async_shell_command too,
// renaming cmd/cwd to command/workdir), shell_command and
// async_shell_command {command, workdir, timeout_ms}; Read {path,
// read_range} (a file or a directory) and read_file {path}; edit_file
// {path, old_str, new_str, replace_all}; create_file {path, content};
// apply_patch {patchText} ("*** Add/Update/Delete File:" lines); Grep
// {pattern, path, glob, caseSensitive, literal}; glob {filePattern,
// limit, offset} (over the workspace). Paths are absolute. Input it cannot
// read is refused (UnreadableInput), since an ask would not say why.
type ampProtocol struct{}

func (ampProtocol) rejectsUnreadable() {}

func (ampProtocol) Parse([]byte) (Call, error) {
	return Call{}, fmt.Errorf("hook input: Amp names the tool in AGENT_TOOL_NAME, which was not read")
}

func (ampProtocol) ParseEnv(data []byte, getenv func(string) string) (Call, error) {
	var obj map[string]any
	if err := decodeHook(data, &obj); err != nil {
		return Call{}, err
	}
	if obj == nil {
		return Call{}, fmt.Errorf("hook input: the tool's arguments are not an object")
	}
	name := getenv("AGENT_TOOL_NAME")
	if name == "" {
		return Call{}, fmt.Errorf("hook input: AGENT_TOOL_NAME (the tool's name) is not set")
	}
	str := func(k string) string { return stringOf(obj[k]) }
	c := Call{Tool: name, Kind: Other}
	switch name {
	case "Bash":
		c.Kind, c.Command = Shell, str("cmd")
	case "shell_command", "async_shell_command":
		c.Kind, c.Command = Shell, str("command")
	case "Read", "read_file":
		c.Kind, c.Paths = ReadOp, []string{str("path")}
	case "edit_file", "create_file":
		c.Kind, c.Paths = Edit, []string{str("path")}
	case "apply_patch":
		c.Kind, c.Paths = Edit, patchFiles(str("patchText"))
		if len(c.Paths) == 0 {
			c.Kind = Other // nothing the patch would touch
		}
	case "Grep":
		c.Kind, c.Paths, c.Glob = Search, []string{str("path")}, str("glob")
	case "glob":
		c.Kind, c.Paths, c.Glob = List, []string{""}, str("filePattern")
	}
	if c.Kind == Shell && c.Command == "" || (c.Kind == ReadOp || c.Kind == Edit) && first(c.Paths) == "" {
		return Call{}, fmt.Errorf("hook input: %s without its %s", name, map[CallKind]string{Shell: "command", ReadOp: "path", Edit: "path"}[c.Kind])
	}
	return c, nil
}

func (ampProtocol) Output(d Decision) Reply {
	switch d.Verdict {
	case Forbid:
		return Reply{Stderr: []byte(reasonOf(d) + "\n"), Exit: 2}
	case Ask:
		return Reply{Stderr: []byte(reasonOf(d) + "\n"), Exit: 1}
	}
	return Reply{}
}
