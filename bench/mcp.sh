#!/usr/bin/env bash
# Measures bridle mcp as an agent launches it, beside a bare go-sdk server
# and rulesync's MCP server (rulesync 17.0.0 from npm) in the same run:
# cold start to answered initialize + tools/list, and RSS after 1,000
# get_rules calls. The in-process get_rules latency is a Go benchmark:
#   go test ./mcp -run '^$' -bench GetRules
# Usage: bench/mcp.sh [RUNS]   (default 50)
# Needs go and git; rulesync needs node and npm (skipped without them, or
# with SKIP_RULESYNC=1).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
needs bench/mcp.sh "go:$GO_HINT" "git:apt-get install git"
RUNS="${1:-50}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export BRIDLE_STATE_DIR="$WORK/state" BRIDLE_CACHE_DIR="$WORK/cache" BRIDLE_AGENT=
go build -trimpath -o "$WORK/bridle" ./cmd/bridle
go build -trimpath -o "$WORK/baremcp" ./bench/baremcp
go build -trimpath -o "$WORK/mcpstart" ./bench/mcpstart
# The sidecar serves committed rules: a rules repository holding the example.
EXAMPLE="$WORK/rules"
rules_repo "$EXAMPLE"

"$WORK/mcpstart" -runs "$RUNS" -name "bare go-sdk server" -- "$WORK/baremcp"
"$WORK/mcpstart" -runs "$RUNS" -name "bridle mcp" -calls 1000 -- "$WORK/bridle" mcp --rules "$EXAMPLE"

if command -v npm >/dev/null && [ "${SKIP_RULESYNC:-}" = "" ]; then
  (cd "$WORK" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund rulesync@17.0.0 >/dev/null 2>&1) \
    && mkdir -p "$WORK/rs/.rulesync/rules" \
    && printf -- '---\nroot: true\ntargets: ["*"]\n---\n# rules\n' > "$WORK/rs/.rulesync/rules/overview.md" \
    && (cd "$WORK/rs" && "$WORK/mcpstart" -runs 5 -name "rulesync mcp" -- "$WORK/node_modules/.bin/rulesync" mcp) \
    || echo "rulesync mcp: could not be measured here"
elif [ "${SKIP_RULESYNC:-}" = "" ]; then
  echo "rulesync mcp: not measured, npm not found (apt-get install nodejs npm; Node 20 or later)"
fi
go test ./mcp -run '^$' -bench 'GetRules' -benchtime 2000x | grep -E 'Benchmark|ok'
