package feed

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/internal/mdsafe"
	"github.com/bridle-dev/bridle/schema"
)

// Limits on what Extract returns.
const (
	MaxCandidates = 500 // per document, as many as a profile holds suggestions
	MaxStatement  = 300 // characters; a longer sentence is not a candidate
	MaxExcerpt    = 200 // characters, quotes included
	MaxID         = 60  // bytes
	minWords      = 2   // "Never." is not a rule; "Never guess." is
	maxPathItem   = 200 // characters of one heading in a HeadingPath
)

// Candidate is one rule a document states, for a human to review.
type Candidate struct {
	// ID is a slug of the statement (lower-case letters, digits and dashes,
	// at most MaxID bytes), unique within the document.
	ID string
	// Statement is the rule as one line ending with a full stop or an
	// exclamation mark, markdown-inert (mdsafe.Line leaves it unchanged).
	Statement string
	// Severity is hard-instruction for must, must not, never, always and do
	// not; guidance for should, should not, avoid and prefer. The strongest
	// keyword in the sentence decides.
	Severity schema.Severity
	// HeadingPath is where the sentence stands in the document.
	HeadingPath []string
	// Excerpt is the source sentence in double quotes, shortened with "…" to
	// at most MaxExcerpt characters.
	Excerpt string
}

// keywords finds the words that can make a sentence a rule. Code spans are
// blanked before it runs, so a keyword inside code does not count.
var keywords = lazyregexp.New(`(?i)\b(must(?:n't| not)?|should(?:n't| not)?|never|always|avoid|prefer|do not|don't)\b`)

// notSubjects are the words before a modal that make it describe rather
// than instruct: "it should work", "we must ship".
var notSubjects = map[string]bool{
	"it": true, "this": true, "that": true, "there": true, "which": true, "what": true, "who": true,
	"these": true, "those": true, "we": true, "i": true,
}

// clauseOpeners are words after which a clause starts.
var clauseOpeners = map[string]bool{"and": true, "but": true, "or": true, "then": true, "please": true, "also": true, "so": true}

// Extract returns the rules the blocks state, in document order: the
// sentences of paragraphs and list items that contain a keyword used as an
// instruction. A keyword counts when
//
//   - it opens the sentence (only punctuation, digits or markup before it)
//     or a clause (after , ; : a dash, or "and",
//     "but", "or", "then", "please", "also", "so"): "Never commit secrets.",
//     "If tests fail, do not merge.";
//   - it follows "you": "You should run the tests.";
//   - it is a modal (must, should and their negations) after any other
//     subject, unless the subject is a pronoun such as it, this, that, we,
//     or the modal is followed by "be": "The agent must ask first." counts,
//     "The tool should be installed by an administrator." and "It should
//     work." do not;
//   - it follows a keyword that counts: "Agents should never guess.".
//
// Not candidates: headings; blocks under a heading whose first word is
// example(s) or sample(s), or that start with "Example:"; questions;
// sentences wholly in quotation marks (quoted prompts); sentences of fewer
// than two words or over MaxStatement characters; sentences that are
// mostly URLs; a second sentence with the same words as an earlier one.
// Statements are made markdown-inert with mdsafe.Line; nothing in a
// sentence is acted on.
func Extract(blocks []Block) []Candidate {
	var out []Candidate
	seen := map[string]bool{} // normalised statements
	ids := map[string]bool{}  // IDs given
	for _, b := range blocks {
		if b.Kind == Heading || underExample(b) {
			continue
		}
		for _, s := range sentences(b.Text) {
			sev, ok := rule(s)
			if !ok {
				continue
			}
			st := statement(s)
			if utf8.RuneCountInString(st) > MaxStatement {
				continue
			}
			k := strings.Join(words(st), " ")
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, Candidate{
				ID:          uniqueID(st, ids),
				Statement:   st,
				Severity:    sev,
				HeadingPath: safePath(b.HeadingPath),
				Excerpt:     excerpt(s),
			})
			if len(out) == MaxCandidates {
				return out
			}
		}
	}
	return out
}

// underExample reports a block that illustrates rather than states.
func underExample(b Block) bool {
	if isExampleLabel(b.Text) && (strings.Contains(firstWordRaw(b.Text), ":") || len(strings.Fields(b.Text)) == 1) {
		return true
	}
	for _, h := range b.HeadingPath {
		if isExampleLabel(h) {
			return true
		}
	}
	return false
}

