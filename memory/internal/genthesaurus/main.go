// Command genthesaurus writes memory/thesaurus.txt, the query-expansion
// table of the offline search: for a word people use, the words code uses
// for the same thing.
//
//	go run ./memory/internal/genthesaurus -o memory/thesaurus.txt
//
// Two sources, merged:
//   - WordNet 3.0 (Debian's wordnet-base; its licence allows shipping a
//     derived table): a word w expands to a word t of w's most common sense
//     when code says t far more often than w (t's count among
//     the identifier parts of the Go standard library is at least 20 and
//     four times w's): picture → image, mistake → error.
//   - programming.txt beside this file: relations WordNet does not know
//     (hook → middleware), written by hand and general, not per question.
//
// The output is sorted and deterministic for the same inputs.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bridle-dev/bridle/memory"
)

func main() {
	wn := flag.String("wordnet", "/usr/share/wordnet", "WordNet dict directory (apt install wordnet-base)")
	src := flag.String("src", filepath.Join(goroot(), "src"), "Go source tree whose identifiers are the code's vocabulary")
	seed := flag.String("seed", "memory/internal/genthesaurus/programming.txt", "hand-written programming relations")
	out := flag.String("o", "memory/thesaurus.txt", "output")
	flag.IntVar(&nSenses, "senses", nSenses, "a word's most common senses that expand")
	flag.IntVar(&minCount, "min", minCount, "least count of an expansion in the code's vocabulary")
	flag.IntVar(&ratio, "ratio", ratio, "how many times more often code must say the expansion than the word")
	flag.IntVar(&maxExp, "max", maxExp, "most expansions of one word")
	flag.Parse()
	if err := run(*wn, *src, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genthesaurus:", err)
		os.Exit(1)
	}
}

// The rule's parameters (chosen on the tuning half of memory/testdata).
var (
	nSenses  = 1
	minCount = 20
	ratio    = 4
	maxExp   = 3
)

func goroot() string {
	if r := os.Getenv("GOROOT"); r != "" {
		return r
	}
	return "/usr/local/go"
}

// vocabulary counts the identifier parts of every non-test Go file under src.
func vocabulary(src string) (map[string]int, error) {
	counts := map[string]int{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var s scanner.Scanner
		fset := token.NewFileSet()
		s.Init(fset.AddFile(p, -1, len(data)), data, nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.IDENT {
				for _, t := range memory.Terms(lit) {
					counts[t]++
				}
			}
		}
		return nil
	})
	return counts, err
}

// wordnet reads the synsets of nouns and verbs: each lemma's senses in
// order of frequency, and each synset's lemmas.
func wordnet(dir string) (senses map[string][]string, synsets map[string][]string, err error) {
	senses, synsets = map[string][]string{}, map[string][]string{}
	for _, pos := range []string{"noun", "verb"} {
		err := records(filepath.Join(dir, "index."+pos), 6, func(fs []string) {
			n, _ := strconv.Atoi(fs[2])
			offs := fs[len(fs)-min(n, len(fs)):]
			for _, o := range offs[:min(nSenses, len(offs))] {
				senses[fs[0]] = append(senses[fs[0]], pos+o)
			}
		})
		if err != nil {
			return nil, nil, err
		}
		err = records(filepath.Join(dir, "data."+pos), 4, func(fs []string) {
			n, _ := strconv.ParseInt(fs[3], 16, 32)
			for i := 0; i < int(n) && 4+2*i < len(fs); i++ {
				synsets[pos+fs[0]] = append(synsets[pos+fs[0]], strings.ToLower(fs[4+2*i]))
			}
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return senses, synsets, nil
}

// records calls each with the fields of every record line of a WordNet
// database file (the licence header's lines start with a space) that has at
// least minFields fields.
func records(path string, minFields int, each func(fields []string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, " ") {
			continue
		}
		if fs := strings.Fields(l); len(fs) >= minFields {
			each(fs)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

func single(w string) bool {
	if len(w) < 3 {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func run(wn, src, seed, out string) error {
	counts, err := vocabulary(src)
	if err != nil {
		return fmt.Errorf("read the vocabulary: %w", err)
	}
	senses, synsets, err := wordnet(wn)
	if err != nil {
		return fmt.Errorf("read wordnet: %w", err)
	}
	table := map[string][]string{}
	add := func(w, t string) {
		if w != t && !slices.Contains(table[w], t) {
			table[w] = append(table[w], t)
		}
	}
	for w, ss := range senses {
		if !single(w) {
			continue
		}
		for _, s := range ss {
			for _, t := range synsets[s] {
				if single(t) && t != w && counts[t] >= minCount && counts[t] >= ratio*counts[w] {
					add(w, t)
				}
			}
		}
	}
	for w, ts := range table { // the most used first, at most three
		slices.SortFunc(ts, func(a, b string) int {
			if counts[a] != counts[b] {
				return counts[b] - counts[a]
			}
			return strings.Compare(a, b)
		})
		table[w] = ts[:min(maxExp, len(ts))]
	}
	data, err := os.ReadFile(seed)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		w, ts, ok := strings.Cut(l, ":")
		if !ok {
			return fmt.Errorf("%s: want \"word: expansions\", got %q", seed, l)
		}
		for _, t := range strings.Fields(ts) {
			add(strings.TrimSpace(w), t)
		}
	}
	words := slices.Sorted(func(yield func(string) bool) {
		for w := range table {
			if !yield(w) {
				return
			}
		}
	})
	var b strings.Builder
	b.WriteString("# Generated by memory/internal/genthesaurus from WordNet 3.0 and programming.txt; do not edit.\n")
	b.WriteString("# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. (WordNet licence: use,\n# copy, modify and distribute permitted with this notice.)\n")
	for _, w := range words {
		fmt.Fprintf(&b, "%s: %s\n", w, strings.Join(table[w], " "))
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}
