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
//   - CheckCommand and CheckPath never panic, never touch the file system
//     and are safe for concurrent use. They fail towards asking: a command
//     that cannot be parsed, or whose words cannot be known before it runs
//     ($VAR, $(…), globs), is asked about, never allowed, when a rule could
//     match it.
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
// substitutions anywhere. Matching is by whole words: the prefix
// "git push --force" matches git push --force origin but not
// git push --force-with-lease. Words are compared after the shell would
// have removed their quoting ('git' "push" --for\ce is git push --force).
// Before matching it
//   - drops leading environment assignments (FOO=1 git push --force);
//   - compares the program by name, so /usr/bin/git and ./git are git (a
//     prefix whose first word holds a / is compared as a cleaned path);
//   - looks through wrappers, matching both the wrapper's own words and the
//     command it runs: sudo, doas, env (with NAME=value words and -S), command,
//     builtin, exec, nohup, nice, time, timeout, setsid, stdbuf, ionice,
//     xargs and busybox (options the wrapper takes an argument for are
//     skipped with their argument);
//   - drops git's global options (git -C . push --force, git -c k=v push,
//     git --git-dir=x push), since git runs the subcommand after them;
//   - parses the string given to sh, bash, dash, zsh, ksh, mksh or ash
//     with -c, the words given to eval, a here-string or here-document fed
//     to a shell (bash <<< '…'), and env -S strings, recursively up to
//     MaxDepth nested shells; deeper nesting is asked about.
//
// A word it cannot know before the command runs ($VAR, $(…), $'…', brace
// expansions {a,b}) makes it ask, with the reason, when the words before it
// match a rule; an unquoted glob (--forc*) asks when it could expand to the
// rule's word. A program name it cannot know ($GIT push) asks whenever any
// command rule exists. A command it cannot parse asks, saying why.
//
// When path rules exist it also checks, best-effort, the files a command
// names: a redirection into (>, >>, &>, <>) a no_write file or from (<) a
// no_read file is forbidden; an argument naming a no_read file is
// forbidden (cat .env, cp .env x); an argument naming a no_write file is
// asked about, since a command that names a file may or may not write it;
// an argument with a glob that could expand to a protected file is asked
// about (cat .en?).
//
// # What CheckCommand does not catch
//
//   - Flags after other arguments: a prefix is a prefix, so
//     git push origin main --force does not match "git push --force" (list
//     "git push" under ask to catch every push).
//   - What a program does inside: scripts (bash deploy.sh, make, npm run),
//     git aliases, find -exec, watch, parallel, interpreters' own code
//     (python -c "os.system('…')"), shell aliases and functions defined
//     elsewhere, and commands read from files (source x, . x).
//   - Wrapper options it does not know to take an argument (they are taken
//     as flags) and wrappers not in the list above.
//   - For paths: cd is not followed (paths are taken relative to the project
//     root), absolute paths and paths leaving the project are not checked,
//     dynamic redirection targets (> "$OUT") are not checked, and the glob
//     heuristic compares against one sample path per protected glob.
//
// A Claude Code PreToolUse hook that calls CheckCommand and CheckPath
// covers what its static permission rules miss (NeedsHook lists those
// entries); Codex has no such hook, so Report says what its rules miss.
package enforce