func isExampleLabel(s string) bool {
	switch strings.ToLower(strings.TrimFunc(firstWordRaw(s), func(r rune) bool { return !unicode.IsLetter(r) })) {
	case "example", "examples", "sample", "samples":
		return true
	}
	return false
}

func firstWordRaw(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// rule decides whether sentence s states a rule, and its severity.
func rule(s string) (schema.Severity, bool) {
	t := strings.TrimSpace(s)
	if t == "" || strings.HasSuffix(strings.TrimRight(t, closers), "?") || quoted(t) {
		return "", false
	}
	if len(strings.Fields(t)) < minWords || utf8.RuneCountInString(t) > MaxStatement || mostlyURLs(t) {
		return "", false
	}
	masked := strings.ReplaceAll(blankCode(t), "’", "'")
	hard, found := false, false
	prevEnd := -1 // end of the last keyword that counted
	for _, m := range keywords.FindAllStringIndex(masked, -1) {
		a, z := m[0], m[1]
		if z < len(masked) && masked[z] == '-' {
			continue // must-have, always-on
		}
		kw := strings.ToLower(masked[a:z])
		before := strings.TrimRight(masked[:a], " ")
		prev := lastWord(before)
		modal := strings.HasPrefix(kw, "must") || strings.HasPrefix(kw, "should")
		counts := false
		switch {
		case !strings.ContainsFunc(before, unicode.IsLetter) || opensClause(before) || clauseOpeners[prev]:
			counts = true
		case prev == "you":
			counts = true
		case prevEnd >= 0 && strings.TrimSpace(masked[prevEnd:a]) == "":
			counts = true
		case modal:
			counts = !notSubjects[prev] && firstWord(masked[z:]) != "be"
		}
		if !counts {
			continue
		}
		found, prevEnd = true, z
		switch kw {
		case "should", "should not", "shouldn't", "avoid", "prefer":
		default:
			hard = true
		}
	}
	if !found {
		return "", false
	}
	if hard {
		return schema.HardInstruction, true
	}
	return schema.Guidance, true
}

// opensClause reports text ending in a mark after which a clause starts.
func opensClause(before string) bool {
	r, _ := utf8.DecodeLastRuneInString(before)
	return strings.ContainsRune(",;:(-–—\"'“", r)
}

const closers = `"')]”’»`

// quoted reports a sentence wholly inside one pair of quotation marks.
func quoted(s string) bool {
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}, {"‘", "’"}, {"«", "»"}} {
		if strings.HasPrefix(s, q[0]) && len(s) > len(q[0])+len(q[1]) {
			inner := strings.TrimRight(s[len(q[0]):], ".!")
			if strings.HasSuffix(inner, q[1]) && !strings.Contains(strings.TrimSuffix(inner, q[1]), q[1]) {
				return true
			}
		}
	}
	return false
}

func mostlyURLs(s string) bool {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.Contains(f, "://") || strings.HasPrefix(strings.ToLower(f), "www.") {
			n += len(f)
		}
	}
	return n*2 > len(s)
}

func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	return strings.ToLower(s[i+1:])
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(strings.TrimFunc(f[0], func(r rune) bool { return !unicode.IsLetter(r) }))
}

// sentences splits block text after . ! or ? (and any closing quotes or
// brackets) where a space and then an upper-case letter, a digit or an
// opening quote, bracket or backtick follow; never inside a code span, and
// not after e.g., i.e., vs. or cf.
func sentences(text string) []string {
	inCode := codeMask(text)
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if inCode[i] || c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(text) && strings.ContainsRune(closers, rune(text[j])) {
			j++
		}
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !strings.ContainsRune(closers, r) || r < utf8.RuneSelf {
				break
			}
			j += n
		}
		if j >= len(text) || text[j] != ' ' {
			continue
		}
		next, _ := utf8.DecodeRuneInString(text[j+1:])
		if !unicode.IsUpper(next) && !unicode.IsDigit(next) && !strings.ContainsRune("\"'“‘(`[«", next) {
			continue
		}
		if c == '.' && abbreviation(text[start:i]) {
			continue
		}
		out = append(out, strings.TrimSpace(text[start:j]))
		start = j + 1
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func abbreviation(before string) bool {
	w := strings.ToLower(before[strings.LastIndexAny(before, " (")+1:])
	switch w {
	case "e.g", "i.e", "vs", "cf", "etc":
		return true
	}
	return false
}

