package renderers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/internal/jsonc"
)

// The native renderings of the harnesses whose enforcement is a pre-tool
// hook running bridle hook AGENT (and, where the harness has one, a static
// rule file Bridle owns). Each merges Bridle's hook entry into a settings
// file the person also writes, through internal/jsonc, so their comments,
// keys and hooks stay as they are; Bridle's entries are the ones whose
// command starts with "bridle hook ", so a later render replaces or removes
// exactly those.
const (
	GeminiSettings NativeKind = "gemini-settings"
	QwenSettings   NativeKind = "qwen-settings"
	OpenCodeConfig NativeKind = "opencode-config"
	CopilotHooks   NativeKind = "copilot-hooks"
	CursorHooks    NativeKind = "cursor-hooks"
	WindsurfHooks  NativeKind = "windsurf-hooks"
	CrushHooks     NativeKind = "crush-hooks"
	DroidHooks     NativeKind = "droid-hooks"
	AugmentHooks   NativeKind = "augment-hooks"
)

// hookMarker starts the command of every hook entry Bridle writes.
const hookMarker = "bridle hook "

// HookCommandFor is the command of Bridle's hook for agent running
// harness: bridle (from PATH) hook HARNESS --rules RULES, RULES relative to
// the project root, which the harness names in its ProjectEnv variable
// ("$GEMINI_PROJECT_DIR"/rules) or, for a harness that names none, is the
// directory the hook starts in; --agent when the profile is not named
// after its harness.
func HookCommandFor(harness, agent, rulesPath string) (string, error) {
	if rulesPath == "" {
		rulesPath = "."
	}
	if path.IsAbs(rulesPath) || filepath.IsAbs(rulesPath) {
		return "", fmt.Errorf("hook rules path %q: %w (pass --rules-path)", rulesPath, ErrAbsoluteRulesPath)
	}
	a, _ := agents.Lookup(harness)
	rel := path.Clean(filepath.ToSlash(rulesPath))
	var p string
	switch {
	case a.Harness != nil && a.Harness.ProjectEnv != "":
		p = `"$` + a.Harness.ProjectEnv + `"`
		if rel != "." {
			p += "/" + shellQuote(rel)
		}
	default:
		p = shellQuote(rel)
	}
	cmd := hookMarker + harness + " --rules " + p
	if agent != harness {
		cmd += " --agent " + shellQuote(agent)
	}
	return cmd, nil
}

// hookNative merges a hook entry per event into a harness's settings JSON
// (hooks.EVENT lists), and for Gemini writes its policy file too.
type hookNative struct {
	kind     NativeKind
	settings string   // the settings file, relative to the project
	events   []string // the hooks.EVENT lists that get Bridle's entry
	entry    func(cmd string) any
	version  bool   // the file carries "version": 1 (Cursor)
	policy   string // Gemini's policy file, listed in policyPaths; "" for none
	// also are other names of the settings file the harness reads (and
	// merges): the first of settings and these that exists gets the hook
	// (Crush's crush.json beside .crush.json).
	also []string
	// shadows are files that, when the project has one, make the harness
	// read no hooks from settings (Droid's .factory/hooks.json): the render
	// is refused with ErrHooksShadowed rather than write a hook that would
	// never run.
	shadows []string
}

// ErrHooksShadowed is returned when the project keeps its hooks in a file
// that makes the harness ignore the settings file Bridle's hook goes into.
var ErrHooksShadowed = errors.New("the harness reads its hooks from another file")

// settingsFile is the settings file the hook goes into and what it holds
// (nil when none of its names exists: then settings).
func (h hookNative) settingsFile(read func(string) ([]byte, error)) (string, []byte, error) {
	for _, p := range append([]string{h.settings}, h.also...) {
		b, err := read(p)
		if err != nil || b != nil {
			return p, b, err
		}
	}
	return h.settings, nil, nil
}

