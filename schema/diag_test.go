package schema

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var wantRe = regexp.MustCompile("# want (`[^`]*`(?: `[^`]*`)*)")

// TestDiagnostics loads each testdata/diag/*.txtar case's bridle.yaml and
// checks its diagnostics against the `# want` comments written on the lines
// they must point at, analysistest-style: every want must be matched by a
// diagnostic on that line, and every diagnostic must be wanted.
func TestDiagnostics(t *testing.T) {
	files, _ := filepath.Glob("testdata/diag/*.txtar")
	if len(files) == 0 {
		t.Fatal("no test cases")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var src []byte
			for _, f := range ar.Files {
				if f.Name == "bridle.yaml" {
					src = f.Data
				}
			}
			wants := map[int][]*regexp.Regexp{}
			for i, line := range strings.Split(string(src), "\n") {
				m := wantRe.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				for _, q := range regexp.MustCompile("`[^`]*`").FindAllString(m[1], -1) {
					wants[i+1] = append(wants[i+1], regexp.MustCompile(strings.Trim(q, "`")))
				}
			}
			_, diags := Load("bridle.yaml", src)
			for _, d := range diags {
				if d.File != "bridle.yaml" || d.Line < 1 || d.Col < 1 {
					t.Errorf("diagnostic without a position: %+v", d)
				}
				line := wants[d.Line]
				matched := false
				for i, re := range line {
					if re.MatchString(d.String()) {
						wants[d.Line] = append(line[:i:i], line[i+1:]...)
						matched = true
						break
					}
				}
				if !matched {
					t.Errorf("unexpected diagnostic: %s", d)
				}
			}
			for line, res := range wants {
				for _, re := range res {
					t.Errorf("line %d: no diagnostic matching %s; got:\n%s", line, re, fmt.Sprint(diags.Error()))
				}
			}
			// Determinism: the same input gives the same diagnostics.
			_, again := Load("bridle.yaml", src)
			if again.Error() != diags.Error() {
				t.Errorf("diagnostics differ between runs:\n%s\n---\n%s", diags.Error(), again.Error())
			}
		})
	}
}

// TestLimitCountsInWords: the diagnostic standing for those left out says
// how many in words that agree with the count ("1 more problem", not
// "1 more problems … 1 errors").
func TestLimitCountsInWords(t *testing.T) {
	ds := Diagnostics{{File: "f", Line: 1, Level: Error, Message: "a"}, {File: "f", Line: 2, Level: Error, Message: "b"}}
	if got, want := ds.Limit(1)[1].Message, "1 more problem not shown (1 error, 0 warnings)"; got != want {
		t.Errorf("Limit(1) = %q, want %q", got, want)
	}
	ds = append(ds, Diagnostic{File: "f", Line: 3, Level: Warning, Message: "c"})
	if got, want := ds.Limit(1)[1].Message, "2 more problems not shown (1 error, 1 warning)"; got != want {
		t.Errorf("Limit(1) = %q, want %q", got, want)
	}
}

// TestSharedOutput: two profiles rendering one file are refused; when
// their harnesses read only that file (Amp reads Codex's AGENTS.md), the
// fix says to keep one profile — a path of its own would be a file Amp
// never reads.
func TestSharedOutput(t *testing.T) {
	for _, c := range []struct{ profiles, fix string }{
		{"  codex: {}\n  reviewer: {}\n", "set agent_profiles.reviewer.output to a path of its own"},
		{"  codex: {}\n  amp: {}\n", "keep the profile of amp or of codex, not both"},
	} {
		src := "version: 1\nproject:\n  id: p\n  overview: A project.\nagent_profiles:\n" + c.profiles
		_, diags := Load("bridle.yaml", []byte(src))
		found := false
		for _, d := range diags {
			if strings.Contains(d.Message, "would both write AGENTS.md") {
				found = true
				if !strings.Contains(d.Fix, c.fix) {
					t.Errorf("%q: fix %q, want %q", c.profiles, d.Fix, c.fix)
				}
			}
		}
		if !found {
			t.Errorf("%q: no collision reported: %v", c.profiles, diags)
		}
	}
}
