package enforce

import (
	"strings"
	"sync"
)

// How an option takes a value.
const (
	noValue   = iota
	needValue // the rest of its cluster (-ovalue), =value (--opt=value) or the next word
	optValue  // only attached: -ovalue or --opt=value
	modeValue // chmod's -w, -rx: the rest of the cluster is a mode operand
)

// optDef is what one spelling of an option means to a program.
type optDef struct {
	names []string // its meanings, e.g. {"delete", "force"} for git branch -D
	value int
}

// optSpec is the option table of a program (or of a git subcommand) whose
// options the checker knows.
type optSpec struct {
	short map[byte]optDef
	long  map[string]optDef // without the leading --
	// abbrev: a long option may be shortened to any prefix that names
	// it (getopt_long, git), as rm --recu does.
	abbrev bool
	// whole: a single-dash word is one option (find -delete, go -race),
	// never a cluster.
	whole bool
	// refspecs: git push, where +ref forces a push and :ref deletes.
	refspecs bool
}

// newSpec builds a table from definitions such as
// "-r -R --recursive =recursive": the spellings, then after = the
// meanings (comma-separated; by default the first long spelling's name).
// A spelling ending in = takes a value; in [=], an attached value only;
// in ~, a mode (chmod).
func newSpec(abbrev bool, defs ...string) *optSpec {
	s := &optSpec{short: map[byte]optDef{}, long: map[string]optDef{}, abbrev: abbrev}
	for _, d := range defs {
		var spellings, names []string
		for _, f := range strings.Fields(d) {
			if strings.HasPrefix(f, "=") {
				names = strings.Split(f[1:], ",")
			} else {
				spellings = append(spellings, f)
			}
		}
		if names == nil {
			name := spellings[0]
			for _, sp := range spellings {
				if strings.HasPrefix(sp, "--") {
					name = sp
					break
				}
			}
			names = []string{strings.TrimRight(strings.TrimLeft(name, "-"), "[=]~")}
		}
		for _, sp := range spellings {
			value := noValue
			switch {
			case strings.HasSuffix(sp, "[=]"):
				sp, value = strings.TrimSuffix(sp, "[=]"), optValue
			case strings.HasSuffix(sp, "="):
				sp, value = strings.TrimSuffix(sp, "="), needValue
			case strings.HasSuffix(sp, "~"):
				sp, value = strings.TrimSuffix(sp, "~"), modeValue
			}
			def := optDef{names: names, value: value}
			if strings.HasPrefix(sp, "--") {
				s.long[sp[2:]] = def
			} else {
				s.short[sp[1]] = def
			}
		}
	}
	return s
}

// specs caches the option tables built so far, by program (git's by
// subcommand, "git push"): each is built the first time a rule or command
// names its program, not all of them for the first (a hook that checks one
// command for two guardrails built two dozen tables).
var specs sync.Map // string → *optSpec

// specFor is the option table of a rule or command: its program's, or for
// git its subcommand's; nil when the checker does not know it.
func specFor(prog, sub string) *optSpec {
	name := prog
	if prog == "git" {
		name = "git " + sub
	}
	if s, ok := specs.Load(name); ok {
		return s.(*optSpec)
	}
	s := buildSpec(name)
	if s == nil {
		return nil // not cached: commands name any program they like
	}
	got, _ := specs.LoadOrStore(name, s)
	return got.(*optSpec)
}

