#!/usr/bin/env bash
# Bridle's start-up floor (issue 28): times bridle's short-lived commands from
# process start to exit beside `true`, a bare go-sdk MCP server and ruler, in
# one run, interleaved (bench/startup: every round runs each command once, in
# a new order, so load on the machine falls on all alike):
#   - bridle version (the binary's own start-up),
#   - bridle hook claude (Claude Code runs it before every tool call) on a
#     rules repository with enforce entries, to its decision,
#   - bridle render --all on the example, and ruler 0.3.44 writing the same
#     rules (npm; skipped without npm, or with SKIP_RULER=1),
#   - bridle mcp cold start to answered initialize + tools/list beside the
#     bare go-sdk server (bench/mcpstart, alternating, ROUNDS of 10 starts),
# with two floors beside them: the smallest Go program (bench/hello: the
# runtime's own start) and a binary linking only the packages the hook
# decides with (bench/hookfloor: what a hook binary of its own would pay),
# each with its minor page faults (the pages it touched first: the same under
# any load) and this machine's cost of one such page (bench/pagecost);
# then the package initialisation GODEBUG=inittrace=1 reports for bridle
# version, the instructions each command runs (callgrind: the same under
# any load), and the targets. With OLD_REF, bridle built at that commit runs
# beside this checkout's in the same run.
#
# Needs: go and git; npm for ruler; valgrind for the instruction counts.
# Usage: bench/startup.sh [OLD_REF] [RUNS] [ROUNDS]   (default: none, 40, 10)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
needs bench/startup.sh "go:$GO_HINT" "git:apt-get install git"
OLD="${1:-}" RUNS="${2:-40}" ROUNDS="${3:-10}"
WORK="$(mktemp -d)"
trap 'git worktree remove --force "$WORK/old-src" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
export BRIDLE_STATE_DIR="$WORK/state" BRIDLE_CACHE_DIR="$WORK/cache" BRIDLE_AGENT= CLAUDECODE= CODEX_SANDBOX=

echo "== building bridle$([ -n "$OLD" ] && echo " at $OLD and") at HEAD$(git diff --quiet || echo ' (with uncommitted changes)'), bench/startup, bench/baremcp, bench/mcpstart" >&2
go build -trimpath -o "$WORK/new" ./cmd/bridle
if [ -n "$OLD" ]; then
  git worktree add -q --detach "$WORK/old-src" "$OLD"
  (cd "$WORK/old-src" && go build -trimpath -o "$WORK/old" ./cmd/bridle)
fi
go build -trimpath -o "$WORK/startup" ./bench/startup
go build -trimpath -o "$WORK/baremcp" ./bench/baremcp
go build -trimpath -o "$WORK/mcpstart" ./bench/mcpstart
go build -trimpath -o "$WORK/hello" ./bench/hello
go build -trimpath -o "$WORK/hookfloor" ./bench/hookfloor
go build -trimpath -o "$WORK/pagecost" ./bench/pagecost
VERSIONS="new${OLD:+ old}"

# The example's rules, committed; the hook's rules (enforce entries) and the
# tool call it decides (a force-push, denied).
RULES="$WORK/rules"
rules_repo "$RULES"
mkdir -p "$WORK/hookrules"
awk '/^-- bridle.yaml --$/{on=1;next} /^-- /{on=0} on' compiler/testdata/golden/enforce.txtar > "$WORK/hookrules/bridle.yaml"
git -C "$WORK/hookrules" init -q -b main && git -C "$WORK/hookrules" add bridle.yaml \
  && git -C "$WORK/hookrules" -c user.name=bench -c user.email=bench@example.com commit -q -m rules
printf '%s\n' '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cd app && git push --force origin main"},"cwd":"/tmp"}' > "$WORK/in.json"

CMDS=(-cmd "true|-|true" -cmd "hello (Go floor)|-|$WORK/hello" -cmd "hook's packages only|-|$WORK/hookfloor")
for v in $VERSIONS; do
  "$WORK/$v" hook claude --rules "$WORK/hookrules" < "$WORK/in.json" > /dev/null # warm the compile cache
  mkdir -p "$WORK/out-$v"
  CMDS+=(-cmd "version ($v)|-|$WORK/$v version"
    -cmd "hook claude ($v)|$WORK/in.json|$WORK/$v hook claude --rules $WORK/hookrules"
    -cmd "render --all ($v)|-|$WORK/$v render --rules $RULES --all --out $WORK/out-$v")
done

# ruler 0.3.44 (as bench/render.sh): the example's rendered AGENTS.md body as
# its rules, written for Claude Code and Codex.
RULER=""
if command -v npm >/dev/null && [ -z "${SKIP_RULER:-}" ]; then
  echo "== installing ruler 0.3.44 from npm" >&2
  mkdir -p "$WORK/peers" "$WORK/ruler/.ruler"
  if (cd "$WORK/peers" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund @intellectronica/ruler@0.3.44 >/dev/null 2>&1); then
    RULER="$WORK/peers/node_modules/.bin/ruler"
    "$WORK/new" render --rules examples/runic-gateway --agent codex | sed '1,/-->/d' > "$WORK/ruler/.ruler/AGENTS.md"
    CMDS+=(-cmd "ruler apply|-|$RULER apply --project-root $WORK/ruler --agents claude,codex --no-mcp --no-gitignore --no-backup --no-skills")
  else
    echo "ruler: npm install failed; not measured" >&2
  fi
