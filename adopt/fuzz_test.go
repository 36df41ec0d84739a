package adopt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

// FuzzImport: whatever the files say, Import never panics, and either
// refuses them with one of its errors or returns a document that
// validates with no errors, without needing the validator's safety net
// (nothing is reported "refused").
func FuzzImport(f *testing.F) {
	dirs, _ := filepath.Glob("testdata/corpus/*")
	for _, dir := range dirs {
		for _, file := range readDir(f, dir) {
			f.Add(file.Path, string(file.Data))
		}
	}
	for _, s := range []string{
		"- Never x\n  - Always y\n    > z must\n", "```sh\nmake\n```", "<!-- x -->", "---\nglobs: a\n---\n- Never a.\n",
		"- `go test` — must\n- `go test` — never\n", "# h\n\n| a |\n|---|\n| `x` must |\n", "\xff\xfe\x00", "- \u202e Never\n",
		"prefix_rule(pattern=[\"a\", [\"b\"]], decision=\"forbidden\")", "prefix_rule(pattern=[\"a\"", `{"permissions":{"deny":["Bash(a:*)","Read(./../x)"]}}`,
		`{"permission":{"bash":{"a *":"deny"}}}`, "- Always `rm -rf /` \\\n- #x\n", "~~~\n~~~\n- Must `x`\n",
	} {
		f.Add("CLAUDE.md", s)
	}
	f.Add(".codex/rules/a.rules", "prefix_rule(pattern=[\"git\",\"push\"],decision=\"prompt\")\n")
	f.Add(".claude/settings.json", `{"permissions":{"deny":["Bash(git push:*)","Edit(./a/**)"],"ask":["Bash(x)"]},"hooks":{}}`)
	f.Add("opencode.json", `{"permission":{"bash":{"git push *":"ask"}},"mcp":{"a":{}}}`)
	f.Fuzz(func(t *testing.T, path, data string) {
		if path == "" || strings.Contains(path, "..") {
			path = "CLAUDE.md"
		}
		res, err := Import([]File{{Path: path, Data: []byte(data)}, {Path: "AGENTS.md", Data: []byte(data)}}, Options{Base: doc()})
		if err != nil {
			if !errors.Is(err, ErrSecret) && !errors.Is(err, ErrBinary) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		if _, diags := schema.Load("bridle.yaml", res.YAML); diags.HasErrors() {
			t.Fatalf("does not validate: %s\n%s", diags.Error(), res.YAML)
		}
		for _, l := range res.Lost {
			if l.What == "refused" {
				t.Fatalf("refused: %s %q", l.Why, l.Text)
			}
		}
	})
}

// BenchmarkImport: a 100 KB CLAUDE.md and five other files (the issue's
// budget is 50 ms).
func BenchmarkImport(b *testing.B) {
	files := benchFiles(b)
	n := 0
	for _, f := range files {
		n += len(f.Data)
	}
	b.SetBytes(int64(n))
	// As bridle import runs it: every line also checked by the redactor.
	o := Options{Base: doc(), Secret: redact.New("a-secret-value-of-the-environment", "another-one-0123456789").Check}
	if _, err := Import(files, o); err != nil { // the lazy set-up (the schema's validator) once
		b.Fatal(err)
	}
	// On a shared machine the clock counts other processes' turns too:
	// the process's CPU time per import is reported beside it.
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Import(files, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchFiles(tb testing.TB) []File {
	var big strings.Builder
	for i := 0; big.Len() < 100<<10; i++ {
		for _, dir := range []string{"go-service", "python-ml", "ts-monorepo", "java-service"} {
			b, err := os.ReadFile(filepath.Join("testdata/corpus", dir, firstMD(dir)))
			if err != nil {
				tb.Fatal(err)
			}
			// Each copy differs, so nothing merges: the worst case.
			big.WriteString(strings.ReplaceAll(string(b), "Never", "Never ("+strings.Repeat("x", i%7)+string(rune('a'+i%26))+")"))
			big.WriteString("\n")
		}
	}
	files := []File{{"CLAUDE.md", []byte(big.String())}}
	for _, p := range []string{"ts-monorepo/AGENTS.md", "python-ml/GEMINI.md", "rails-app/.github/copilot-instructions.md", "rust-cli/.cursorrules", "go-service/.claude/settings.json"} {
		b, err := os.ReadFile(filepath.Join("testdata/corpus", p))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, File{strings.SplitN(p, "/", 2)[1], b})
	}
	return files
}

func firstMD(dir string) string {
	if dir == "ts-monorepo" {
		return "AGENTS.md"
	}
	return "CLAUDE.md"
}
