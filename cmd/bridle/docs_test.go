package main

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
)

// markdownFiles are the repository's Markdown files, as slash paths from
// its root: everything but third_party, node_modules, testdata and dot
// directories (.git).
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "third_party" || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".md") {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// mdDoc is what the link check needs of one Markdown file: its links and
// the anchors its headings (and explicit ids) make.
type mdDoc struct {
	links   []mdLink
	anchors map[string]bool
}

type mdLink struct {
	dest string
	line int
}

var htmlIDRe = lazyregexp.New(`(?i)<a\s+(?:name|id)="([^"]+)"`)

// parseMarkdown reads src as GitHub does (GFM): links and images outside
// code, and a GitHub-style slug per heading, numbered when repeated.
func parseMarkdown(src []byte) mdDoc {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	root := md.Parser().Parse(text.NewReader(src))
	doc := mdDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	lineOf := func(n ast.Node) int {
		for c := n; c != nil; c = c.Parent() {
			if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
				return 1 + strings.Count(string(src[:c.Lines().At(0).Start]), "\n")
			}
		}
		return 0
	}
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			doc.links = append(doc.links, mdLink{string(n.Destination), lineOf(n)})
		case *ast.Image:
			doc.links = append(doc.links, mdLink{string(n.Destination), lineOf(n)})
		case *ast.Heading:
			slug := githubSlug(plainText(n, src))
			if k := seen[slug]; k > 0 {
				doc.anchors[fmt.Sprintf("%s-%d", slug, k)] = true
			} else {
				doc.anchors[slug] = true
			}
			seen[slug]++
		}
		return ast.WalkContinue, nil
	})
	for _, m := range htmlIDRe.Regexp().FindAllSubmatch(src, -1) {
		doc.anchors[string(m[1])] = true
	}
	return doc
}

// plainText is a heading's text as rendered: code spans' contents, link
// texts, no markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// githubSlug is GitHub's (and Gitea's) anchor for a heading: lower case,
// letters, digits, '-' and '_' kept, spaces made '-', the rest dropped.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestGithubSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Trust model: who can change what":   "trust-model-who-can-change-what",
		"The gateway: bridle serve":          "the-gateway-bridle-serve",
		"Reaching a gateway (--server)":      "reaching-a-gateway---server",
		"Text in the rules, and markdown":    "text-in-the-rules-and-markdown",
		"Memory & patterns":                  "memory--patterns",
		"BRIDLE_TOKEN_CLAUDE":                "bridle_token_claude",
		"bridle agents add":                  "bridle-agents-add",
		"  Prüfung der Überschrift  ":        "prüfung-der-überschrift",
		"Speed: 1,000 guardrails in ~31 ms?": "speed-1000-guardrails-in-31-ms",
	} {
		if got := githubSlug(in); got != want {
			t.Errorf("githubSlug(%q) = %q, want %q", in, got, want)
		}
	}
}

// checkLinks reports every relative link of files (slash paths from root)
// whose file does not exist, or whose #anchor no heading of the target
// Markdown file makes. Links with a scheme (https:, mailto:) are not
// followed.
func checkLinks(root string, files []string) []string {
	docs := map[string]mdDoc{}
	read := func(p string) (mdDoc, error) {
		if d, ok := docs[p]; ok {
			return d, nil
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return mdDoc{}, err
		}
		d := parseMarkdown(src)
		docs[p] = d
		return d, nil
	}
	var problems []string
	for _, file := range files {
		d, err := read(file)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, l := range d.links {
			u, err := url.Parse(l.dest)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: %v", file, l.line, l.dest, err))
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue
			}
			target := file
			if u.Path != "" {
				if strings.HasPrefix(u.Path, "/") {
					problems = append(problems, fmt.Sprintf("%s:%d: link %q is absolute: write it relative to the file", file, l.line, l.dest))
					continue
				}
				target = path.Clean(path.Join(path.Dir(file), u.Path))
				if strings.HasPrefix(target, "../") {
					problems = append(problems, fmt.Sprintf("%s:%d: link %q leaves the repository", file, l.line, l.dest))
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: link %q: no file %s", file, l.line, l.dest, target))
					continue
				}
			}
			if u.Fragment == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: an anchor in a file that is not Markdown", file, l.line, l.dest))
				continue
			}
			td, err := read(target)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: %v", file, l.line, l.dest, err))
				continue
			}
			if !td.anchors[u.Fragment] {
				var near []string
				for a := range td.anchors {
					near = append(near, a)
				}
				slices.Sort(near)
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: %s has no heading #%s (its anchors: %s)", file, l.line, l.dest, target, u.Fragment, strings.Join(near, " ")))
			}
		}
	}
	return problems
}

// TestDocLinks: no Markdown file of the repository links to a file that
// does not exist, or to an anchor no heading makes.
func TestDocLinks(t *testing.T) {
	root, _ := filepath.Abs("../..")
	files := markdownFiles(t, root)
	if !slices.Contains(files, "README.md") || !slices.Contains(files, "docs/getting-started.md") {
		t.Fatalf("the walk found %v: README.md or docs/getting-started.md missing", files)
	}
	for _, p := range checkLinks(root, files) {
		t.Error(p)
	}
}

// TestDocLinksCatch: the check finds each kind of broken link, and passes
// what GitHub resolves.
func TestDocLinksCatch(t *testing.T) {
	root := t.TempDir()
	write := func(name, body string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
		os.WriteFile(filepath.Join(root, name), []byte(body), 0o644)
	}
	write("docs/a.md", "# A page\n\n## Trust model: who changes what\n\n## Repeated\n\n## Repeated\n\n<a name=\"custom\"></a>\n")
	write("img/x.png", "png")
	for _, tc := range []struct {
		body string
		bad  bool
	}{
		{"[ok](docs/a.md)", false},
		{"[ok](docs/a.md#trust-model-who-changes-what)", false},
		{"[ok](docs/a.md#repeated-1)", false},
		{"[ok](docs/a.md#custom)", false},
		{"[ok](#local-heading)\n\n# Local heading", false},
		{"![ok](img/x.png)", false},
		{"[ok](docs/)", false},
		{"[ok](https://example.com/nowhere.md#x)", false},
		{"`[not a link](nowhere.md)`", false},
		{"```\n[not a link](nowhere.md)\n```", false},
		{"[bad](docs/b.md)", true},
		{"[bad](docs/a.md#trust-model)", true},
		{"[bad](docs/a.md#repeated-2)", true},
		{"[bad](#no-such-heading)", true},
		{"![bad](img/y.png)", true},
		{"[bad](/docs/a.md)", true},
		{"[bad](../outside.md)", true},
		{"[bad](img/x.png#frag)", true},
		{"| t |\n|---|\n| [bad](docs/c.md) |", true},
	} {
		write("README.md", tc.body+"\n")
		got := checkLinks(root, []string{"README.md"})
		if (len(got) > 0) != tc.bad {
			t.Errorf("%q: problems %q, want bad=%v", tc.body, got, tc.bad)
		}
	}
}

// TestDocAgentsIndex: docs/agents/README.md links every agent's page, so a
// new agent's page is found from the index.
func TestDocAgentsIndex(t *testing.T) {
	src, err := os.ReadFile("../../docs/agents/README.md")
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range parseMarkdown(src).links {
		linked[l.dest] = true
	}
	for _, a := range agents.All() {
		if !linked[a.Name+".md"] {
			t.Errorf("docs/agents/README.md does not link %s.md (%s)", a.Name, a.DisplayName)
		}
	}
}
