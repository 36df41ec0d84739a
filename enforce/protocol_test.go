package enforce

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProtocols: each harness's hook input, as the real harness sends it
// (captured from Gemini CLI 0.61.0, Qwen Code 0.24.4, Copilot CLI 1.0.102
// and Bridle's OpenCode plugin; Cursor's, Windsurf's, Crush's and Factory
// Droid's from their documentation, Crush's checked against its source,
// Droid's against Factory's own hook), is read as the same call and decided the same way, and
// the answer is in the harness's own format.
func TestProtocols(t *testing.T) {
	r := load(t, reviewDoc, "claude")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, tc := range []struct {
		proto, input string
		verdict      Verdict
	}{
		{"claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"},"cwd":` + q(dir) + `}`, Forbid},
		{"claude", `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":` + q(dir+"/.env") + `},"cwd":` + q(dir) + `}`, Forbid},
		{"gemini", `{"session_id":"8dd3","cwd":` + q(dir) + `,"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"git push --force origin","description":"push"}}`, Forbid},
		{"gemini", `{"cwd":` + q(dir) + `,"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":".env"}}`, Forbid},
		{"gemini", `{"cwd":` + q(dir) + `,"hook_event_name":"BeforeTool","tool_name":"read_many_files","tool_input":{"include":["README.md",".env"]}}`, Forbid},
		{"gemini", `{"cwd":` + q(dir) + `,"hook_event_name":"BeforeTool","tool_name":"replace","tool_input":{"file_path":"migrations/001.sql"}}`, Forbid},
		{"gemini", `{"cwd":` + q(dir) + `,"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"git push origin"}}`, Ask},
		{"gemini", `{"cwd":` + q(dir) + `,"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"go test ./..."}}`, Allow},
		{"qwen", `{"cwd":` + q(dir) + `,"hook_event_name":"PreToolUse","permission_mode":"yolo","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /","is_background":false}}`, Forbid},
		{"qwen", `{"cwd":` + q(dir) + `,"hook_event_name":"PreToolUse","tool_name":"edit","tool_input":{"file_path":` + q(dir+"/migrations/1.sql") + `,"old_string":"a","new_string":"b"}}`, Forbid},
		{"opencode", `{"hook_event_name":"tool.execute.before","tool":"bash","sessionID":"ses_1","callID":"call_0","args":{"command":"curl -s example.com"},"cwd":` + q(dir) + `}`, Forbid},
		{"opencode", `{"tool":"read","args":{"filePath":` + q(dir+"/.env") + `},"cwd":` + q(dir) + `}`, Forbid},
		{"opencode", `{"tool":"write","args":{"filePath":` + q(dir+"/src/a.go") + `,"content":"x"},"cwd":` + q(dir) + `}`, Allow},
		{"copilot", `{"sessionId":"2e12","timestamp":1796163282196,"cwd":` + q(dir) + `,"toolName":"bash","toolArgs":{"command":"git push -f","description":"x"}}`, Forbid},
		{"copilot", `{"cwd":` + q(dir) + `,"toolName":"view","toolArgs":"{\"path\":\".env\"}"}`, Forbid},
		{"copilot", `{"cwd":` + q(dir) + `,"toolName":"create","toolArgs":{"path":"migrations/2.sql","file_text":"x"}}`, Forbid},
		{"cursor", `{"hook_event_name":"beforeShellExecution","command":"git push --force","cwd":` + q(dir) + `,"workspace_roots":[` + q(dir) + `]}`, Forbid},
		{"cursor", `{"hook_event_name":"beforeReadFile","file_path":` + q(dir+"/.env") + `,"content":"x","workspace_roots":[` + q(dir) + `]}`, Forbid},
		{"cursor", `{"hook_event_name":"preToolUse","tool_name":"Write","tool_input":{"file_path":"migrations/3.sql"},"workspace_roots":[` + q(dir) + `]}`, Forbid},
		{"cursor", `{"hook_event_name":"beforeMCPExecution","tool_name":"x","tool_input":"{}"}`, Allow},
		{"windsurf", `{"agent_action_name":"pre_run_command","trajectory_id":"t","tool_info":{"command_line":"rm -rf build","cwd":` + q(dir) + `}}`, Forbid},
		{"windsurf", `{"agent_action_name":"pre_read_code","tool_info":{"file_path":` + q(dir+"/.env") + `}}`, Forbid},
		{"windsurf", `{"agent_action_name":"pre_run_command","tool_info":{"command_line":"git push","cwd":` + q(dir) + `}}`, Ask},
		{"crush", `{"event":"PreToolUse","session_id":"313909e","cwd":` + q(dir) + `,"tool_name":"bash","tool_input":{"command":"git push --force","description":"push"}}`, Forbid},
		{"crush", `{"event":"PreToolUse","cwd":` + q(dir) + `,"tool_name":"view","tool_input":{"file_path":".env"}}`, Forbid},
		{"crush", `{"event":"PreToolUse","cwd":` + q(dir) + `,"tool_name":"multiedit","tool_input":{"file_path":` + q(dir+"/migrations/4.sql") + `,"edits":[]}}`, Forbid},
		{"crush", `{"event":"PreToolUse","cwd":` + q(dir) + `,"tool_name":"bash","tool_input":{"command":"git push origin"}}`, Ask},
		{"crush", `{"event":"PreToolUse","cwd":` + q(dir) + `,"tool_name":"edit","tool_input":{"file_path":"src/a.go"}}`, Allow},
		{"droid", `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":` + q(dir) + `,"permission_mode":"auto-high","hook_event_name":"PreToolUse","tool_name":"Execute","tool_input":{"command":"git push --force"}}`, Forbid},
		{"droid", `{"sessionId":"abc123","cwd":` + q(dir) + `,"hookEventName":"PreToolUse","tool_name":"Read","tool_input":{"file_path":` + q(dir+"/.env") + `}}`, Forbid},
		{"droid", `{"hook_event_name":"PreToolUse","cwd":` + q(dir) + `,"tool_name":"Create","tool_input":{"file_path":"migrations/5.sql","content":"x"}}`, Forbid},
		{"droid", `{"hook_event_name":"PreToolUse","cwd":` + q(dir) + `,"tool_name":"Execute","tool_input":{"command":"git push origin"}}`, Ask},
		{"droid", `{"hook_event_name":"PreToolUse","cwd":` + q(dir) + `,"tool_name":"Edit","tool_input":{"file_path":"src/a.go","old_str":"a","new_str":"b"}}`, Allow},
		{"cline", `{"clineVersion":"3.0.65","hookName":"tool_call","timestamp":"2026-12-04T18:00:00Z","taskId":"t1","workspaceRoots":[` + q(dir) + `],"userId":"u","iteration":1,"tool_call":{"id":"c1","name":"run_commands","input":{"commands":["go test ./...","git push --force"]}},"preToolUse":{"toolName":"run_commands","parameters":{"commands":"[\"go test ./...\",\"git push --force\"]"}}}`, Forbid},
		{"cline", `{"hookName":"tool_call","workspaceRoots":[` + q(dir) + `],"tool_call":{"name":"run_commands","input":{"commands":[{"command":"git","args":["push","--force"]}]}}}`, Forbid},
		{"cline", `{"hookName":"tool_call","workspaceRoots":[` + q(dir) + `],"tool_call":{"name":"read_files","input":{"files":[{"path":"README.md"},{"path":` + q(dir+"/.env") + `,"start_line":1}]}}}`, Forbid},
		{"cline", `{"hookName":"tool_call","workspaceRoots":[` + q(dir) + `],"tool_call":{"name":"editor","input":{"path":"migrations/6.sql","new_text":"x"}}}`, Forbid},
		{"cline", `{"hookName":"tool_call","workspaceRoots":[` + q(dir) + `],"tool_call":{"name":"apply_patch","input":{"input":"*** Begin Patch\n*** Update File: src/a.go\n@@\n-a\n+b\n*** Add File: migrations/7.sql\n+x\n*** End Patch"}}}`, Forbid},
		{"cline", `{"hookName":"PreToolUse","workspaceRoots":[` + q(dir) + `],"preToolUse":{"toolName":"execute_command","parameters":{"command":"git push origin","requires_approval":"false"}}}`, Ask},
		{"cline", `{"hookName":"PreToolUse","workspaceRoots":[` + q(dir) + `],"preToolUse":{"toolName":"read_file","parameters":{"path":".env"}}}`, Forbid},
		{"cline", `{"hookName":"tool_call","workspaceRoots":[` + q(dir) + `],"tool_call":{"name":"editor","input":{"path":"src/a.go","old_text":"a","new_text":"b"}}}`, Allow},
		{"augment", `{"hook_event_name":"PreToolUse","conversation_id":"c1","workspace_roots":[` + q(dir) + `],"tool_name":"launch-process","tool_input":{"command":"git push --force","wait":true,"cwd":` + q(dir) + `},"is_mcp_tool":false}`, Forbid},
		{"augment", `{"hook_event_name":"PreToolUse","workspace_roots":[` + q(dir) + `],"tool_name":"shell","tool_input":{"command":"git","args":["push","-f"]}}`, Forbid},
		{"augment", `{"hook_event_name":"PreToolUse","workspace_roots":[` + q(dir) + `],"tool_name":"view","tool_input":{"path":".env","type":"file"}}`, Forbid},
		{"augment", `{"hook_event_name":"PreToolUse","workspace_roots":[` + q(dir) + `],"tool_name":"remove-files","tool_input":{"file_paths":["a.txt","migrations/8.sql"]}}`, Forbid},
		{"augment", `{"hook_event_name":"PreToolUse","workspace_roots":[` + q(dir) + `],"tool_name":"launch-process","tool_input":{"command":"git push origin"}}`, Ask},
		{"augment", `{"hook_event_name":"PreToolUse","workspace_roots":[` + q(dir) + `],"tool_name":"view","tool_input":{"path":".env"},"is_mcp_tool":true}`, Allow},
		{"augment", `{"hook_event_name":"PreToolUse","workspace_roots":[` + q(dir) + `],"tool_name":"str-replace-editor","tool_input":{"path":"src/a.go","command":"str_replace"}}`, Allow},
		// Amp's delegate: the tool's name comes from AGENT_TOOL_NAME (here
		// before the tab), the arguments on stdin.
		{"amp", "Bash\t" + `{"cmd":"git push --force origin main"}`, Forbid},
		{"amp", "shell_command\t" + `{"command":"git push -f","workdir":` + q(dir) + `}`, Forbid},
		{"amp", "Read\t" + `{"path":` + q(dir+"/.env") + `}`, Forbid},
		{"amp", "read_file\t" + `{"path":` + q(dir+"/.env") + `,"read_range":[1,5]}`, Forbid},
		{"amp", "create_file\t" + `{"path":` + q(dir+"/migrations/9.sql") + `,"content":"x"}`, Forbid},
		{"amp", "apply_patch\t" + `{"patchText":"*** Begin Patch\n*** Update File: ` + dir + `/migrations/1.sql\n@@\n-a\n+b\n*** End Patch"}`, Forbid},
		{"amp", "Bash\t" + `{"cmd":"git push origin","cwd":` + q(dir) + `}`, Ask},
		{"amp", "edit_file\t" + `{"path":` + q(dir+"/src/a.go") + `,"old_str":"a","new_str":"b"}`, Allow},
		{"amp", "Bash\t" + `{"cmd":"go test ./..."}`, Allow},
		{"amp", "mcp__bridle__get_rules\t" + `{}`, Allow},
	} {
		p, ok := ProtocolFor(tc.proto)
		if !ok {
			t.Fatalf("no protocol %s", tc.proto)
		}
		c, err := parseTest(p, tc.input)
		if err != nil {
			t.Errorf("%s %s: %v", tc.proto, tc.input, err)
			continue
		}
		d := r.Decide(c, dir)
		if d.Verdict != tc.verdict {
			t.Errorf("%s %s: %s (%s), want %s", tc.proto, tc.input, d.Verdict, d.Reason, tc.verdict)
			continue
		}
		reply := p.Output(d)
		blocked := blocks(t, tc.proto, reply)
		if blocked != (d.Verdict != Allow) {
			t.Errorf("%s: %s answered %q / %q / exit %d", tc.proto, d.Verdict, reply.Stdout, reply.Stderr, reply.Exit)
		}
		if d.Verdict == Forbid && !strings.Contains(string(reply.Stdout)+string(reply.Stderr), "no-force") {
			t.Errorf("%s: the answer does not name the guardrail: %s%s", tc.proto, reply.Stdout, reply.Stderr)
		}
	}
}

