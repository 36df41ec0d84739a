package compiler

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/bridle-dev/bridle/internal/mdsafe/mdtest"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const testCommit = "0123456789abcdef0123456789abcdef01234567"

// TestGolden compiles each testdata/golden/*.txtar case's bridle.yaml (the
// example case reads examples/runic-gateway/bridle.yaml), renders every
// agent twice to prove the output is byte-identical, and compares each file
// with the archive. go test ./compiler -run Golden -update rewrites them.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.txtar")
	if len(files) < 3 {
		t.Fatalf("found %d golden cases", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var src []byte
			var input []txtar.File
			for _, f := range ar.Files {
				if f.Name == "bridle.yaml" {
					src = f.Data
					input = append(input, f)
				}
			}
			if src == nil {
				if src, err = os.ReadFile("../examples/runic-gateway/bridle.yaml"); err != nil {
					t.Fatal(err)
				}
			}
			in := Input{Name: "bridle.yaml", Data: src, Source: Source{Kind: "git", Path: "bridle.yaml", Ref: "main", Commit: testCommit}}
			snap, diags := CompileBytes(in, "test")
			if snap == nil {
				t.Fatalf("compile failed:\n%s", diags.Error())
			}
			again, _ := CompileBytes(in, "test")
			a, _ := snap.JSON()
			b, _ := again.JSON()
			if !bytes.Equal(a, b) {
				t.Fatal("two compiles of the same input differ")
			}
			got := input
			for _, r := range snap.Renders {
				got = append(got, txtar.File{Name: r.Path, Data: []byte(r.Content)})
				checkOutline(t, &snap.Document, r)
			}
			if *update {
				ar.Files = got
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := map[string]string{}
			for _, f := range ar.Files {
				want[f.Name] = string(f.Data)
			}
			for _, f := range got {
				w, ok := want[f.Name]
				if !ok {
					t.Errorf("%s: not in the golden file (run with -update)", f.Name)
					continue
				}
				if diff := cmp.Diff(w, string(f.Data)); diff != "" {
					t.Errorf("%s differs from golden (-want +got):\n%s", f.Name, diff)
				}
				delete(want, f.Name)
			}
			for name := range want {
				t.Errorf("%s: in the golden file but not rendered", name)
			}
		})
	}
}

// checkOutline reads a render as GitHub does and checks that its structure
// is the one Bridle wrote: the headings are exactly the sections the
// renderer emitted, and the only HTML is the generated header — whatever
// the rules' text holds.
func checkOutline(t *testing.T, doc *schema.Document, r renderers.File) {
	t.Helper()
	o := mdtest.Parse(renderers.StripFrontMatter(r.Content))
	var want []string
	for _, s := range renderers.Explain(doc, r).Sections {
		want = append(want, strings.Repeat("#", s.Level)+" "+s.Heading)
	}
	if !slices.Equal(o.Headings, want) {
		t.Errorf("%s: headings as read by a markdown parser:\n%q\nsections the renderer wrote:\n%q", r.Path, o.Headings, want)
	}
	if !slices.Equal(o.Blocks, []string{"HTML block"}) {
		t.Errorf("%s: blocks besides the header: %q", r.Path, o.Blocks)
	}
}
