package enforce

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// ruleDoc is a document with one guardrail, "g", forbidding the command
// prefix rule.
func ruleDoc(rule string) string {
	return "schema_version: 1\nproject: {id: demo}\nguardrails:\n" +
		"  - {id: g, statement: s, severity: enforcement, enforce: {commands: {forbid: [\"" + rule + "\"]}}}\n"
}

// optionEquivalents: per rule, spellings that mean it (each must be
// forbidden) and spellings that do not (none may be forbidden).
var optionEquivalents = []struct {
	rule string
	same []string
	not  []string
}{
	{"rm -rf", []string{
		"rm -rf x", "rm -Rf x", "rm -r -f x", "rm -f -r x", "rm --recursive --force x", "rm -rfv x", "rm -vrf x",
		"rm -fr x", "rm x -rf", "rm -r x -f", "rm -R --force x", "rm --force -R x", "rm --recu --forc x", "rm --r --f x",
		"/bin/rm -rf x", "rm --interactive=never -rf x", "rm -rf -- x", "rm -d -r -v -f x", "sudo rm -Rf x",
		"bash -c 'rm -r -f x'", "FOO=1 rm --force --recursive x", "rm -R -R -f x", "rm $'-rf' x", "rm $'\\x2drf' x",
	}, []string{
		"rm -r x", "rm -f x", "rm -- -rf", "rm x", "rm -d x", "rm -rv x", "rm -- -r -f", "rm --rf x",
	}},
	{"rm -r /", []string{"rm -r /", "rm -R /", "rm --recursive /", "rm -fr /", "rm -r x /", "rm / -r", "rm -rf -- /",
		"rm -r //", "rm -r /.", "rm -r /tmp/..", "rm -r '/'"},
		[]string{"rm -r /tmp", "rm /", "rm -f /", "rm -r /x"}},
	{"rm -r build", []string{"rm -r build", "rm -r build/", "rm -r ./build", "rm -r build/."}, []string{"rm -r build2", "rm -r src/build"}},
	{"git push --force", []string{
		"git push --force", "git push -f", "git push origin main --force", "git push origin -f main",
		"git push --force-with-lease", "git push --force-with-lease=main:abc origin", "git push --force-if-includes --force-with-lease",
		"git push origin +main", "git push origin +HEAD:refs/heads/main", "git push -uf origin main", "git push -fu origin main",
		"git push --forc origin", "git -C . push origin main -f", "git push -o ci.skip -f", "git push --push-option=x --force",
		"git push --mirror", "git push --repo=origin -f", "git --no-pager push -q -f", "git push --force -- main",
	}, []string{
		"git push origin main", "git push -o -f origin", "git push --push-option -f origin", "git push --dry-run origin",
		"git push -n", "git push origin -- -f", "git push origin main:main", "git push --no-force", "git pull --force",
		"git push --repo -f",
	}},
	{"git push --force-with-lease", []string{"git push --force-with-lease", "git push --force-with-lease=main origin", "git push origin --force-w"},
		[]string{"git push --force", "git push -f", "git push origin +main"}},
	{"git reset --hard", []string{
		"git reset --hard", "git reset --hard HEAD~1", "git reset HEAD~1 --hard", "git reset -q --hard", "git reset --har",
		"git -c x=y reset --hard", "git reset --hard -- ",
	}, []string{"git reset --soft HEAD~1", "git reset HEAD --", "git reset -- --hard", "git reset x"}},
	{"git clean -fd", []string{
		"git clean -fd", "git clean -df", "git clean -f -d", "git clean -d -f", "git clean --force -d", "git clean -dfx",
		"git clean -xdf", "git clean -d --force -x", "git clean -ffd", "git clean -d -e x -f", "git clean --exclude=x -fd",
		"git clean -fd -- src",
	}, []string{"git clean -n -d", "git clean -f", "git clean -d", "git clean -ef -d", "git clean -e -f -d", "git clean -- -fd"}},
	{"chmod -R", []string{
		"chmod -R 755 x", "chmod 755 -R x", "chmod --recursive u+x d", "chmod -vR 644 d", "chmod -Rv go-w d",
		"chmod -cR a+r d", "chmod --recur 700 d", "chmod -Rw d",
	}, []string{"chmod 755 x", "chmod -r x", "chmod -w x", "chmod -rwx x", "chmod -- -R x"}},
	{"chmod 777", []string{"chmod 777 x", "chmod -R 777 x", "chmod -v 777 x"}, []string{"chmod 755 777", "chmod x 777"}},
	{"git branch -D", []string{
		"git branch -D x", "git branch -d -f x", "git branch --delete --force x", "git branch -df x", "git branch x -D",
		"git branch -fd x",
	}, []string{"git branch -d x", "git branch -f x y", "git branch --delete x"}},
	{"git checkout -- .", []string{"git checkout -- .", "git checkout .", "git checkout HEAD -- .", "git checkout -f -- ."},
		[]string{"git checkout main", "git checkout -b x"}},
	{"git commit --no-verify", []string{"git commit --no-verify -m x", "git commit -n -m x", "git commit -am x -n", "git commit -nm x"},
		[]string{"git commit -m x", "git commit -m -n", "git commit -F -n"}},
	{"curl -X DELETE", []string{"curl -X DELETE u", "curl -XDELETE u", "curl --request DELETE u", "curl --request=DELETE u", "curl u -X DELETE", "curl -sX DELETE u"},
		[]string{"curl -X GET u", "curl u", "curl -d DELETE u"}},
	{"tar -xf", []string{"tar -xf a.tar", "tar -x -f a.tar", "tar -xvf a.tar", "tar -fx a.tar", "tar -C d -xf a.tar"},
		[]string{"tar -cf a.tar x", "tar -x"}},
	{"find -delete", []string{"find -delete", "find . -name x -delete", "find . -delete -print"},
		[]string{"find . -name x", "find . -depth -type d -exec x {} +", "find . -name -deleted"}},
	{"go test -race", []string{"go test -race ./...", "go test ./... -race", "go test -count=1 -race"},
		[]string{"go test -trace x ./...", "go test -r -a -c -e", "go test ./..."}},
	{"npm publish", []string{"npm publish", "npm --silent publish", "npm publish --tag next"},
		[]string{"npm install publish", "npm run publish"}},
}