// buildSpec is the option table of the program (or git subcommand) name,
// nil for one the checker does not know.
func buildSpec(name string) *optSpec {
	switch name {
	case "rm":
		return newSpec(true, "-r -R --recursive =recursive", "-f --force =force", "-i =interactive", "-I =interactive-once",
			"--interactive[=] =interactive-when", "-d --dir =dir", "-v --verbose =verbose", "--one-file-system", "--no-preserve-root",
			"--preserve-root[=]")
	case "chmod":
		return newSpec(true, append(chmodModes(), "-R --recursive =recursive", "-c --changes", "-f --silent --quiet =silent",
			"-v --verbose", "--reference=", "--preserve-root", "--no-preserve-root")...)
	case "chown", "chgrp":
		return newSpec(true, "-R --recursive =recursive", "-c --changes", "-f --silent --quiet =silent", "-v --verbose",
			"-h --no-dereference", "--dereference", "-H", "-L", "-P", "--from=", "--reference=", "--preserve-root", "--no-preserve-root")
	case "cp":
		return newSpec(true, "-r -R --recursive =recursive", "-a --archive =archive,recursive", "-f --force =force",
			"-i --interactive", "-n --no-clobber", "-t= --target-directory=", "-S= --suffix=", "-T --no-target-directory",
			"-v --verbose", "-u", "--update[=]", "-l --link", "-s --symbolic-link", "-b", "--backup[=]", "-p", "--preserve[=]",
			"--no-preserve=", "-d", "-L --dereference", "-P --no-dereference", "-H", "-x --one-file-system", "--reflink[=]",
			"--sparse=", "--remove-destination", "--parents", "--strip-trailing-slashes", "--attributes-only")
	case "mv":
		return newSpec(true, "-f --force =force", "-i --interactive", "-n --no-clobber", "-t= --target-directory=", "-S= --suffix=",
			"-T --no-target-directory", "-u", "--update[=]", "-v --verbose", "-b", "--backup[=]", "--strip-trailing-slashes")
	case "ln":
		return newSpec(true, "-s --symbolic =symbolic", "-f --force =force", "-n --no-dereference", "-T --no-target-directory",
			"-t= --target-directory=", "-S= --suffix=", "-b", "--backup[=]", "-i --interactive", "-v --verbose", "-r --relative",
			"-L --logical", "-P --physical")
	case "curl":
		return newSpec(false, "-X= --request= =request",
			"-d= --data= --data-binary= --data-raw= --data-ascii= --data-urlencode= --json= =data", "-F= --form= --form-string= =form",
			"-T= --upload-file= =upload-file", "-o= --output= =output", "-O --remote-name", "-H= --header=", "-u= --user=",
			"-A= --user-agent=", "-e= --referer=", "-b= --cookie=", "-c= --cookie-jar=", "-x= --proxy=", "-K= --config=",
			"-w= --write-out=", "-m= --max-time=", "-r= --range=", "-E= --cert=", "-C= --continue-at=", "-D= --dump-header=",
			"-Q= --quote=", "-Y= --speed-limit=", "-y= --speed-time=", "-z= --time-cond=", "-t= --telnet-option=", "-U= --proxy-user=",
			"-P= --ftp-port=", "--url=", "--connect-timeout=", "--retry=", "--cacert=", "--key=", "--resolve=", "--data-urlencode=",
			"-k --insecure", "-L --location", "-s --silent", "-S --show-error", "-f --fail", "-v --verbose", "-i --include",
			"-I --head", "-G --get", "-N --no-buffer", "-#")
	// Programs whose single-dash words are whole options.
	case "find", "go", "java", "terraform", "tofu":
		return &optSpec{whole: true}
	case "git push":
		s := newSpec(true, "-f --force =force", "--force-with-lease[=] =force-with-lease,force",
			"--force-if-includes =force-if-includes,force", "--mirror =mirror,force", "-d --delete =delete",
			"-n --dry-run =dry-run", "--no-verify", "--verify", "-u --set-upstream", "--all", "--branches", "--tags",
			"--follow-tags", "--prune", "--atomic", "--porcelain", "--thin", "--no-thin", "-q --quiet", "-v --verbose",
			"--progress", "-4 --ipv4", "-6 --ipv6", "-o= --push-option= =push-option", "--repo= =repo",
			"--receive-pack= --exec= =receive-pack", "--recurse-submodules=", "--signed[=]")
		s.refspecs = true
		return s
	case "git reset":
		return newSpec(true, "--hard", "--soft", "--mixed", "--merge", "--keep", "-q --quiet", "-p --patch",
			"-N --intent-to-add", "--pathspec-from-file=", "--pathspec-file-nul", "--recurse-submodules[=]", "--no-refresh")
	case "git clean":
		return newSpec(true, "-f --force =force", "-d =dir", "-x =ignored", "-X =only-ignored", "-n --dry-run =dry-run",
			"-q --quiet", "-i --interactive =interactive", "-e= --exclude= =exclude")
	case "git checkout":
		return newSpec(true, "-f --force =force", "-b= =branch", "-B= =reset-branch", "--orphan=", "-t --track[=]",
			"--no-track", "-p --patch", "-m --merge", "--ours", "--theirs", "-q --quiet", "--detach", "--conflict=",
			"--pathspec-from-file=", "--overlay", "--no-overlay", "--ignore-other-worktrees", "--recurse-submodules[=]")
	case "git branch":
		return newSpec(true, "-d --delete =delete", "-D =delete,force", "-f --force =force", "-m --move =move",
			"-M =move,force", "-c --copy =copy", "-C =copy,force", "-r --remotes", "-a --all", "-l --list", "-v --verbose",
			"-q --quiet", "-u= --set-upstream-to=", "--unset-upstream", "--contains[=]", "--no-contains[=]", "--merged[=]",
			"--no-merged[=]", "--format=", "--sort=", "--points-at=", "--show-current", "--edit-description", "-t --track[=]",
			"--no-track")
	case "git commit":
		return newSpec(true, "-n --no-verify =no-verify", "--verify", "-a --all =all", "--amend =amend",
			"-m= --message= =message", "-F= --file= =file", "-C= --reuse-message=", "-c= --reedit-message=", "--fixup=",
			"--squash=", "--author=", "--date=", "-t= --template=", "--cleanup=", "-s --signoff", "-S --gpg-sign[=]",
			"-q --quiet", "-v --verbose", "-u --untracked-files[=]", "-e --edit", "--no-edit", "-p --patch", "-i --include",
			"-o --only", "--allow-empty", "--allow-empty-message", "--dry-run", "--pathspec-from-file=", "-z --null", "--trailer=")
	}
	return nil
}

