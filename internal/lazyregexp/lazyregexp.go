// Package lazyregexp is a regular expression compiled on first use, for
// package-level patterns: a package-level regexp.MustCompile runs in every
// bridle process before main (the hook before every tool call of an agent),
// whether the command uses the pattern or not, and patterns with counted
// repetitions ({0,63}) cost tens of microseconds to compile each.
//
// New promises what regexp.MustCompile does: a pattern that does not compile
// panics, on first use here. In a test binary New compiles at once, so a bad
// pattern fails the tests of the package that declares it. Go's own tools
// keep the same helper (cmd/go's internal/lazyregexp).
package lazyregexp

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// Regexp is a *regexp.Regexp compiled on first use; safe for concurrent use.
type Regexp struct {
	str  string
	once sync.Once
	rx   *regexp.Regexp
}

// New returns the pattern str, to be compiled on first use.
func New(str string) *Regexp {
	r := &Regexp{str: str}
	if inTest {
		r.re()
	}
	return r
}

var inTest = len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")

func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.str) })
	return r.rx
}

// Regexp is the compiled expression, for what the methods below do not cover.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

// String is the source text of the pattern; it compiles nothing.
func (r *Regexp) String() string { return r.str }

// The methods below are regexp.Regexp's.

func (r *Regexp) MatchString(s string) bool                  { return r.re().MatchString(s) }
func (r *Regexp) Match(b []byte) bool                        { return r.re().Match(b) }
func (r *Regexp) FindString(s string) string                 { return r.re().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int             { return r.re().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string       { return r.re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int     { return r.re().FindStringSubmatchIndex(s) }
func (r *Regexp) FindAllString(s string, n int) []string     { return r.re().FindAllString(s, n) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.re().FindAllStringIndex(s, n) }
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.re().ReplaceAllString(src, repl) }
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.re().ReplaceAllLiteralString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.re().Split(s, n) }
func (r *Regexp) SubexpIndex(name string) int    { return r.re().SubexpIndex(name) }