// blocks reads reply the way the harness does and says whether the call is
// stopped (denied, or put to a person).
func blocks(t *testing.T, proto string, reply Reply) bool {
	t.Helper()
	switch proto {
	case "windsurf":
		return reply.Exit == 2
	case "amp":
		if len(reply.Stdout) > 0 || (reply.Exit == 0) != (len(reply.Stderr) == 0) {
			t.Errorf("amp answered %q / %q / exit %d", reply.Stdout, reply.Stderr, reply.Exit)
		}
		return reply.Exit == 1 || reply.Exit == 2
	}
	if reply.Exit != 0 {
		t.Errorf("%s exits %d", proto, reply.Exit)
	}
	if len(reply.Stdout) == 0 {
		if proto == "cursor" {
			t.Error("cursor: an empty answer (its hooks are failClosed)")
		}
		return false
	}
	var out map[string]any
	if err := json.Unmarshal(reply.Stdout, &out); err != nil {
		t.Fatalf("%s: not JSON: %s", proto, reply.Stdout)
	}
	switch proto {
	case "claude", "qwen", "droid", "augment":
		h, _ := out["hookSpecificOutput"].(map[string]any)
		return h["permissionDecision"] == "deny" || h["permissionDecision"] == "ask"
	case "gemini", "opencode", "crush":
		return out["decision"] == "deny"
	case "copilot":
		return out["permissionDecision"] == "deny" || out["permissionDecision"] == "ask"
	case "cursor":
		return out["permission"] == "deny" || out["permission"] == "ask"
	case "cline":
		return out["cancel"] == true
	}
	t.Fatalf("no reader for %s", proto)
	return false
}

