package adopt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/internal/jsonc"
	"github.com/bridle-dev/bridle/renderers"
)

// Others are agent instruction files of harnesses Bridle does not render
// in that form (Cursor's, Windsurf's and Cline's legacy single files), and
// the agent each belongs to ("" for none Bridle knows). Aider's
// CONVENTIONS.md is its registry entry's.
func others() []struct{ path, agent string } {
	return []struct{ path, agent string }{
		{".cursorrules", "cursor"}, {".windsurfrules", "windsurf"}, {".clinerules", "cline"},
	}
}

// clineDir is Cline's directory of rules (.clinerules may be a file or a
// directory): every .md and .txt file in it is read.
const clineDir = ".clinerules"

// reader is how a file is read.
type reader int

const (
	readMarkdown reader = iota
	readClaude          // .claude/settings.json permissions
	readCodex           // .codex/rules/*.rules
	readOpenCode        // opencode.json(c) permission
	readMCP             // an MCP client configuration: servers are not rules
	readListing         // skills, commands, subagents: not carried
)

// nativeFiles are the harnesses' own enforcement files Import reads, by
// the native kind that renders them (renderers.NativeKind names).
func nativeFiles(a agents.Agent) []string {
	if a.Harness == nil {
		return nil
	}
	switch a.Harness.Native {
	case string(renderers.ClaudeSettings):
		return []string{renderers.ClaudeSettingsPath}
	case string(renderers.CodexRules):
		return []string{path.Dir(enforce.CodexPath) + "/*.rules"}
	case string(renderers.OpenCodeConfig):
		if c := a.Harness.Config; c != nil {
			return append([]string{c.Project}, c.ProjectAlso...)
		}
	}
	return nil
}

func readerOf(p string) reader {
	for _, a := range agents.All() {
		for _, n := range nativeFiles(a) {
			if ok, _ := path.Match(n, p); ok {
				switch a.Harness.Native {
				case string(renderers.ClaudeSettings):
					return readClaude
				case string(renderers.CodexRules):
					return readCodex
				default:
					return readOpenCode
				}
			}
		}
		if a.Harness != nil && a.Harness.Config != nil && a.Harness.Config.Project == p {
			return readMCP
		}
	}
	if listingWhy(p) != "" {
		return readListing
	}
	return readMarkdown
}

// textual reports a file whose text Import carries into the rules as
// written, and so refuses when it holds a credential: instruction files
// and Codex's rules. Of JSON settings only the permission entries are
// carried (each one checked), and MCP servers are reported by name only:
// their env often holds tokens that are no business of the rules.
func textual(p string) bool {
	switch readerOf(p) {
	case readMarkdown, readCodex:
		return true
	}
	return false
}

// listingWhy says why a file of skills, slash commands or subagents is not
// carried, or "" for any other file.
func listingWhy(p string) string {
	for _, d := range []string{".claude/skills/", ".claude/commands/", ".claude/agents/", ".codex/prompts/", ".gemini/commands/", ".opencode/agent/", ".opencode/command/"} {
		if strings.HasPrefix(p, d) {
			return "skills, slash commands and subagents are procedures a harness runs on request, not rules every agent follows; Bridle has no place for them and leaves the file as it is"
		}
	}
	return ""
}

// instructionPatterns are the instruction files Find reads, from the
// registry: each harness's own file and the files it also reads at the
// root, and for a harness whose file is one of a directory's rules
// (.cursor/rules/bridle.mdc) every rule of that directory
// (.cursor/rules/*.mdc).
func instructionPatterns() (root []string, dirs []string) {
	for _, a := range agents.All() {
		h := a.Harness
		if h == nil {
			continue
		}
		for _, p := range append([]string{h.Instructions}, h.Reads...) {
			dir, base := path.Split(p)
			if dir != "" && strings.HasPrefix(base, "bridle") {
				dirs = append(dirs, dir+"*"+strings.TrimPrefix(base, "bridle"))
				continue
			}
			root = append(root, p)
		}
	}
	for _, o := range others() {
		root = append(root, o.path)
	}
	dirs = append(dirs, clineDir+"/*.md", clineDir+"/*.txt")
	slices.Sort(root)
	slices.Sort(dirs)
	return slices.Compact(root), slices.Compact(dirs)
}

