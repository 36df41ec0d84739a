#!/usr/bin/env bash
# Times `bridle hook claude` (Claude Code runs it before every tool call)
# from process start to decision, beside `true` and `bridle version` (the
# binary's own start-up floor) in the same hyperfine run, on a rules
# repository with enforce entries.
# Usage: bench/hook.sh [RUNS]   (default 60)
# Needs go, git and hyperfine (apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
needs bench/hook.sh "go:$GO_HINT" "git:apt-get install git" "hyperfine:apt-get install hyperfine"
RUNS="${1:-60}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export BRIDLE_CACHE_DIR="$WORK/cache"
go build -trimpath -o "$WORK/bridle" ./cmd/bridle
mkdir -p "$WORK/rules"
awk '/^-- bridle.yaml --$/{on=1;next} /^-- /{on=0} on' compiler/testdata/golden/enforce.txtar > "$WORK/rules/bridle.yaml"
git -C "$WORK/rules" init -q -b main && git -C "$WORK/rules" add bridle.yaml \
  && git -C "$WORK/rules" -c user.name=bench -c user.email=bench@example.com commit -q -m rules
printf '%s\n' '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cd app && git push --force origin main"},"cwd":"/tmp"}' > "$WORK/in.json"
"$WORK/bridle" hook claude --rules "$WORK/rules" < "$WORK/in.json" >/dev/null # warm the compile cache
hyperfine -N -w 5 -r "$RUNS" \
  "sh -c 'true < $WORK/in.json'" \
  "sh -c '$WORK/bridle version >/dev/null'" \
  "sh -c '$WORK/bridle hook claude --rules $WORK/rules < $WORK/in.json'"
go test ./enforce -run '^$' -bench CheckCommand -benchmem | grep -E 'Benchmark|ok'
