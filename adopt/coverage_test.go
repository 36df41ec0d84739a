package adopt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/schema"
)

// base is the document an import fills in the tests: a profile for each
// agent whose files were found (bridle init adds its vendor sources and
// permissions).
func base(id string, paths []string) schema.Document {
	d := schema.Document{SchemaVersion: schema.CurrentVersion, Project: schema.Project{ID: id, Name: id},
		AgentProfiles: map[string]schema.AgentProfile{}}
	for _, a := range AgentsFor(paths) {
		d.AgentProfiles[a] = schema.AgentProfile{}
	}
	if len(d.AgentProfiles) == 0 {
		d.AgentProfiles["claude"] = schema.AgentProfile{}
	}
	return d
}

func readDir(t testing.TB, dir string) []File {
	t.Helper()
	paths, _, err := Find(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	var files []File
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: p, Data: b})
	}
	return files
}

func importDir(t testing.TB, dir string) (*Result, *compiler.Snapshot) {
	t.Helper()
	files := readDir(t, dir)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	res, err := Import(files, Options{Base: base(filepath.Base(dir), paths)})
	if err != nil {
		t.Fatalf("import %s: %v", dir, err)
	}
	snap, diags := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml", Data: res.YAML}, "test")
	if snap == nil || diags.HasErrors() {
		t.Fatalf("import %s does not compile: %s\n%s", dir, diags.Error(), res.YAML)
	}
	return res, snap
}

// TestCorpusCoverage measures, over every project in testdata/corpus, the
// share of the source's instructions that appear in every agent's render
// after import, and of its commands. An instruction is a list item's own
// text, or a sentence of a paragraph; it appears when its words (stop
// words dropped) all occur in one paragraph, list item or table row of the
// render. A command is a shell line of a fenced block, or a code span read
// as a command; it appears when its text does, verbatim.
func TestCorpusCoverage(t *testing.T) {
	dirs, err := filepath.Glob("testdata/corpus/*")
	if err != nil || len(dirs) < 8 {
		t.Fatalf("want at least 8 projects in testdata/corpus, got %d (%v)", len(dirs), err)
	}
	var instr, instrOK, cmds, cmdsOK int
	for _, dir := range dirs {
		res, snap := importDir(t, dir)
		for _, render := range snap.Renders {
			units := renderUnits(render.Content)
			for _, f := range readDir(t, dir) {
				if readerOf(f.Path) != readMarkdown || listingWhy(f.Path) != "" {
					continue
				}
				for _, in := range instructions(f.Data) {
					instr++
					if appears(in, units) {
						instrOK++
					} else {
						t.Logf("%s: %s: not in %s's render: %q", dir, f.Path, render.Agent, in)
					}
				}
				for _, c := range sourceCommands(f.Data) {
					cmds++
					if strings.Contains(render.Content, c) {
						cmdsOK++
					} else {
						t.Errorf("%s: %s: command %q not in %s's render", dir, f.Path, c, render.Agent)
					}
				}
			}
		}
		_ = res
	}
	share := float64(instrOK) / float64(instr) * 100
	fmt.Printf("import coverage: %d/%d instructions (%.1f%%), %d/%d commands, over %d projects' renders\n",
		instrOK, instr, share, cmdsOK, cmds, len(dirs))
	if share < 98 {
		t.Errorf("instruction coverage %.1f%% < 98%%", share)
	}
	if cmdsOK != cmds {
		t.Errorf("command coverage %d/%d", cmdsOK, cmds)
	}
}

// instructions are the list items and paragraph sentences of a file, as
// the parser reads them (front matter skipped), each as its words.
func instructions(src []byte) [][]string {
	var out [][]string
	body := stripFront(string(src))
	for _, u := range parse([]byte(body)) {
		var texts []string
		switch u.kind {
		case listItem:
			texts = []string{u.text}
		case paragraph:
			texts = sentences(u.text)
		}
		for _, s := range texts {
			if ws := words(s); len(ws) > 0 {
				out = append(out, ws)
			}
		}
	}
	return out
}

func sourceCommands(src []byte) []string {
	var out []string
	for _, u := range parse([]byte(stripFront(string(src)))) {
		switch u.kind {
		case code:
			r := &Result{}
			r.codeBlock(Pos{}, u, "")
			for _, c := range r.commands {
				out = append(out, c.run)
			}
		case paragraph, listItem:
			for _, s := range sentences(u.text) {
				if _, _, neg := normalise(s); neg {
					continue
				}
				for _, sp := range u.spans {
					if strings.Contains(s, sp) && isCommand(sp, u.section) {
						out = append(out, sp)
					}
				}
			}
		}
	}
	return out
}

func stripFront(s string) string {
	if strings.HasPrefix(s, "---\n") {
		if i := strings.Index(s[4:], "\n---\n"); i >= 0 {
			return s[4+i+5:]
		}
	}
	return s
}

// renderUnits are the word sets of a render's paragraphs, list items (with
// what is nested in them: the render nests a rule's why and origin) and
// table rows.
func renderUnits(render string) []map[string]bool {
	var out []map[string]bool
	for _, u := range parse([]byte(render)) {
		set := map[string]bool{}
		for _, w := range words(u.text) {
			set[w] = true
		}
		out = append(out, set)
		if u.kind == prose {
			for _, line := range strings.Split(u.text, "\n") {
				set := map[string]bool{}
				for _, w := range words(line) {
					set[w] = true
				}
				out = append(out, set)
			}
		}
	}
	return out
}

func appears(in []string, units []map[string]bool) bool {
	return slices.ContainsFunc(units, func(u map[string]bool) bool {
		for _, w := range in {
			if !u[w] {
				return false
			}
		}
		return true
	})
}

// TestCorpusDeterministic: the same files give byte-identical YAML, in
// whatever order they come.
func TestCorpusDeterministic(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/corpus/*")
	for _, dir := range dirs {
		files := readDir(t, dir)
		a, err := Import(files, Options{Base: base("p", nil)})
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(files)
		b, err := Import(files, Options{Base: base("p", nil)})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.YAML, b.YAML) {
			t.Errorf("%s: two imports differ", dir)
		}
	}
}