func (h hookNative) harness() string {
	for _, a := range agents.All() {
		if a.Harness != nil && a.Harness.Native == string(h.kind) {
			return a.Name
		}
	}
	return ""
}

func (h hookNative) render(n *Native, read func(string) ([]byte, error), agent string, r *enforce.Rules, o NativeOptions) error {
	settings, before, err := h.settingsFile(read)
	if err != nil {
		return err
	}
	on := r != nil && len(r.Entries()) > 0
	for _, p := range h.shadows {
		b, err := read(p)
		if err != nil {
			return err
		}
		if b != nil && on {
			return fmt.Errorf("render %s: %s exists: %w, and then none from %s (move your hooks into %s's \"hooks\" key, or add Bridle's entry to %s by hand)",
				h.kind, p, ErrHooksShadowed, settings, settings, p)
		}
	}
	if !on && before == nil {
		return h.orphanPolicy(n, read)
	}
	d, err := jsonc.Parse(settings, before)
	if err != nil {
		return fmt.Errorf("render %s: %w", h.kind, err)
	}
	cmd := ""
	if on {
		if cmd, err = HookCommandFor(h.harness(), agent, o.RulesPath); err != nil {
			return err
		}
	}
	for _, ev := range h.events {
		if err := setHookList(d, []string{"hooks", ev}, on, h.entry(cmd)); err != nil {
			return fmt.Errorf("render %s: %w", h.kind, err)
		}
	}
	if on && h.version {
		if _, ok := d.Get("version"); !ok {
			if err := d.Set(1, "version"); err != nil {
				return fmt.Errorf("render %s: %w", h.kind, err)
			}
		}
	}
	if h.policy != "" {
		if err := setStringList(d, []string{"policyPaths"}, h.policy, on && hasCommands(r)); err != nil {
			return fmt.Errorf("render %s: %w", h.kind, err)
		}
	}
	after := d.Bytes()
	if before == nil || !bytes.Equal(after, before) {
		if !(before == nil && !on) {
			n.Files = append(n.Files, File{Agent: agent, Renderer: string(h.kind), Path: settings, Content: string(after), kind: kindSettings})
		}
	} else if on {
		n.Files = append(n.Files, File{Agent: agent, Renderer: string(h.kind), Path: settings, Content: string(before), kind: kindSettings})
	}
	if h.policy == "" {
		return nil
	}
	if on && hasCommands(r) {
		n.Files = append(n.Files, File{Agent: agent, Renderer: string(h.kind), Path: h.policy, Content: geminiPolicy(r), kind: kindSettings})
		return nil
	}
	return h.orphanPolicy(n, read)
}

func (h hookNative) orphanPolicy(n *Native, read func(string) ([]byte, error)) error {
	if h.policy == "" {
		return nil
	}
	got, err := read(h.policy)
	if err != nil {
		return err
	}
	if bytes.HasPrefix(got, []byte(rulesMarker)) {
		n.Orphans = append(n.Orphans, Orphan{Path: h.policy, Intact: true})
	}
	return nil
}

func hasCommands(r *enforce.Rules) bool {
	return r != nil && slices.ContainsFunc(r.Entries(), func(e enforce.Entry) bool { return e.Kind == enforce.Command })
}

// setHookList takes Bridle's entries out of the list at path and, when on,
// appends entry; the person's entries keep their order. A list left empty
// by Bridle is removed.
func setHookList(d *jsonc.Doc, p []string, on bool, entry any) error {
	var list []json.RawMessage
	raw, ok := d.Get(p...)
	if ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("%s is not a list: %w (fix it by hand, then render again)", strings.Join(p, "."), jsonc.ErrNotObject)
		}
	}
	had := len(list)
	list = slices.DeleteFunc(list, ours)
	removed := had - len(list)
	if on {
		b, _ := json.Marshal(entry)
		list = append(list, b)
	}
	if !on && removed == 0 {
		return nil
	}
	if ok && sameJSON(raw, list) {
		return nil // as it is: keep the person's layout
	}
	if len(list) == 0 {
		d.Delete(p...)
		if keys := d.Keys(p[:len(p)-1]...); len(keys) == 0 && len(p) > 1 {
			d.Delete(p[:len(p)-1]...)
		}
		return nil
	}
	return d.Set(list, p...)
}