// chmodModes are chmod's symbolic and octal modes, which look like options
// (-w, -x, -755).
func chmodModes() []string {
	var modes []string
	for _, ch := range "rwxXstugoa01234567" {
		modes = append(modes, "-"+string(ch)+"~")
	}
	return modes
}

// longDef is what the long option name (without --) means: its own entry,
// or, where abbreviations are allowed, every entry it is a prefix of.
func (s *optSpec) longDef(name string) (optDef, bool) {
	if s == nil {
		return optDef{}, false
	}
	if d, ok := s.long[name]; ok {
		return d, true
	}
	if !s.abbrev || name == "" {
		return optDef{}, false
	}
	var out optDef
	found, allValue := false, true
	for full, d := range s.long {
		if !strings.HasPrefix(full, name) {
			continue
		}
		found = true
		for _, n := range d.names {
			if !contains(out.names, n) {
				out.names = append(out.names, n)
			}
		}
		if d.value != needValue {
			allValue = false
		}
	}
	if !found {
		return optDef{}, false
	}
	// An abbreviation of options that differ in taking a value is
	// ambiguous, which the program refuses; taking no value here only
	// lets the next word count as an operand.
	if allValue {
		out.value = needValue
	} else {
		out.value = optValue
	}
	return out, true
}

// opt is one option a command (or a rule) gives: a meaning from its
// program's table, or its spelling ("-x", "--long") when the table does
// not know it.
type opt struct {
	name     string
	value    string
	hasValue bool
	pos      int // the index of its word, counting the program as 0
}

// operand is a word that is not an option.
type operand struct {
	w   word
	pos int // its index in the words parsed, counting the program as 0
	// afterOpt: it follows an option the table does not know, so it may be
	// that option's value.
	afterOpt bool
}

// parsedArgs are a command's words after its program, read as options and
// operands.
type parsedArgs struct {
	opts     []opt
	operands []operand
	// dyn is the first word before -- whose value cannot be known: it may
	// be any option. dynPos is its index, counting the program as 0.
	dyn    string
	dynPos int
	// globs are the unquoted globs before --, which may expand to options.
	globs []word
	// endPos is the index of the --, counting the program as 0; 0 when
	// there is none.
	endPos int
}