// codeMask marks the bytes of text inside code spans (backticks included):
// a run of n backticks opens a span that the next run of exactly n closes.
// It is linear: each run's closer is found from a table built right to left.
func codeMask(text string) []bool {
	mask := make([]bool, len(text))
	type run struct{ at, n int }
	var runs []run
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := runOf(text, i)
		runs = append(runs, run{i, n})
		i += n
	}
	if len(runs) < 2 {
		return mask
	}
	next := make([]int, len(runs)) // the next run of the same length, or -1
	last := map[int]int{}
	for i := len(runs) - 1; i >= 0; i-- {
		next[i] = -1
		if j, ok := last[runs[i].n]; ok {
			next[i] = j
		}
		last[runs[i].n] = i
	}
	for i := 0; i < len(runs); i++ {
		j := next[i]
		if j < 0 {
			continue
		}
		for k := runs[i].at; k < runs[j].at+runs[j].n; k++ {
			mask[k] = true
		}
		i = j
	}
	return mask
}

func runOf(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// blankCode replaces the bytes of code spans with spaces.
func blankCode(s string) string {
	mask := codeMask(s)
	b := []byte(s)
	for i, in := range mask {
		if in {
			b[i] = ' '
		}
	}
	return string(b)
}

// statement cleans a sentence into a one-line rule: first letter upper
// case, a full stop unless it ends with one or an exclamation mark (a
// trailing , ; : or dash is replaced), markdown-inert.
func statement(s string) string {
	s = strings.TrimSpace(clean(s))
	s = strings.TrimRight(s, ",;:-–— ")
	core := strings.TrimRight(s, closers)
	if !strings.HasSuffix(core, ".") && !strings.HasSuffix(core, "!") {
		s += "."
	}
	if r, n := utf8.DecodeRuneInString(s); unicode.IsLower(r) {
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	return mdsafe.Line(s)
}

// excerpt quotes the source sentence, shortened to MaxExcerpt characters.
func excerpt(s string) string {
	s = clean(s)
	rs := []rune(s)
	for budget := MaxExcerpt - 2; ; budget -= 8 {
		body := s
		if len(rs) > budget {
			body = strings.TrimSpace(string(rs[:max(budget-1, 0)])) + "…"
		}
		q := mdsafe.Line(`"` + body + `"`)
		if utf8.RuneCountInString(q) <= MaxExcerpt || budget <= 8 {
			return q
		}
	}
}

func safePath(path []string) []string {
	out := make([]string, len(path))
	for i, h := range path {
		if rs := []rune(h); len(rs) > maxPathItem {
			h = string(rs[:maxPathItem-1]) + "…"
		}
		out[i] = mdsafe.Line(h)
	}
	return out
}

var nonSlug = lazyregexp.New(`[^a-z0-9]+`)

// slug makes an ID from a statement: accents and apostrophes dropped
// ("don't" → dont), lower case, every
// other run of characters a dash, cut at a dash to at most max bytes.
func slug(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) || r == '\'' || r == '’' {
			return -1
		}
		return r
	}, norm.NFD.String(s))
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > max {
		cut := s[:max]
		if i := strings.LastIndexByte(cut, '-'); i >= max/2 {
			cut = cut[:i]
		}
		s = strings.Trim(cut, "-")
	}
	if s == "" {
		s = "rule"
	}
	return s
}

// uniqueID returns the statement's slug, or, when an earlier statement of
// the document has it, the slug shortened and followed by six hex digits of
// the statement's SHA-256, so an ID does not depend on what precedes it.
func uniqueID(st string, ids map[string]bool) string {
	id := slug(st, MaxID)
	if ids[id] {
		sum := sha256.Sum256([]byte(st))
		h := hex.EncodeToString(sum[:])
		id = slug(st, MaxID-7) + "-" + h[:6]
		for i := 6; ids[id] && i < len(h); i++ {
			id = slug(st, MaxID-7) + "-" + h[i:i+6]
		}
	}
	ids[id] = true
	return id
}