// sameJSON reports whether raw holds the same JSON value as v.
func sameJSON(raw json.RawMessage, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var x, y any
	if json.Unmarshal(raw, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// ours reports an entry Bridle wrote: one whose command (anywhere in it)
// starts with bridle hook.
func ours(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			return strings.HasPrefix(x, hookMarker)
		case []any:
			return slices.ContainsFunc(x, walk)
		case map[string]any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// setStringList adds s to (on) or removes it from the string list at p.
func setStringList(d *jsonc.Doc, p []string, s string, on bool) error {
	var list []string
	if raw, ok := d.Get(p...); ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("%s is not a list of strings: %w", strings.Join(p, "."), jsonc.ErrNotObject)
		}
	}
	has := slices.Contains(list, s)
	switch {
	case on && !has:
		return d.Set(append(list, s), p...)
	case !on && has:
		list = slices.DeleteFunc(list, func(x string) bool { return x == s })
		if len(list) == 0 {
			d.Delete(p...)
			return nil
		}
		return d.Set(list, p...)
	}
	return nil
}

// geminiPolicy is Gemini CLI's policy file for r's command entries: a
// commandPrefix rule per entry, deny or ask_user (which Gemini denies when
// it cannot ask), its message naming the guardrail. Workspace policy
// directories are ignored by Gemini 0.61.0; settings.json lists this file
// under policyPaths, which it loads.
func geminiPolicy(r *enforce.Rules) string {
	var b strings.Builder
	b.WriteString(rulesMarker + " from the rules document (bridle.yaml). DO NOT EDIT: bridle render --all rewrites it.\n")
	b.WriteString("# Gemini CLI's own check of the guardrails' command rules; bridle hook gemini checks the rest.\n")
	for _, e := range r.Entries() {
		if e.Kind != enforce.Command {
			continue
		}
		decision := "ask_user"
		if e.Verdict == enforce.Forbid {
			decision = "deny"
		}
		fmt.Fprintf(&b, "\n[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = %s\ndecision = %q\npriority = 900\ndenyMessage = %s\n",
			strconv.Quote(e.Pattern), decision, strconv.Quote(oneLine("bridle: guardrail "+e.Guardrail+": "+e.Statement)))
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// copilotNative writes .github/hooks/bridle.json, a file Bridle owns: a
// preToolUse hook running bridle hook copilot (Copilot CLI has no deny list
// in a file).
type copilotNative struct{}

// CopilotHooksPath is where Copilot CLI reads Bridle's hook.
const CopilotHooksPath = ".github/hooks/bridle.json"

func (copilotNative) render(n *Native, read func(string) ([]byte, error), agent string, r *enforce.Rules, o NativeOptions) error {
	if r == nil || len(r.Entries()) == 0 {
		got, err := read(CopilotHooksPath)
		if err != nil {
			return err
		}
		if bytes.Contains(got, []byte(`"`+hookMarker+`copilot`)) {
			n.Orphans = append(n.Orphans, Orphan{Path: CopilotHooksPath, Intact: true})
		}
		return nil
	}
	cmd, err := HookCommandFor("copilot", agent, o.RulesPath)
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(map[string]any{"version": 1, "hooks": map[string]any{
		"preToolUse": []any{map[string]any{"type": "command", "bash": cmd, "timeoutSec": 30}}}}, "", "  ")
	n.Files = append(n.Files, File{Agent: agent, Renderer: string(CopilotHooks), Path: CopilotHooksPath, Content: string(b) + "\n", kind: kindSettings})
	return nil
}

// opencodeNative writes two files Bridle owns: .opencode/opencode.json,
// which OpenCode merges over the project's opencode.json, with the render
// listed under instructions and the command entries as bash permissions
// (deny, or ask); and .opencode/plugins/bridle.js, whose
// tool.execute.before runs bridle hook opencode and throws its reason.
type opencodeNative struct{}

// OpenCode's files Bridle owns.
const (
	OpenCodeConfigPath = ".opencode/opencode.json"
	OpenCodePluginPath = ".opencode/plugins/bridle.js"
)

func (opencodeNative) render(n *Native, read func(string) ([]byte, error), agent string, r *enforce.Rules, o NativeOptions) error {
	if agent == "" {
		for _, p := range []string{OpenCodeConfigPath, OpenCodePluginPath} {
			got, err := read(p)
			if err != nil {
				return err
			}
			if bytes.Contains(got, []byte("Generated by Bridle")) {
				n.Orphans = append(n.Orphans, Orphan{Path: p, Intact: true})
			}
		}
		return nil
	}
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		// OpenCode takes no comment in JSON: this key says whose file it is.
		"//": "Generated by Bridle from the rules document (bridle.yaml). DO NOT EDIT: bridle render --all rewrites it.",
	}
	if o.instructions != "" {
		cfg["instructions"] = []string{o.instructions}
	}
	if hasCommands(r) {
		bash := map[string]string{}
		for _, e := range r.Entries() {
			if e.Kind != enforce.Command {
				continue
			}
			v := "ask"
			if e.Verdict == enforce.Forbid {
				v = "deny"
			}
			for _, p := range []string{e.Pattern, e.Pattern + " *"} {
				if bash[p] != "deny" {
					bash[p] = v
				}
			}
		}
		cfg["permission"] = map[string]any{"bash": bash}
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	n.Files = append(n.Files, File{Agent: agent, Renderer: string(OpenCodeConfig), Path: OpenCodeConfigPath, Content: string(b) + "\n", kind: kindSettings})
	if r == nil || len(r.Entries()) == 0 {
		got, err := read(OpenCodePluginPath)
		if err != nil {
			return err
		}
		if bytes.Contains(got, []byte("Generated by Bridle")) {
			n.Orphans = append(n.Orphans, Orphan{Path: OpenCodePluginPath, Intact: true})
		}
		return nil
	}
	cmd, err := HookCommandFor("opencode", agent, o.RulesPath)
	if err != nil {
		return err
	}
	n.Files = append(n.Files, File{Agent: agent, Renderer: string(OpenCodeConfig), Path: OpenCodePluginPath, Content: opencodePlugin(cmd), kind: kindSettings})
	return nil
}

// opencodePlugin is the plugin that runs cmd (through sh, from the
// worktree) before each tool call with the call as JSON on stdin, and
// throws the reason of a deny: OpenCode shows a thrown error as the tool's
// result. A hook that fails to run blocks the call.
func opencodePlugin(cmd string) string {
	return `// Generated by Bridle from the rules document (bridle.yaml). DO NOT EDIT: bridle render --all rewrites it.
// Before every tool call, asks bridle hook opencode whether the project's guardrails allow it.
import { spawnSync } from "node:child_process"

export const Bridle = async ({ directory, worktree }) => ({
  "tool.execute.before": async (input, output) => {
    const payload = { hook_event_name: "tool.execute.before", tool: input.tool, sessionID: input.sessionID,
      callID: input.callID, args: output.args, cwd: directory, worktree }
    const r = spawnSync("sh", ["-c", ` + strconv.Quote(cmd) + `], { cwd: worktree || directory,
      input: JSON.stringify(payload), encoding: "utf8", timeout: 30000 })
    if (r.error) throw new Error("bridle hook opencode could not run: " + r.error.message)
    let out = {}
    try { out = r.stdout.trim() ? JSON.parse(r.stdout) : {} } catch { throw new Error("bridle hook opencode answered what is not JSON") }
    if (r.status !== 0 || out.decision === "deny") throw new Error(out.reason || r.stderr.trim() || "blocked by Bridle's guardrails")
  },
})
`
}