func (p *parsedArgs) has(want opt) bool {
	for _, o := range p.opts {
		if o.name == want.name && (!want.hasValue || o.hasValue && o.value == want.value) {
			return true
		}
	}
	return false
}

// isCluster reports whether s (after its dash) is a cluster of short
// options a program the checker does not know may take: letters and
// digits only.
func isCluster(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

// parseArgs reads args (the words after the program) as options and
// operands by spec, or, when spec is nil, by the conventions most
// programs share: -abc is -a -b -c, --name=value is --name with a value,
// and -- ends the options.
func parseArgs(spec *optSpec, args []word) parsedArgs {
	var p parsedArgs
	endOpts, unknown := false, false
	addOperand := func(w word, i int) {
		p.operands = append(p.operands, operand{w: w, pos: i + 1, afterOpt: unknown})
		unknown = false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dynamic != "" {
			if !endOpts && p.dyn == "" {
				p.dyn, p.dynPos = a.dynamic, i+1
			}
			addOperand(a, i)
			continue
		}
		v := a.lit
		if !endOpts && a.glob {
			p.globs = append(p.globs, a)
		}
		switch {
		case endOpts || len(v) < 2 || v[0] != '-' || a.glob:
			if spec != nil && spec.refspecs && len(v) > 1 && (v[0] == '+' || v[0] == ':') {
				name := "force"
				if v[0] == ':' {
					name = "delete"
				}
				p.opts = append(p.opts, opt{name: name, pos: i + 1})
				if v[0] == '+' {
					a.lit = v[1:]
				}
			}
			addOperand(a, i)
			continue
		case v == "--":
			endOpts, unknown, p.endPos = true, false, i+1
			continue
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v[2:], "=")
			def, ok := spec.longDef(name)
			if !ok {
				p.opts = append(p.opts, opt{name: "--" + name, value: val, hasValue: eq, pos: i + 1})
				unknown = !eq
				continue
			}
			unknown = false
			pos := i + 1
			if def.value == needValue && !eq && i+1 < len(args) {
				i++
				val, eq = args[i].lit, args[i].dynamic == ""
				p.valueWord(args[i], i, endOpts)
			}
			for _, n := range def.names {
				p.opts = append(p.opts, opt{name: n, value: val, hasValue: eq, pos: pos})
			}
			continue
		}
		// A single dash.
		if spec == nil && !isCluster(v[1:]) || spec != nil && spec.whole {
			name, val, eq := strings.Cut(v, "=")
			p.opts = append(p.opts, opt{name: name, value: val, hasValue: eq, pos: i + 1})
			unknown = !eq
			continue
		}
		unknown = false
		pos := i + 1
		for j := 1; j < len(v); j++ {
			ch := v[j]
			def, ok := spec.shortDef(ch)
			if !ok {
				p.opts = append(p.opts, opt{name: "-" + string(ch), pos: pos})
				unknown = j == len(v)-1
				continue
			}
			if def.value == modeValue {
				p.operands = append(p.operands, operand{w: word{lit: "-" + v[j:]}, pos: pos})
				break
			}
			val, has := "", false
			switch {
			case def.value != noValue && j+1 < len(v):
				val, has = v[j+1:], true
			case def.value == needValue && i+1 < len(args):
				i++
				val, has = args[i].lit, args[i].dynamic == ""
				p.valueWord(args[i], i, endOpts)
			}
			for _, n := range def.names {
				p.opts = append(p.opts, opt{name: n, value: val, hasValue: has, pos: pos})
			}
			if def.value != noValue {
				break
			}
		}
	}
	return p
}

// valueWord notes an option's value taken from the next word: an
// unquoted expansion there may give more words than one, options among
// them.
func (p *parsedArgs) valueWord(w word, i int, endOpts bool) {
	if w.dynamic != "" && w.split && !endOpts && p.dyn == "" {
		p.dyn, p.dynPos = w.dynamic, i+1
	}
}

func (s *optSpec) shortDef(ch byte) (optDef, bool) {
	if s == nil {
		return optDef{}, false
	}
	d, ok := s.short[ch]
	return d, ok
}
