// Package enforce is the agent-neutral model of the guardrails the agents
// enforce themselves (a guardrail's enforce: block), its checks, and its
// translations into each agent's native rules.
//
// New selects, for one agent, the hard-instruction and enforcement
// guardrails that apply to it and turns their enforce blocks into Entries:
// a command prefix to forbid or ask about, or a path glob not to read or
// write, each keeping its guardrail's id and statement.
//
// Promises:
//   - New refuses (ErrInvalid) any entry that validation would refuse, so a
//     document that never passed validation cannot produce a rule file that
//     means something else than it says.
//   - CheckCommand, CheckCommandWith and CheckPath never panic and are
//     safe for concurrent use; CheckCommand and CheckPath never touch the
//     file system, CheckCommandWith only through the CheckOptions.Resolve
//     it is given. They fail towards asking: a command that cannot be
//     parsed, or whose words cannot be known before it runs ($VAR, $(…),
//     globs), is asked about, never allowed, when a rule could match it.
//     ClaudeHook reads the file system only to resolve links.
//   - Bridle's own files (SelfProtected: .claude/settings.json,
//     .claude/settings.local.json, .claude/bridle.json, .codex/rules/**)
//     are implicit no_write entries of every Rules, even one without
//     entries, attributed to the guardrail bridle-owned-files. They are not
//     in Entries, Claude or Report: renderers add them to an agent's deny
//     list themselves.
//   - Output is deterministic and byte-stable: entries are sorted by
//     guardrail id, kind, verdict and pattern; Claude and Codex output is
//     sorted and deduplicated the same way for the same document.
//   - Codex output quotes every string so that no statement — quotes,
//     backslashes, line breaks, control characters — can leave its string.
//
// # What CheckCommand catches
//
// The command is parsed as bash (mvdan.cc/sh/v3/syntax) and every simple
// command in it is checked on its own: the parts of a && b, a || b, a; b,
// a | b and a & b, subshells and { …; } groups, bodies of if, for, while,
// case and functions, and command substitutions $(…) and `…` and process
// substitutions anywhere. Words are compared after the shell would have
// removed their quoting and decoded $'…' escapes ('git' "push" --for\ce
// and $'--forc\x65' are git push --force).
//
// A command rule ("rm -rf", "git push --force", "chmod -R 777") is read as
// a program, the subcommand words after it, the options it gives and the
// operands after its first option or --, and a simple command matches it
// by meaning, not by spelling, when
//   - it runs the same program, compared by name, so /usr/bin/git and ./git
//     are git (a rule whose first word holds a / is compared as a cleaned
//     path);
//   - the rule's subcommand words come first, in order, among the
//     command's operands (git push, npm publish, chmod 777); a word that may
//     be the value of an option Bridle does not know is skipped
//     (npm --loglevel x publish is npm publish);
//   - every option the rule gives is among the command's options before
//     --, in any order, with any others: short options clustered or not
//     (-rf, -fr, -r -f, -vrf); for the programs whose options Bridle knows,
//     in any of their spellings (rm -R, --recursive and, but for curl, any
//     prefix of a long option, counted as every option it may abbreviate:
//     --recu, --r; curl -XDELETE, --request=DELETE), with the options that
//     imply them (git push --force-with-lease, --force-if-includes,
//     --mirror and a +refspec are force pushes, a :refspec a delete; git
//     branch -D is -d -f; cp -a is -r), and with the options that take a
//     value known, so that a value is not read as an option (git push
//     -o -f, git clean -ef, git commit -m -n give none);
//   - the rule's other operands (the / of "rm -r /") are among the
//     command's operands, paths compared cleaned (//, /. and /tmp/.. are
//     /; build/ is build).
//
// Bridle knows the options of rm, chmod (whose -w, -rx are modes), chown,
// chgrp, cp, mv, ln and curl, and of git push, reset, clean, checkout,
// branch and commit. For any other program -abc is -a -b -c when it is
// letters and digits, --name=value is --name with the value, and any
// other word starting with - is one option; find, go, java, terraform and
// tofu take every -word as one option. An option the rule gives a value
// matches only that value (curl -X DELETE). After -- every word is an
// operand (rm -- -rf removes a file named -rf).
//
// Before matching it
//   - drops leading environment assignments (FOO=1 git push --force);
//   - looks through wrappers, matching both the wrapper's own words and the
//     command it runs: sudo, doas, env (with NAME=value words and -S), command,
//     builtin, exec, nohup, nice, time, timeout, setsid, stdbuf, ionice,
//     xargs and busybox (options the wrapper takes an argument for are
//     skipped with their argument);
//   - drops git's global options (git -C . push --force, git -c k=v push,
//     git --git-dir=x push), since git runs the subcommand after them;
//   - drops git's global options taking a value (-C, -c, --git-dir,
//     --work-tree, --namespace, --super-prefix, --config-env,
//     --attr-source); an unknown --option without = before the subcommand
//     is asked about, as are git aliases defined where Bridle sees them
//     (git -c alias.p=push, -c include.path, --config-env, GIT_CONFIG_*
//     assignments, git config alias.p …) when a rule starts with git;
//   - parses as code the string given to sh, bash, dash, zsh, ksh, mksh or
//     ash with -c, the words given to eval, a here-string or here-document
//     fed to a shell (bash <<< '…', bash /dev/stdin <<< '…'), env -S and
//     --split-string= strings, trap's command, mapfile's and readarray's -C
//     callback, alias values, PROMPT_COMMAND, and the expansions in PS0–PS4,
//     BASH_ENV and ENV values (set by NAME=value, export or env),
//     recursively up to MaxDepth nested shells; deeper nesting is asked
//     about;
//   - expands an alias the command itself defines (alias g=git; g push
//     --force is git push --force); an alias it cannot expand is asked
//     about;
//   - under xargs, which adds words it reads from its input, asks when the
//     command's words would match a rule with words added at their end
//     (echo -rf / | xargs rm under "rm -rf"), a shell without a -c string,
//     or a wrapper with no command.
//
// A word it cannot know before the command runs ($VAR, $(…), a $'…'
// string holding a %, brace expansions {a,b}) makes it ask, with the
// reason, when it could give what a rule the other words match lacks: the
// program or a subcommand word in its place, an option (any such word
// before --, and an unquoted one given as an option's value, which may be
// several words), an operand. An unquoted glob asks when it could expand to
// a word the rule needs (--forc*; rm * under "rm -rf", should a file be
// named -rf). A program name it cannot know ($GIT push) asks whenever any
// command rule exists. When the document has any rule of its own it also
// asks, saying why, about a command it cannot parse and about code it
// cannot see: a shell reading its program from a pipe, a process
// substitution or /dev/stdin (curl … | sh, sh -s, bash -); source or . of
// a process substitution, /dev/stdin or /dev/fd/N; ${x@P}; arithmetic
// ($((x)), ((…)), let, for ((…)), subscripts, slices, [[ x -eq y ]]) that
// names a variable, since bash evaluates a value such as a[$(cmd)] as code;
// declare -i and -n; a code variable set to an unknown value.
//
// It also checks, best-effort, the files a command names: a redirection
// into (>, >>, &>, >&, <>) a no_write file or from (<) a no_read file is
// forbidden, as is dd of= a no_write file; an argument naming a no_read
// file is forbidden (cat .env, cp .env x, cat {.env,x}: brace expansions
// of up to 64 words are expanded; git show HEAD:.env and :0:.env name
// .env); an argument naming a no_write file is asked about, since a
// command that names a file may or may not write it; an argument with a
// glob that could expand to a protected file is asked about (cat .en?). An
// argument names a file as a whole, after its first @ (curl -d @.env, gcc
// @.env, httpie's f@.env), after its first = (--data=@.env, dd if=.env,
// make F=.env; curl's -F f=@.env, f=<.env and f=@.env;type=…) and after
// any letter of a leading short option cluster, whose value may be
// attached (curl -d@.env, -T.env). The value of an assignment given to a
// command (ENV_FILE=.env make, export ENV_FILE=.env) names a file as an
// argument does. $f set to a literal earlier in the command (f=.env; cat
// $f) is checked as that literal; any other variable as an argument or a <
// source is asked about when no_read rules exist (echo, printf, test, cd
// and a few other builtins excepted). A recursive reader
// (grep -r, rg, ag, ack, tar, zip -r, cp -r, rsync, scp -r, find -exec,
// git grep, git archive) naming a directory that holds a no_read file —
// the project root, a parent of the glob — is asked about.
//
// CheckCommandWith with a CheckOptions.Resolve (ClaudeHook passes
// LinkResolver's) checks each of those files and directories also as what
// its symbolic links resolve to, as the file tools' paths are: cat
// link-to-env is cat .env, echo x > mlink/003.sql writes migrations/003.sql
// when mlink links to migrations. A link resolving outside the project is
// not checked, as an absolute path is not; a command naming more than 256
// paths is asked about.
//
// # Commands given to programs Bridle does not know
//
// A program that is not a wrapper or a shell may still run what it is
// given: ssh host rm -rf x, flock f …, chroot / …, su -c '…', find -exec,
// watch, parallel, script -c, an interpreter's -c or -e code. Unless its
// arguments are data (echo, printf, test, [, true, false, :, grep, egrep,
// fgrep, rg, ag, ack, which, type, whereis, whatis, man, info, help,
// apropos, hash, cd, pushd, popd, unset, exit, return, shift, wait, jobs,
// read), CheckCommand asks about it — asks, since the program may not run
// it at all, under the guardrail of the rule — when
//   - a run of its arguments, from a word naming a rule's program (rm,
//     /bin/rm, ./rm) on, matches the rule for sure (ssh host rm -rf x, git
//     bisect run rm -rf x); the first operand of a program with
//     subcommands (docker, podman, npm, pnpm, yarn, cargo, go, kubectl,
//     helm, gh, pip, pip3, brew, apt, apt-get, dnf, yum, systemctl, make,
//     just) and git's subcommand are its own (docker rm -f x, git rm -rf
//     x);
//   - an argument, or the value of a key=value argument, holding a blank
//     or one of ;&|`$()<> holds, parsed as shell, a command that matches
//     the rule for sure, as CheckCommand finds it but with only command
//     rules applied and with what bash would run but Bridle cannot see not
//     asked about (ssh host 'cd x && rm -rf y', su -c '…', git -c
//     core.sshCommand='…', git rebase -x '…'); a string bash cannot
//     parse, such as another language's code, is read as words split at
//     anything but letters, digits and -_./+=:@~^, and a run of them
//     matching a rule for sure asks (python -c "os.system('rm -rf x')");
//   - a here-document or here-string it reads does (ssh host <<EOF,
//     python3 <<EOF; cat, tee, git and gh read them as text);
//   - a variable is set to such a string for a command (an assignment
//     before it, env NAME=…, export): GIT_SSH_COMMAND='rm -rf x' git fetch,
//     EDITOR=….
//
// The words of such a string — split at anything but letters, digits and
// -_./+=:@~^, and read as arguments are — that name a protected file are
// asked about (python3 -c "open('.env')", ssh host 'cat .env'), whatever
// rules the document has. The values of message options (-m, -am,
// --message, --body, --title, --description, --notes, --subject) are prose
// and are not looked into. A command checks at most 32 runs, or 4096 words
// in runs, and so does each string; past that it asks.
//
// # What CheckCommand does not catch
//
//   - Options of programs outside the list above, beyond the conventions
//     it names: their long forms, abbreviations and synonyms (kill -9 is
//     not kill -KILL or kill -s KILL), and values they take as the next
//     word, which are read as operands, or as options when they start
//     with -. An option undone by a later one still counts (git push
//     --force --no-force, rm -rf -i). Options set elsewhere (git config
//     push.default, a remote's mirror setting, aliases) are not seen; list
//     "git push" under ask to catch every push.
//   - What a program does inside beyond what it is given as above: scripts
//     (bash deploy.sh, bash < x.sh, make, npm run), git aliases already in
//     a git configuration file, shell aliases and functions defined
//     elsewhere, commands read from files (source x, . x, BASH_ENV is
//     asked about but its file is not read), code that builds a command
//     from pieces (python -c "os.system('r'+'m -rf x')"), what a program
//     is given in a word holding an expansion (ssh host "rm -rf $D") or a
//     run that only might match (ssh host rm $FLAGS x), commands a
//     program other than a shell reads from a pipe (echo 'rm -rf x' | ssh
//     host), and a protected file named inside a string given to a data
//     program (grep 'cat .env' notes is allowed; grep x .env is not).
//   - Code bash runs that Bridle does not model: variables set by read,
//     printf -v, getopts or a nameref before a prompt or arithmetic uses
//     them, test -v / [[ -v ]] on a subscripted name, ${!x} indirection,
//     and anything this list does not name. Arithmetic on literal numbers
//     and [ x -eq y ] (test does not evaluate arithmetic) are allowed.
//   - Files a command reads through stdin it does not name (find . |
//     xargs cat, ls | xargs cat), writes by recursive programs (tar x,
//     rsync into the project, unzip, git checkout), and $(…) as a file
//     name (cat $(echo .env)); the command substitution itself is checked.
//   - Wrapper options it does not know to take an argument (they are taken
//     as flags) and wrappers not in the list above.
//   - For paths: cd is not followed (paths are taken relative to the project
//     root), absolute paths and paths leaving the project are not checked,
//     dynamic redirection targets (> "$OUT") are not checked, the glob
//     heuristic compares against one sample path per protected glob, and
//     symbolic links are resolved only with a Resolve (not by CheckCommand
//     or the check_command tool): cat link-to-env passes them.
//
// A Claude Code PreToolUse hook (ClaudeHook) that calls CheckCommandWith
// (with LinkResolver) and CheckPath covers what its static permission rules
// miss (NeedsHook lists those entries): it checks the Read, Edit, Write,
// MultiEdit, NotebookEdit, Grep and Glob tools' paths as given and with
// symbolic links resolved (a link to .env is .env; a path resolving outside
// the project is asked about), and asks about a Grep over a directory
// holding a no_read file its glob may match. Codex has no such hook, so
// Report says what its rules miss.
package enforce
