package renderers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/schema"
)

// Native renderings are the agents' own enforcement files, written beside
// the instruction files by render --all when a guardrail has an enforce
// block for the agent:
//
//   - aider-conf: the agent's render listed under read: in .aider.conf.yml
//     (merged; Aider reads no instruction file unasked), written whatever
//     the enforce blocks say, since it is how Aider reads its rules.
//   - codex-rules: the whole of .codex/rules/bridle.rules (Codex execpolicy
//     prefix rules), owned by Bridle; written only when some command entry
//     applies to the agent.
//   - claude-settings: Bridle's permissions.deny and permissions.ask
//     entries, and when NeedsHook is not empty a PreToolUse hook running
//     bridle hook claude, merged into .claude/settings.json; what Bridle
//     owns there is recorded in .claude/bridle.json, owned by Bridle.
//
// Which agent gets which is decided by its resolved profile (nativeKinds),
// never by its name: an agent whose instruction file is the root CLAUDE.md
// (format CLAUDE.md) is read by Claude Code, which reads .claude/ beside it;
// an agent whose instruction file is the root AGENTS.md in reference style
// is read by Codex, which reads .codex/ beside it. Validation refuses two
// agents with the same output path, so each native file has one agent.
// A document without enforce blocks gets no native file.

// NativeKind names a native rendering.
type NativeKind string

// The native renderings.
const (
	ClaudeSettings NativeKind = "claude-settings"
	CodexRules     NativeKind = "codex-rules"
)

// A native is one harness's native enforcement rendering: the code behind
// a NativeKind the agents registry names (agents.Harness.Native).
type native interface {
	// render adds to n the files that enforce r for agent, merged with the
	// files read finds (nil, nil for one that is not there); with r nil no
	// agent takes this rendering any more, and render takes Bridle's part
	// out (or lists its owned files as orphans).
	render(n *Native, read func(string) ([]byte, error), agent string, r *enforce.Rules, o NativeOptions) error
}