// parseTest parses a test input: stdin, or the tool's name, a tab, and
// stdin, the name given to an EnvProtocol (Amp's) as AGENT_TOOL_NAME.
func parseTest(p Protocol, input string) (Call, error) {
	env := map[string]string{}
	if tool, rest, ok := strings.Cut(input, "\t"); ok && tool != "" && !strings.ContainsAny(tool, "{[\" ") {
		env["AGENT_TOOL_NAME"], input = tool, rest
	}
	return ParseCall(p, []byte(input), func(k string) string { return env[k] })
}

// TestAmpRefusesBadInput: what Amp's delegate cannot read is a reject
// (exit 2, the reason on stderr), never an ask without a reason; so is a
// call whose tool the environment does not name.
func TestAmpRefusesBadInput(t *testing.T) {
	p, _ := ProtocolFor("amp")
	for _, in := range []string{"Bash\t", "Bash\t{", "Bash\t[]", "Bash\tnull", "Bash\t{\"cmd\":7}", "Read\t{}", "Bash\t" + strings.Repeat(" ", MaxHookInput+1), `{"cmd":"ls"}`} {
		_, err := parseTest(p, in)
		if err == nil {
			t.Errorf("amp took %.40q", in)
			continue
		}
		r := p.Output(UnreadableInput(p, err))
		if r.Exit != 2 || !strings.Contains(string(r.Stderr), "could not read") {
			t.Errorf("amp on %.40q: exit %d %q, want a reject saying why", in, r.Exit, r.Stderr)
		}
	}
	if _, err := p.Parse([]byte(`{"cmd":"ls"}`)); err == nil {
		t.Error("amp's Parse without the environment took a call")
	}
	if d := UnreadableInput(protocols["claude"], errTest); d.Verdict != Ask {
		t.Errorf("claude's unreadable input is %s, want ask", d.Verdict)
	}
}

