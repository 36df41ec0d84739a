package prereq

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/agentclients"
	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
)

const module = "github.com/bridle-dev/bridle"

// A prerequisite is what a set of tests needs: the helper they call (which
// skips them when it is missing) and how to get it.
type prerequisite struct {
	pkg     string // import path of the helper's package
	fn      string // the helper
	missing []string
	fix     string
}

// TestIntegrationPrerequisites fails, with what cannot run and how to fix
// it, when the tests that need the real Gitea, the agent CLIs or gitea-mcp
// would skip. go test prints only "ok" for a passing package, even -v's skip
// messages are hidden, so a skip there is silent; this test makes it loud,
// once.
func TestIntegrationPrerequisites(t *testing.T) {
	gitea := prerequisite{pkg: module + "/internal/giteatest", fn: "Shared",
		fix: "scripts/gitea.sh build   (builds Gitea " + giteatest.Version + " from its Go module once, about 7.5 min cold on 2 cores; needs git and gcc)"}
	if err := giteatest.Available(); err != nil {
		gitea.missing = append(gitea.missing, err.Error())
	}
	agents := prerequisite{pkg: module + "/internal/agentclients", fn: "Bin",
		fix: "(cd tests/agentclients && npm ci)   (needs Node 20+ and npm)"}
	for _, c := range agentclients.CLIs {
		if _, err := agentclients.Find(c.Env, c.Name); err != nil {
			agents.missing = append(agents.missing, err.Error())
		}
	}
	giteaMCP := prerequisite{pkg: module + "/internal/upstreamtest", fn: "GiteaMCP",
		fix: "(cd tests/giteamcp && npm ci)   (needs Node 20+ and npm)"}
	if _, err := upstreamtest.FindGiteaMCP(); err != nil {
		giteaMCP.missing = append(giteaMCP.missing, err.Error())
	}
	var short []prerequisite
	for _, p := range []prerequisite{gitea, agents, giteaMCP} {
		if len(p.missing) > 0 {
			short = append(short, p)
		}
	}
	if len(short) == 0 {
		return
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("integration tests cannot run here; go test ./... skips them and still prints ok:\n")
	for _, p := range short {
		tests, err := testsCalling(root, p.pkg, p.fn)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "- %s\n", strings.Join(p.missing, "; "))
		fmt.Fprintf(&b, "  skipped: %s\n", describe(tests))
		fmt.Fprintf(&b, "  fix: %s\n", p.fix)
	}
	b.WriteString("or accept the skips knowingly: BRIDLE_SKIP_INTEGRATION=1 go test ./...\n")
	b.WriteString("(scripts/test.sh builds and installs both, and fails if any of these tests skips.)")
	if os.Getenv("BRIDLE_SKIP_INTEGRATION") == "1" {
		t.Skip("BRIDLE_SKIP_INTEGRATION=1: " + b.String())
	}
	t.Fatal(b.String())
}

// describe renders "N tests in P packages: pkg: TestA, TestB; pkg2: ...".
func describe(tests map[string][]string) string {
	var pkgs []string
	n := 0
	for p, ts := range tests {
		pkgs = append(pkgs, p)
		n += len(ts)
	}
	sort.Strings(pkgs)
	var parts []string
	for _, p := range pkgs {
		parts = append(parts, p+": "+strings.Join(tests[p], ", "))
	}
	return fmt.Sprintf("%d tests in %d packages (%s)", n, len(pkgs), strings.Join(parts, "; "))
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// testsCalling returns, by package directory (relative to root), the Test
// functions in _test.go files that call pkg.fn directly or through helpers
// of the same directory: the tests that skip when fn's prerequisite is
// missing. Calls are matched by name, which is enough for test helpers.
func testsCalling(root, pkg, fn string) (map[string][]string, error) {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || name == "node_modules" || name == "vendor" ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		tests, err := dirTestsCalling(path, module+"/"+rel, pkg, fn)
		if err != nil {
			return err
		}
		if len(tests) > 0 {
			out[rel] = tests
		}
		return nil
	})
	return out, err
}

func dirTestsCalling(dir, importPath, pkg, fn string) ([]string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	calls := map[string]map[string]bool{} // function or method name → names it calls
	direct := map[string]bool{}           // calls pkg.fn itself
	var tests []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		alias := ""
		for _, imp := range file.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == pkg {
				alias = pkg[strings.LastIndex(pkg, "/")+1:]
				if imp.Name != nil {
					alias = imp.Name.Name
				}
			}
		}
		inPkg := importPath == pkg && !strings.HasSuffix(file.Name.Name, "_test")
		for _, decl := range file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			if fd.Recv == nil && strings.HasPrefix(name, "Test") && name != "TestMain" {
				tests = append(tests, name)
			}
			if calls[name] == nil {
				calls[name] = map[string]bool{}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch f := c.Fun.(type) {
				case *ast.Ident:
					if inPkg && f.Name == fn {
						direct[name] = true
					}
					calls[name][f.Name] = true
				case *ast.SelectorExpr:
					if x, ok := f.X.(*ast.Ident); ok && alias != "" && x.Name == alias && f.Sel.Name == fn {
						direct[name] = true
					}
					calls[name][f.Sel.Name] = true
				}
				return true
			})
		}
	}
	reaches := direct
	for changed := true; changed; {
		changed = false
		for name, callees := range calls {
			if reaches[name] {
				continue
			}
			for c := range callees {
				if reaches[c] {
					reaches[name], changed = true, true
					break
				}
			}
		}
	}
	var out []string
	for _, t := range tests {
		if reaches[t] {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out, nil
}

// TestFindsTheTestsThatSkip guards the message's list: the scan must still
// see the tests behind each helper, directly (giteatest's own test) and
// through a helper of the package (proposals' newGiteaEnv).
func TestFindsTheTestsThatSkip(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	gitea, err := testsCalling(root, module+"/internal/giteatest", "Shared")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(gitea["internal/giteatest"], ","); got != "TestStarts" {
		t.Errorf("internal/giteatest: %q, want TestStarts", got)
	}
	if !contains(gitea["proposals"], "TestGiteaProposeAndMerge") || contains(gitea["proposals"], "TestMain") {
		t.Errorf("proposals: %q", gitea["proposals"])
	}
	agents, err := testsCalling(root, module+"/internal/agentclients", "Bin")
	if err != nil {
		t.Fatal(err)
	}
	if !contains(agents["enforce"], "TestRealCodexExecpolicy") {
		t.Errorf("enforce: %q", agents["enforce"])
	}
	if _, ok := agents["proposals"]; ok {
		t.Errorf("proposals does not use the agent CLIs: %q", agents["proposals"])
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
