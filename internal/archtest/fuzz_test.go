package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryFuzzTargetRuns: every Fuzz function in the repository is in
// scripts/test.sh's fuzz list (as package:FuzzName), so a new parser's fuzz
// target runs in CI, not only when someone remembers it.
func TestEveryFuzzTargetRuns(t *testing.T) {
	script, err := os.ReadFile("../../scripts/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	root := "../.."
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "third_party", "node_modules", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(b), -1) {
			target := filepath.ToSlash(rel) + ":" + m[1]
			if !regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(target) + `(\s|;|$)`).Match(script) {
				t.Errorf("%s is not in scripts/test.sh's fuzz list", target)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
