#!/usr/bin/env bash
# Measures bridle serve against issue 10's targets (bench/gateway): a real
# gateway process over a fresh local rules repository (bridle init), with
# tokens minted by bridle agents add, beside a bare go-sdk streamable-HTTP
# server in the same run: get_rules throughput and latency over concurrent
# sessions, the gateway's RSS and its cost per idle session, a new
# session's latency, and how fast an approved rules change (bridle propose
# rules, then bridle approve --self) reaches every connected session.
# Usage: bench/gateway.sh [DURATION] [SESSIONS]   (default 10s, 64)
# Extra flags for bench/gateway in BENCH_FLAGS (e.g. "-idle 200 -new 100").
# Needs go and git; Linux (the gateway's RSS is read from /proc).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
needs bench/gateway.sh "go:$GO_HINT" "git:apt-get install git"
DURATION="${1:-10s}" SESSIONS="${2:-64}"
WORK="$(mktemp -d)"
SERVE="" BENCH=""
cleanup() { # every child we started, then the files
  for pid in $BENCH $SERVE; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# A human approves the change; the bench's identity, never a real one.
export BRIDLE_STATE_DIR="$WORK/state" BRIDLE_CACHE_DIR="$WORK/cache" BRIDLE_AGENT= CLAUDECODE= CODEX_SANDBOX=
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
echo "== building bridle and bench/gateway" >&2
go build -trimpath -o "$WORK/bridle" ./cmd/bridle
go build -trimpath -o "$WORK/gateway" ./bench/gateway
B="$WORK/bridle"

RULES="$WORK/rules"
"$B" init "$RULES" >"$WORK/init.log" 2>&1 || { cat "$WORK/init.log" >&2; exit 1; }
"$B" serve --rules "$RULES" --project bench --listen 127.0.0.1:0 --state-dir "$WORK/state" 2>"$WORK/serve.log" &
SERVE=$!
URL=""
for _ in $(seq 100); do
  URL="$(sed -n 's/.*msg="bridle serve listening".* url=\([^ ]*\).*/\1/p' "$WORK/serve.log")"
  [ -n "$URL" ] && break
  kill -0 "$SERVE" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$URL" ] || { echo "bridle serve did not start:" >&2; cat "$WORK/serve.log" >&2; exit 1; }
echo "== bridle serve (pid $SERVE) at $URL" >&2

# One token per agent the rules render for (a token is one agent's
# identity); the sessions take them in turn, as a team's many Claude Code
# sessions share the claude agent. (An agent the rules do not know gets its
# rules rendered on each call: not the path to measure.)
export BRIDLE_ADMIN_TOKEN_FILE="$WORK/state/gateway/admin-token"
for agent in claude codex kimi deepseek; do
  "$B" agents add --server "$URL" --project bench --agent "$agent" 2>/dev/null
done > "$WORK/tokens"

# The change, proposed now and approved during the measurement.
MARKER="bench change $$-$RANDOM"
N="$("$B" propose rules --rules "$RULES" --section project.overview --value "$MARKER" --why "bench/gateway.sh" --json \
  | sed -n 's/^  "number": \([0-9]*\),$/\1/p')"
[ -n "$N" ] || { echo "bridle propose rules: no proposal number" >&2; exit 1; }

# shellcheck disable=SC2086 # BENCH_FLAGS is a list of flags
"$WORK/gateway" -url "$URL/p/bench/mcp" -tokens "$WORK/tokens" -pid "$SERVE" \
  -sessions "$SESSIONS" -duration "$DURATION" -marker "$MARKER" \
  -source "a local git repository (bridle init), not Gitea" ${BENCH_FLAGS:-} \
  -- "$B" approve "$N" --rules "$RULES" --self &
BENCH=$!
wait "$BENCH" || { rc=$?; echo "bench/gateway failed; the gateway's log ends:" >&2; tail -20 "$WORK/serve.log" >&2; exit "$rc"; }