fi

echo "== whole processes, $RUNS interleaved rounds" >&2
"$WORK/startup" -runs "$RUNS" "${CMDS[@]}" | tee "$WORK/startup.txt"
echo "== this machine's price of a page a process touches first (bench/pagecost)"
"$WORK/pagecost"

echo "== mcp cold start to answered initialize + tools/list ($ROUNDS rounds of 10 starts, alternating)" >&2
for s in bare $VERSIONS; do : > "$WORK/mcp-$s.txt"; done
for _ in $(seq "$ROUNDS"); do
  for s in bare $VERSIONS; do
    if [ "$s" = bare ]; then set -- "$WORK/baremcp"; else set -- "$WORK/$s" mcp --rules "$RULES"; fi
    "$WORK/mcpstart" -runs 10 -name "$s" -- "$@" 2>/dev/null | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' >> "$WORK/mcp-$s.txt"
  done
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
MB=$(median "$WORK/mcp-bare.txt")
printf '%-28s %9s\n' "mcp cold start" "median of round medians"
printf '%-28s %6.2f ms\n' "bare go-sdk server" "$MB"
for v in $VERSIONS; do
  m=$(median "$WORK/mcp-$v.txt")
  printf '%-28s %6.2f ms %6.2f× bare\n' "bridle mcp ($v)" "$m" "$(awk "BEGIN {print $m / $MB}")"
done

echo "== package initialisation of bridle version (GODEBUG=inittrace=1)"
for v in $VERSIONS; do
  GODEBUG=inittrace=1 "$WORK/$v" version 2>&1 >/dev/null \
    | awk -v v="$v" '$1=="init" {n++; c+=$5; b+=$8; a+=$10} END {printf "%-6s %d packages, %.2f MB in %d allocations, %.1f ms by its clock\n", v, n, b/1e6, a, c}'
done

# Instructions, which load does not change (valgrind's callgrind, one
# thread, no asynchronous preemption: repeatable to ~1%), when valgrind is
# installed (apt-get install valgrind); SKIP_VALGRIND=1 skips them.
if command -v valgrind >/dev/null && [ -z "${SKIP_VALGRIND:-}" ]; then
  echo "== instructions (valgrind --tool=callgrind, GOMAXPROCS=1), millions"
  printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n' > "$WORK/mcp-in.jsonl"
  ins() { # ins STDIN CMD… : the instructions CMD runs
    GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "${@:2}" < "$1" 2>&1 >/dev/null \
      | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | awk '{printf "%.1f", $1 / 1e6}'
  }
  printf '%-8s %9s %9s %9s %9s\n' "" version hook "render" "mcp"
  printf '%-8s %9s %9s %9s %9s\n' "bare" "" "" "" "$(ins "$WORK/mcp-in.jsonl" "$WORK/baremcp")"
  for v in $VERSIONS; do
    "$WORK/$v" mcp --rules "$RULES" < "$WORK/mcp-in.jsonl" > /dev/null # its compile cache, warm
    printf '%-8s %9s %9s %9s %9s\n' "$v" "$(ins /dev/null "$WORK/$v" version)" \
      "$(ins "$WORK/in.json" "$WORK/$v" hook claude --rules "$WORK/hookrules")" \
      "$(ins /dev/null "$WORK/$v" render --rules "$RULES" --all --out "$WORK/out-$v")" \
      "$(ins "$WORK/mcp-in.jsonl" "$WORK/$v" mcp --rules "$RULES")"
  done
fi

# The targets of issue 28 (whole processes, medians of this run).
med() { awk -F'  +' -v want="$1" '$1==want {split($2, f, " "); print f[1]}' "$WORK/startup.txt"; }
V=$(med "version (new)") H=$(med "hook claude (new)") R=$(med "render --all (new)")
echo "== targets (HEAD)"
verdict() { awk "BEGIN {exit !($1)}" && echo met || echo "not met"; }
printf '%-44s %8s ms  %s\n' "bridle version ≤ 5 ms" "$V" "$(verdict "$V <= 5")"
printf '%-44s %8s ms  %s\n' "hook ≤ 8 ms" "$H" "$(verdict "$H <= 8")"
printf '%-44s %8s ms  %s\n' "render --all ≤ 8 ms" "$R" "$(verdict "$R <= 8")"
if [ -n "$RULER" ]; then
  RU=$(med "ruler apply")
  printf '%-44s %8s×     %s\n' "render --all ≥ 35× faster than ruler" "$(awk "BEGIN {printf \"%.1f\", $RU / $R}")" "$(verdict "$RU / $R >= 35")"
fi
MN=$(median "$WORK/mcp-new.txt")
printf '%-44s %8s×     %s\n' "mcp cold start ≤ 2× the bare server" "$(awk "BEGIN {printf \"%.2f\", $MN / $MB}")" "$(verdict "$MN / $MB <= 2")"
