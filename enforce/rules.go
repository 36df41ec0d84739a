package enforce

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/schema"
)

// ErrInvalid is returned by New for an enforce entry that validation would
// refuse.
var ErrInvalid = errors.New("invalid enforce entry")

// Verdict is what a check decides.
type Verdict string

// The verdicts, weakest first.
const (
	Allow  Verdict = "allow"
	Ask    Verdict = "ask"
	Forbid Verdict = "forbid"
)

// Op is what is done to a file.
type Op int

// The file operations a path rule restricts.
const (
	Read Op = iota + 1
	Write
)

func (o Op) String() string {
	switch o {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Kind says what an Entry restricts.
type Kind string

// The kinds of entry.
const (
	Command Kind = "command"
	Path    Kind = "path"
)

// Entry is one enforce entry of one guardrail.
type Entry struct {
	Guardrail string  // the guardrail's id
	Statement string  // the guardrail's statement
	Kind      Kind    // Command or Path
	Verdict   Verdict // Forbid or Ask for a command; Forbid for a path
	Op        Op      // Read or Write, for a path
	// Pattern is the command prefix, its words separated by one space, or
	// the cleaned glob (no leading ./).
	Pattern string

	words []string
	pat   *pattern // the words read for matching by meaning
}

// String names the entry as the document does, e.g. commands.forbid "git push --force".
func (e Entry) String() string {
	if e.Kind == Path {
		if e.Op == Read {
			return fmt.Sprintf("paths.no_read %q", e.Pattern)
		}
		return fmt.Sprintf("paths.no_write %q", e.Pattern)
	}
	return fmt.Sprintf("commands.%s %q", e.Verdict, e.Pattern)
}

// Rules are the enforce entries that apply to one agent.
type Rules struct {
	agent    string
	commands []Entry
	paths    []Entry
	checked  []Entry // paths, then selfEntries: what the checks apply
}

// SelfProtectedGuardrail and SelfProtectedStatement attribute the implicit
// no_write entries every Rules has for Bridle's own files.
const (
	SelfProtectedGuardrail = "bridle-owned-files"
	SelfProtectedStatement = "Bridle's own files (the agents' permission rules and hooks) are changed only by bridle render."
)

var selfGlobs = []string{".claude/settings.json", ".claude/settings.local.json", ".claude/bridle.json", ".codex/rules/**"}

// SelfProtected returns the globs of Bridle's own files (the agents'
// permission rules and hook configuration), relative to the project root.
// CheckPath and CheckCommand forbid writing them whatever the document
// says; they are not in Entries, Claude or Report, so a renderer adds them
// to an agent's deny list itself (Edit(./.claude/settings.json)).
func SelfProtected() []string { return slices.Clone(selfGlobs) }

var selfEntries = func() []Entry {
	es := make([]Entry, len(selfGlobs))
	for i, g := range selfGlobs {
		es[i] = Entry{Guardrail: SelfProtectedGuardrail, Statement: SelfProtectedStatement, Kind: Path, Verdict: Forbid, Op: Write, Pattern: g}
	}
	return es
}()

// pathRules are the path entries the checks apply: the document's, then
// Bridle's own files.
func (r *Rules) pathRules() []Entry {
	if r.checked == nil {
		return selfEntries
	}
	return r.checked
}

// New collects the enforce entries of the guardrails in d that apply to
// agent. Guidance guardrails may not carry one (validation refuses it);
// New refuses them too, with every other invalid entry, wrapping
// ErrInvalid.
func New(d *schema.Document, agent string) (*Rules, error) {
	r := &Rules{agent: agent}
	var errs []error
	for _, g := range d.Guardrails {
		if g.Enforce.IsZero() || !g.AppliesToAgent(agent) {
			continue
		}
		if g.Severity != schema.HardInstruction && g.Severity != schema.Enforcement {
			errs = append(errs, fmt.Errorf("new rules: guardrail %s: enforce on a %s rule: %w", g.ID, g.Severity, ErrInvalid))
			continue
		}
		add := func(list []string, k Kind, v Verdict, op Op) {
			for _, s := range list {
				e := Entry{Guardrail: g.ID, Statement: g.Statement, Kind: k, Verdict: v, Op: op}
				if k == Command {
					if problem, _ := schema.CommandPrefixProblem(s); problem != "" {
						errs = append(errs, fmt.Errorf("new rules: guardrail %s: command %q %s: %w", g.ID, s, problem, ErrInvalid))
						continue
					}
					e.words = schema.CommandWords(s)
					e.Pattern = strings.Join(e.words, " ")
					e.pat = compilePattern(e.words)
					r.commands = append(r.commands, e)
					continue
				}
				if problem, _ := schema.PathGlobProblem(s); problem != "" {
					errs = append(errs, fmt.Errorf("new rules: guardrail %s: glob %q %s: %w", g.ID, s, problem, ErrInvalid))
					continue
				}
				e.Pattern = schema.CleanGlob(s)
				r.paths = append(r.paths, e)
			}
		}
		add(g.Enforce.Commands.Forbid, Command, Forbid, 0)
		add(g.Enforce.Commands.Ask, Command, Ask, 0)
		add(g.Enforce.Paths.NoRead, Path, Forbid, Read)
		add(g.Enforce.Paths.NoWrite, Path, Forbid, Write)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sortEntries(r.commands)
	sortEntries(r.paths)
	r.commands = slices.CompactFunc(r.commands, sameEntry)
	r.paths = slices.CompactFunc(r.paths, sameEntry)
	r.checked = append(slices.Clip(r.paths), selfEntries...)
	return r, nil
}

func sameEntry(a, b Entry) bool { return compareEntries(a, b) == 0 }

func compareEntries(a, b Entry) int {
	return cmp.Or(
		cmp.Compare(a.Guardrail, b.Guardrail),
		cmp.Compare(a.Kind, b.Kind),
		-cmp.Compare(rank(a.Verdict), rank(b.Verdict)), // forbid first
		cmp.Compare(a.Op, b.Op),
		cmp.Compare(a.Pattern, b.Pattern),
	)
}

func sortEntries(es []Entry) { slices.SortFunc(es, compareEntries) }

func rank(v Verdict) int {
	switch v {
	case Forbid:
		return 2
	case Ask:
		return 1
	}
	return 0
}

// Agent is the agent the rules were built for.
func (r *Rules) Agent() string { return r.agent }

// Entries returns every entry: commands, then paths, each sorted by
// guardrail id, verdict (forbid first) and pattern.
func (r *Rules) Entries() []Entry {
	return append(slices.Clone(r.commands), r.paths...)
}

// Decision is the outcome of a check.
type Decision struct {
	Verdict   Verdict `json:"verdict"`
	Guardrail string  `json:"guardrail,omitempty"` // the deciding guardrail's id; empty when no rule decided
	Statement string  `json:"statement,omitempty"` // its statement
	Matched   string  `json:"matched,omitempty"`   // the prefix or glob that matched
	// Command is the simple command (its words as checked, after wrappers
	// and assignments were looked through) or the path that was decided on.
	Command string `json:"command,omitempty"`
	// Reason says why, in a sentence, when the verdict is not allow.
	Reason string `json:"reason,omitempty"`
}

// String is the sentence an agent is shown, e.g.
// "forbidden by guardrail no-force-push: Never force-push. (git push --force origin matches "git push --force")".
func (d Decision) String() string {
	switch d.Verdict {
	case Allow:
		return "allowed"
	case Forbid:
		return fmt.Sprintf("forbidden by guardrail %s: %s (%s)", d.Guardrail, d.Statement, d.Reason)
	}
	if d.Guardrail == "" {
		return "needs approval: " + d.Reason
	}
	return fmt.Sprintf("needs approval under guardrail %s: %s (%s)", d.Guardrail, d.Statement, d.Reason)
}