// natives is the registry of native renderings, by the kind the agents
// registry names; a test proves every kind it names is here.
var natives = map[NativeKind]native{
	AiderConf:      aiderNative{},
	ClaudeSettings: claudeNative{},
	CodexRules:     codexNative{},
	GeminiSettings: hookNative{kind: GeminiSettings, settings: ".gemini/settings.json", events: []string{"BeforeTool"},
		entry: func(cmd string) any {
			return map[string]any{"matcher": "run_shell_command|read_file|read_many_files|write_file|replace|glob|grep_search|search_file_content|list_directory",
				"hooks": []any{map[string]any{"type": "command", "command": cmd, "name": "bridle", "timeout": 60000}}}
		},
		policy: ".gemini/policies/bridle.toml"},
	QwenSettings: hookNative{kind: QwenSettings, settings: ".qwen/settings.json", events: []string{"PreToolUse"},
		entry: func(cmd string) any {
			return map[string]any{"matcher": "run_shell_command|read_file|write_file|edit|glob|grep_search",
				"hooks": []any{map[string]any{"type": "command", "command": cmd, "name": "bridle", "timeout": 60000}}}
		}},
	CursorHooks: hookNative{kind: CursorHooks, settings: ".cursor/hooks.json",
		events: []string{"beforeShellExecution", "beforeReadFile", "preToolUse"}, version: true,
		entry: func(cmd string) any { return map[string]any{"command": cmd, "failClosed": true} }},
	WindsurfHooks: hookNative{kind: WindsurfHooks, settings: ".windsurf/hooks.json",
		events: []string{"pre_run_command", "pre_read_code", "pre_write_code"},
		entry:  func(cmd string) any { return map[string]any{"command": cmd, "show_output": true} }},
	// Crush's hooks sit in .crush.json beside its MCP servers; the matcher
	// is a regular expression on its lower-case tool names.
	CrushHooks: hookNative{kind: CrushHooks, settings: ".crush.json", also: []string{"crush.json"}, events: []string{"PreToolUse"},
		entry: func(cmd string) any {
			return map[string]any{"name": "bridle", "matcher": "^(bash|view|write|edit|multiedit|download|grep|glob|ls)$", "command": cmd, "timeout": 30}
		}},
	// Droid's hooks are Claude Code's, in the hooks key of
	// .factory/settings.json (docs.factory.ai hooks reference; Factory's
	// own repository keeps its PreToolUse hook there); a project's
	// .factory/hooks.json, when it has one, is read instead.
	DroidHooks: hookNative{kind: DroidHooks, settings: ".factory/settings.json", shadows: []string{".factory/hooks.json", ".factory/hooks/hooks.json"},
		events: []string{"PreToolUse"},
		entry: func(cmd string) any {
			return map[string]any{"matcher": "Execute|Bash|Read|Create|Edit|MultiEdit|Write|Grep|Glob|LS",
				"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 30}}}
		}},
	// Auggie's hooks sit in .augment/settings.json beside its MCP servers
	// (its HookConfigLoader reads the workspace's settings.json and
	// settings.local.json); timeout in milliseconds; the matcher a regular
	// expression on its tool names. A command with $ runs through bash -c,
	// with AUGMENT_PROJECT_DIR set.
	AugmentHooks: hookNative{kind: AugmentHooks, settings: ".augment/settings.json", events: []string{"PreToolUse"},
		entry: func(cmd string) any {
			return map[string]any{"matcher": "^(launch-process|shell|view|save-file|str-replace-editor|remove-files|grep-search)$",
				"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 30000}}}
		}},
	ClineHooks:     clineNative{},
	AmpPermissions: ampNative{},
	CopilotHooks:   copilotNative{},
	OpenCodeConfig: opencodeNative{},
}

// NativeKindOf returns the native rendering a resolved profile takes, or
// "" for none: its harness's (agents registry), when the profile's file is
// the one the harness reads (a claude profile writing docs/CLAUDE.md gets
// none: Claude Code reads .claude/ beside the CLAUDE.md it reads).
func NativeKindOf(p schema.AgentProfile) NativeKind {
	a, ok := agents.Lookup(Harness(p))
	if !ok || a.Harness == nil || a.Harness.Native == "" {
		return ""
	}
	if p.Output != a.Harness.Instructions && a.Harness.Pointer == "" {
		return ""
	}
	return NativeKind(a.Harness.Native)
}

// NativeKinds lists the native renderings, sorted.
func NativeKinds() []NativeKind {
	out := slices.Collect(maps.Keys(natives))
	slices.Sort(out)
	return out
}

// NativeOptions configures the native renderings.
type NativeOptions struct {
	// RulesPath is the rules path the hook command passes to
	// bridle hook claude --rules, relative to the project root (the
	// output directory), slash-separated. The command prefixes it with
	// "$CLAUDE_PROJECT_DIR"/, so the settings hold no path of this machine
	// and work from any working directory.
	RulesPath string
	// Kinds limits the renderings to these; nil means all.
	Kinds []NativeKind

	// instructions is the agent's render, relative to the project root,
	// for a harness Bridle points at it (OpenCode's instructions); set per
	// agent by RenderNativeFrom.
	instructions string
}

func (o NativeOptions) wants(k NativeKind) bool { return o.Kinds == nil || slices.Contains(o.Kinds, k) }

// ErrAbsoluteRulesPath is returned for a hook rules path that is not
// relative: settings.json is shared, so it may not name this machine's
// paths.
var ErrAbsoluteRulesPath = errors.New("the hook's rules path must be relative to the project")

// Native is what the native renderings write and remove under a directory.
type Native struct {
	// Files are written in order: a manifest before its settings file, so
	// an interrupted write can only make Bridle own too much, never leave
	// an entry it wrote unowned.
	Files []File
	// Orphans are Bridle-owned native files that nothing renders any more.
	Orphans []Orphan
}

// Orphan is a Bridle-owned native file no agent renders.
type Orphan struct {
	Path   string // relative, slash-separated
	Intact bool   // as Bridle wrote it (its content hash matches): safe to remove
}

// file kinds Check compares differently
const (
	kindMarkdown = iota
	kindOwned
	kindSettings
)

// rulesMarker starts every generated .rules file (enforce.Rules.Codex).
const rulesMarker = "# Generated by Bridle"

// contentTrailer starts the last line of a generated .rules file: the
// sha256 of everything before it, so that a hand edit is told from a
// stale file.
const contentTrailer = "# content: "

// HookCommand is the command of Bridle's PreToolUse hook for agent.
func HookCommand(agent, rulesPath string) (string, error) {
	if rulesPath == "" {
		rulesPath = "."
	}
	if path.IsAbs(rulesPath) || filepath.IsAbs(rulesPath) {
		return "", fmt.Errorf("hook rules path %q: %w (pass --rules-path)", rulesPath, ErrAbsoluteRulesPath)
	}
	p := `"$CLAUDE_PROJECT_DIR"`
	if rel := path.Clean(filepath.ToSlash(rulesPath)); rel != "." {
		p += "/" + shellQuote(rel)
	}
	cmd := "bridle hook claude --rules " + p
	if agent != "claude" {
		cmd += " --agent " + shellQuote(agent)
	}
	return cmd, nil
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// codexFile is the generated .rules file with its content trailer.
func codexFile(rules []byte) string {
	return string(rules) + contentTrailer + hashOf(rules) + "\n"
}

// intactRules reports whether a .rules file is as Bridle wrote it.
func intactRules(got []byte) bool {
	body := bytes.TrimSuffix(got, []byte("\n"))
	i := bytes.LastIndexByte(body, '\n')
	if i < 0 || !bytes.HasPrefix(got, []byte(rulesMarker)) {
		return false
	}
	return string(body[i+1:]) == contentTrailer+hashOf(got[:i+1])
}

// RenderNative renders the native files for doc into dir, merging with the
// settings file already there (read through the same safe-path checks as
// Write). It reads dir but writes nothing.
func RenderNative(dir string, doc *schema.Document, o NativeOptions) (Native, error) {
	root, err := os.OpenRoot(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Native{}, fmt.Errorf("render %s: %w", dir, err)
	}
	if root != nil {
		defer root.Close()
	}
	return RenderNativeFrom(func(p string) ([]byte, error) {
		if root == nil {
			return nil, nil
		}
		rel, err := localPath(root, p)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", filepath.Join(dir, p), err)
		}
		b, err := root.ReadFile(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return b, err
	}, doc, o)
}

// RenderNativeFrom is RenderNative over files read (by slash path relative
// to the project root; nil, nil for a file that is not there) from anywhere:
// a commit's tree, for a proposal that commits the native files.
func RenderNativeFrom(read func(path string) ([]byte, error), doc *schema.Document, o NativeOptions) (Native, error) {
	var n Native
	done := map[NativeKind]bool{}
	for _, agent := range doc.Agents() {
		kind := NativeKindOf(doc.Resolved(agent))
		if kind == "" || done[kind] || !o.wants(kind) || natives[kind] == nil {
			continue
		}
		done[kind] = true
		r, err := enforce.New(doc, agent)
		if err != nil {
			return n, fmt.Errorf("render %s: %w", agent, err)
		}
		o.instructions = doc.Resolved(agent).Output
		if err := natives[kind].render(&n, read, agent, r, o); err != nil {
			return n, err
		}
	}
	for _, kind := range NativeKinds() {
		if !done[kind] && o.wants(kind) {
			// No agent takes it any more: take Bridle's part out.
			if err := natives[kind].render(&n, read, "", nil, o); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

type codexNative struct{}

func (codexNative) render(n *Native, read func(string) ([]byte, error), agent string, r *enforce.Rules, _ NativeOptions) error {
	if r != nil && slices.ContainsFunc(r.Entries(), func(e enforce.Entry) bool { return e.Kind == enforce.Command }) {
		b, err := r.Codex()
		if err != nil {
			return fmt.Errorf("render %s: %w", agent, err)
		}
		n.Files = append(n.Files, File{Agent: agent, Renderer: string(CodexRules), Path: enforce.CodexPath, Content: codexFile(b), kind: kindOwned})
		return nil
	}
	// Nothing to write: an old file is an orphan.
	got, err := read(enforce.CodexPath)
	if err != nil {
		return err
	}
	if bytes.HasPrefix(got, []byte(rulesMarker)) {
		n.Orphans = append(n.Orphans, Orphan{Path: enforce.CodexPath, Intact: intactRules(got)})
	}
	return nil
}

type claudeNative struct{}

func (claudeNative) render(n *Native, read func(string) ([]byte, error), agent string, r *enforce.Rules, o NativeOptions) error {
	var want ClaudeWant
	if r != nil {
		want.Deny, want.Ask = r.Claude()
		if len(want.Deny)+len(want.Ask) > 0 {
			// The agent must not rewrite the rules that bind it.
			for _, g := range enforce.SelfProtected() {
				want.Deny = append(want.Deny, "Edit(./"+g+")")
			}
			slices.Sort(want.Deny)
			want.Deny = slices.Compact(want.Deny)
		}
		if len(r.NeedsHook()) > 0 {
			var err error
			if want.Hook, err = HookCommand(agent, o.RulesPath); err != nil {
				return err
			}
		}
	}
	return n.claude(read, agent, want)
}

func (n *Native) claude(read func(string) ([]byte, error), agent string, want ClaudeWant) error {
	settings, err := read(ClaudeSettingsPath)
	if err != nil {
		return err
	}
	manifest, err := read(ClaudeManifestPath)
	if err != nil {
		return err
	}
	newSettings, newManifest, err := MergeClaudeSettings(settings, manifest, want)
	if err != nil {
		return err
	}
	if newManifest != nil {
		n.Files = append(n.Files, File{Agent: agent, Renderer: string(ClaudeSettings), Path: ClaudeManifestPath, Content: string(newManifest), kind: kindOwned})
	}
	if newSettings != nil && (newManifest != nil || !bytes.Equal(newSettings, settings)) {
		n.Files = append(n.Files, File{Agent: agent, Renderer: string(ClaudeSettings), Path: ClaudeSettingsPath, Content: string(newSettings), kind: kindSettings})
	}
	if newManifest == nil && manifest != nil {
		_, intact, _ := parseManifest(manifest)
		n.Orphans = append(n.Orphans, Orphan{Path: ClaudeManifestPath, Intact: intact})
	}
	return nil
}

// RemoveOrphans removes the intact orphans from dir (a Bridle-owned file
// edited by hand is left for its owner to look at) and returns the paths
// removed. A stale rules file would go on enforcing rules that were taken
// out, which is why native orphans are removed and markdown ones are not.
func RemoveOrphans(dir string, orphans []Orphan) ([]string, error) {
	var removed []string
	if len(orphans) == 0 {
		return nil, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("remove in %s: %w", dir, err)
	}
	defer root.Close()
	for _, o := range orphans {
		if !o.Intact {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(o.Path))
		rel, err := localPath(root, o.Path)
		if err != nil {
			return removed, fmt.Errorf("remove %s: %w", p, err)
		}
		if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove %s: %w", p, err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}

// CheckNative compares dir with what the native renderings would write: an
// owned file (the .rules file, the manifest) is missing, stale, edited by
// hand or orphaned like a markdown file; settings.json is stale when
// Bridle's entries in it are missing or differ from what it would write
// (the user's own entries never count).
func CheckNative(dir string, n Native) ([]Finding, error) {
	var out []Finding
	root, err := os.OpenRoot(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("check %s: %w", dir, err)
	}
	if root != nil {
		defer root.Close()
	}
	for _, f := range n.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		got, missing, err := readForCheck(root, p, f)
		if err != nil {
			return nil, err
		}
		if missing != nil {
			out = append(out, *missing)
			continue
		}
		st := Current
		if string(got) != f.Content {
			switch {
			case f.kind == kindSettings:
				st = Stale
			case f.Path == ClaudeManifestPath:
				if _, intact, err := parseManifest(got); err == nil && intact {
					st = Stale
				} else {
					st = Edited
				}
			case intactRules(got):
				st = Stale
			default:
				st = Edited
			}
		}
		fd := Finding{Path: p, Agent: f.Agent, State: st}
		if st != Current {
			fd.Diff = udiff.Unified(p+" (on disk)", p+" (rendered)", string(got), f.Content)
		}
		out = append(out, fd)
	}
	for _, o := range n.Orphans {
		out = append(out, Finding{Path: filepath.Join(dir, filepath.FromSlash(o.Path)), State: Orphaned})
	}
	slices.SortFunc(out, func(a, b Finding) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