var errTest = errors.New("test")

// TestProtocolsRefuseBadInput: malformed input is an error, never a
// panic, and an unknown tool is left to the harness.
func TestProtocolsRefuseBadInput(t *testing.T) {
	for _, name := range Protocols() {
		p, _ := ProtocolFor(name)
		for _, in := range []string{"", "{", "[]", `{"tool_name":"Bash","tool_input":[1],"toolName":"bash","toolArgs":"{not json","tool":"bash","args":7,"hook_event_name":"preToolUse"}`, strings.Repeat(" ", MaxHookInput+1)} {
			if _, err := parseTest(p, "Bash\t"+in); err == nil && (name != "windsurf" && name != "cline" && name != "amp" || !strings.HasPrefix(in, `{"tool_name"`)) {
				t.Errorf("%s took %.40q", name, in)
			}
		}
		c, err := parseTest(p, "Mystery\t"+`{"tool_name":"Mystery","toolName":"mystery","tool":"mystery","agent_action_name":"post_x","hook_event_name":"afterFileEdit"}`)
		if err != nil || c.Kind != Other {
			t.Errorf("%s: an unknown tool is %+v, %v", name, c, err)
		}
	}
}

func FuzzProtocols(f *testing.F) {
	f.Add("gemini", `{"tool_name":"run_shell_command","tool_input":{"command":"rm -rf x"}}`)
	f.Add("copilot", `{"toolName":"view","toolArgs":"{\"path\":\".env\"}"}`)
	f.Add("cursor", `{"hook_event_name":"preToolUse","tool_name":"Edit","tool_input":"{\"file_path\":1}"}`)
	f.Add("windsurf", `{"agent_action_name":"pre_read_code","tool_info":{"file_path":"../../.env"}}`)
	f.Add("crush", `{"event":"PreToolUse","tool_name":"grep","tool_input":{"path":".","include":"*.env","pattern":"KEY"}}`)
	f.Add("crush", `{"tool_name":"view","tool_input":"{\"file_path\":[1]}"}`)
	f.Add("droid", `{"hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"KEY","glob_pattern":"*.env"}}`)
	f.Add("droid", `{"tool_name":"LS","tool_input":{"directory_path":{"x":1}}}`)
	f.Add("cline", `{"tool_call":{"name":"run_commands","input":{"commands":{"command":{"cmd":[[]]},"args":[1,null]}}}}`)
	f.Add("cline", `{"tool_call":{"name":"read_files","input":[{"paths":{"files":["a",{"filePath":".env"}]}}]}}`)
	f.Add("augment", `{"tool_name":"grep-search","tool_input":{"directory_absolute_path":"/","files_include_glob_pattern":"*.env","search_term":"K"}}`)
	f.Add("augment", `{"tool_name":"shell","tool_input":{"command":"x","args":["'",null]},"workspace_roots":[1]}`)
	f.Add("cline", `{"tool_call":{"name":"apply_patch","input":"*** Move to: \n*** Delete File: .env"},"workspaceRoots":"x"}`)
	f.Add("amp", "Bash\t"+`{"cmd":"git push --force","cwd":[1]}`)
	f.Add("amp", "apply_patch\t"+`{"patchText":"*** Move to: \n*** Delete File: .env"}`)
	f.Add("amp", "Grep\t"+`{"pattern":"KEY","glob":"**/*.env","path":{"x":1}}`)
	f.Add("amp", "glob\t"+`{"filePattern":"../../**"}`)
	r := load(f, reviewDoc, "claude")
	f.Fuzz(func(t *testing.T, proto, input string) {
		p, ok := ProtocolFor(proto)
		if !ok {
			p = protocols[Protocols()[len(proto)%len(protocols)]]
		}
		c, err := parseTest(p, input)
		if err != nil {
			_ = p.Output(UnreadableInput(p, err))
			return
		}
		_ = p.Output(r.Decide(c, ""))
	})
}