// TestOptionsByMeaning: a rule's options are matched as options — short
// clusters split, long forms and abbreviations known, order free, extra
// options allowed.
func TestOptionsByMeaning(t *testing.T) {
	for _, tc := range optionEquivalents {
		r := load(t, ruleDoc(tc.rule), "claude")
		for _, cmd := range tc.same {
			if d := r.CheckCommand(cmd); d.Verdict != Forbid {
				t.Errorf("%q: CheckCommand(%q) = %s (%s), want forbid", tc.rule, cmd, d.Verdict, d.Reason)
			}
		}
		for _, cmd := range tc.not {
			if d := r.CheckCommand(cmd); d.Verdict == Forbid {
				t.Errorf("%q: CheckCommand(%q) = forbid (%s), want no forbid", tc.rule, cmd, d.Reason)
			}
		}
	}
}

// respell writes one command meaning rule in a random spelling: each
// option in one of its spellings, short ones clustered or not, extra
// harmless options and operands, the order shuffled before "--".
type respell struct {
	rule   string
	prog   []string   // the program and its subcommand
	opts   [][]string // per required option, its spellings
	short  string     // short letters (with opts' order) that may be clustered: "" when none
	extras []string   // harmless extra options
	tail   []string   // operands
}

var respells = []respell{
	{"rm -rf", []string{"rm"}, [][]string{{"-r", "-R", "--recursive", "--recur", "--r"}, {"-f", "--force", "--forc", "--f"}}, "rf", []string{"-v", "-d", "--verbose", "--one-file-system", "-i"}, []string{"x", "y/z"}},
	{"git push --force", []string{"git", "push"}, [][]string{{"-f", "--force", "--force-with-lease", "--force-with-lease=main", "--forc", "--mirror"}}, "f", []string{"-u", "-q", "--tags", "-o ci.skip", "--push-option=x", "--repo=origin"}, []string{"origin", "main"}},
	{"git reset --hard", []string{"git", "reset"}, [][]string{{"--hard", "--har"}}, "", []string{"-q", "--quiet"}, []string{"HEAD~1"}},
	{"git clean -fd", []string{"git", "clean"}, [][]string{{"-f", "--force", "--forc"}, {"-d"}}, "fd", []string{"-x", "-q", "-e x", "--exclude=y"}, []string{"src"}},
	{"chmod -R", []string{"chmod"}, [][]string{{"-R", "--recursive", "--recu"}}, "R", []string{"-v", "-c", "--verbose"}, []string{"755", "d"}},
	{"git branch -D", []string{"git", "branch"}, [][]string{{"-d", "--delete", "--del"}, {"-f", "--force"}}, "df", []string{"-q", "-r"}, []string{"topic"}},
}

// spell builds a random spelling of rs from rng; drop, when >= 0, leaves
// out that required option.
func (rs respell) spell(rng *rand.Rand, drop int) string {
	var parts []string
	cluster := ""
	for i, spellings := range rs.opts {
		if i == drop {
			continue
		}
		s := spellings[rng.IntN(len(spellings))]
		if len(s) == 2 && strings.Contains(rs.short, s[1:]) && rng.IntN(2) == 0 {
			cluster += s[1:]
			continue
		}
		parts = append(parts, s)
	}
	if cluster != "" {
		if rng.IntN(2) == 0 && rs.prog[0] == "rm" {
			cluster += "v" // a harmless flag in the cluster
		}
		parts = append(parts, "-"+cluster)
	}
	for _, e := range rs.extras {
		if rng.IntN(3) == 0 {
			parts = append(parts, e)
		}
	}
	parts = append(parts, rs.tail...)
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return strings.Join(append(append([]string{}, rs.prog...), parts...), " ")
}

// TestRespellings: many random spellings of each rule get the same
// verdict; leaving out one of its options never gets the rule's forbid.
func TestRespellings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rs := range respells {
		r := load(t, ruleDoc(rs.rule), "claude")
		for range 200 {
			checkRespelling(t, r, rs, rng)
		}
	}
}

func checkRespelling(t *testing.T, r *Rules, rs respell, rng *rand.Rand) {
	t.Helper()
	cmd := rs.spell(rng, -1)
	if d := r.CheckCommand(cmd); d.Verdict != Forbid {
		t.Fatalf("%q: CheckCommand(%q) = %s (%s), want forbid", rs.rule, cmd, d.Verdict, d.Reason)
	}
	drop := rng.IntN(len(rs.opts))
	cmd = rs.spell(rng, drop)
	if d := r.CheckCommand(cmd); d.Verdict == Forbid {
		t.Fatalf("%q: CheckCommand(%q) = forbid (%s), but it lacks %s", rs.rule, cmd, d.Reason, rs.opts[drop][0])
	}
}

// FuzzRespellings: equivalent spellings, chosen by the fuzzer, get the
// rule's verdict.
func FuzzRespellings(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s, s+1)
	}
	rules := make([]*Rules, len(respells))
	for i, rs := range respells {
		rules[i] = load(f, ruleDoc(rs.rule), "claude")
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		rng := rand.New(rand.NewPCG(a, b))
		i := rng.IntN(len(respells))
		checkRespelling(t, rules[i], respells[i], rng)
	})
}