// nestedNames are the root instruction files a harness also reads in a
// subdirectory (AGENTS.md in a monorepo's packages).
func nestedNames() []string {
	root, _ := instructionPatterns()
	var out []string
	for _, p := range root {
		if !strings.Contains(p, "/") && strings.HasSuffix(p, ".md") && p != "CONVENTIONS.md" {
			out = append(out, p)
		}
	}
	return out
}

// nestedDir is the directory of a nested instruction file, or "".
func nestedDir(p string) string {
	dir, base := path.Split(p)
	if dir == "" || !slices.Contains(nestedNames(), base) {
		return ""
	}
	return strings.TrimSuffix(dir, "/")
}

// maxWalk bounds the directories Find visits looking for nested files.
const maxWalk = 20000

// Find lists the agent files of the project in fsys: the instruction files
// of every harness in the registry (and Aider's CONVENTIONS.md), nested ones
// in subdirectories (not in hidden, vendored or dependency directories; at
// most maxWalk directories, else ErrTooLarge),
// the harnesses' own enforcement files (Claude Code's settings, Codex's
// rules, OpenCode's configuration), their MCP configurations and Claude
// Code's skills, commands and subagents (reported, not carried). Sorted.
//
// links are the agent files (or their directories) that are symbolic links
// fsys will not follow — out of the project, when fsys is an os.Root's:
// they are not read, and Import reports each (Options.Links). Sorted.
func Find(fsys fs.FS) (files, links []string, err error) {
	root, dirs := instructionPatterns()
	var globs []string
	globs = append(globs, dirs...)
	for _, a := range agents.All() {
		globs = append(globs, nativeFiles(a)...)
		if a.Harness != nil && a.Harness.Config != nil && a.Harness.Config.Project != "" {
			root = append(root, a.Harness.Config.Project)
		}
	}
	globs = append(globs, ".claude/skills/*/SKILL.md", ".claude/commands/*.md", ".claude/agents/*.md")
	add := func(p string) {
		switch {
		case regular(fsys, p):
			files = append(files, p)
		case unfollowed(fsys, p):
			links = append(links, p)
		}
	}
	for _, p := range root {
		add(p)
	}
	for _, g := range globs {
		if dir := path.Dir(g); !strings.ContainsAny(dir, "*?[") && unfollowed(fsys, dir) {
			links = append(links, dir) // .cursor/rules → elsewhere: none of its rules is read
			continue
		}
		m, err := fs.Glob(fsys, g)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range m {
			add(p)
		}
	}
	names := nestedNames()
	visited := 0
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: not an agent file we can import
		}
		if d.IsDir() {
			base := d.Name()
			if p != "." && (strings.HasPrefix(base, ".") || skipDir(base)) {
				return fs.SkipDir
			}
			if visited++; visited > maxWalk {
				return fmt.Errorf("find: more than %d directories to look for nested agent files in: %w (name the files with --from)", maxWalk, ErrTooLarge)
			}
			return nil
		}
		if strings.Contains(p, "/") && slices.Contains(names, d.Name()) {
			add(p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(files)
	slices.Sort(links)
	return slices.Compact(files), slices.Compact(links), nil
}

// regular reports a regular file, or a link to one (CLAUDE.md is often a
// link to AGENTS.md). Whether a link may lead out of the project is fsys's
// to say: bridle import passes an os.Root's, which refuses such links.
func regular(fsys fs.FS, p string) bool {
	fi, err := fs.Stat(fsys, p)
	return err == nil && fi.Mode().IsRegular()
}

// unfollowed reports a symbolic link fsys refuses to follow (an os.Root's
// refuses one out of the project); a link to nothing is not one.
func unfollowed(fsys fs.FS, p string) bool {
	fi, err := fs.Lstat(fsys, p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	_, err = fs.Stat(fsys, p)
	return err != nil && !errors.Is(err, fs.ErrNotExist)
}

func skipDir(base string) bool {
	switch base {
	case "node_modules", "vendor", "third_party", "testdata", "dist", "build", "target", "out", "rendered", "agents":
		return true
	}
	return false
}

// AgentsFor are the harnesses whose files are among paths: the harness
// whose own instruction file (or directory of rules) or enforcement file
// it is, else the harness that reads it (.github/copilot-instructions.md
// is Copilot's). A file several harnesses render (AGENTS.md) picks the
// reference-style ones that do not share it (Codex's, not Amp's). Sorted; nil when none.
func AgentsFor(paths []string) []string {
	var out []string
	for _, p := range paths {
		var own, readers []string
		for _, a := range agents.All() {
			h := a.Harness
			if h == nil {
				continue
			}
			dir, base := path.Split(h.Instructions)
			// A file the harness shares (Amp's AGENTS.md) is the other's.
			mine := h.Instructions == p && a.Style == agents.Reference && len(h.Shares) == 0
			if dir != "" && strings.HasPrefix(base, "bridle") {
				mine = mine || strings.HasPrefix(p, dir) && strings.HasSuffix(p, strings.TrimPrefix(base, "bridle"))
			}
			for _, n := range nativeFiles(a) {
				if ok, _ := path.Match(n, p); ok {
					mine = true
				}
			}
			if mine {
				own = append(own, a.Name)
			} else if slices.Contains(h.Reads, p) {
				readers = append(readers, a.Name)
			}
		}
		for _, o := range others() {
			if o.path == p && o.agent != "" {
				own = append(own, o.agent)
			}
		}
		if len(own) == 0 && len(readers) == 1 {
			own = readers
		}
		out = append(out, own...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// serverKeys are the keys under which JSON MCP configurations keep their
// servers: every JSON client's in the agents registry (Amp's
// amp.mcpServers, Zed's context_servers, …) and VS Code's servers.
func serverKeys() []string {
	keys := []string{"mcpServers", "servers", "mcp"}
	for _, a := range agents.All() {
		if a.Harness != nil && a.Harness.Config != nil && a.Harness.Config.Format == agents.JSON {
			keys = append(keys, a.Harness.Config.Servers)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// mcpServers reports an MCP configuration's servers by name: they are not
// rules, bridle install adds Bridle's own entry beside them, and their
// entries (which may hold tokens) are not copied.
func mcpServers(f File, r *Result) {
	d, err := jsonc.Parse(f.Path, f.Data)
	if err != nil {
		r.lose(Pos{f.Path, 1}, "MCP servers", "the MCP servers of this configuration (not JSON Bridle reads: Codex's TOML, Continue's YAML, or a broken file) are not rules: they stay in it", "")
		return
	}
	if raw, ok := d.Get("hooks"); ok {
		r.lose(Pos{f.Path, lineOf(f.Data, "hooks")}, "hook", "hooks run programs; Bridle cannot translate them into rules and leaves them in "+f.Path+" (its own hook is merged beside them)", string(raw))
	}
	for _, key := range serverKeys() {
		for _, name := range d.Keys(key) {
			if name == "bridle" || strings.HasPrefix(name, "bridle-") {
				continue
			}
			q, _ := json.Marshal(name)
			r.lose(Pos{f.Path, lineOf(f.Data, name)}, "MCP server", "an MCP server is not a rule: it stays in "+f.Path+" (bridle install adds Bridle's entry beside it; a gateway can serve it as an upstream)", "server "+string(q))
		}
	}
}
