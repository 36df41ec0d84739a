#!/usr/bin/env bash
# Runs Bridle's whole test suite from a clean checkout: build, vet, formatting,
# unit and integration tests (against a real Gitea that scripts/gitea.sh
# builds from its Go module on first use), short fuzzing passes, and an
# independent MCP client (the TypeScript SDK from npm) against the binary.
# Usage: scripts/test.sh            (FUZZTIME=200000x scripts/test.sh to fuzz longer)
set -euo pipefail
cd "$(dirname "$0")/.."

# An execution count, not a duration: Go 1.26's fuzz coordinator can fail a
# duration-bounded run with a spurious "context deadline exceeded" when the
# time runs out (golang/go#75804, fixed in Go 1.27); a count has no deadline.
FUZZTIME="${FUZZTIME:-20000x}"
FUZZMINIMIZE="${FUZZMINIMIZE:-50x}"

echo "== go build"
go build ./...
echo "== go vet"
go vet ./...
echo "== staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
echo "== gofmt"
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:"; echo "$unformatted"; exit 1
fi
echo "== real Gitea for the integration tests (built once, then cached)"
scripts/gitea.sh build
export BRIDLE_REQUIRE_GITEA=1

echo "== the real agent CLIs (Codex, Claude Code) from npm, for the native-enforcement tests"
command -v node >/dev/null && command -v npm >/dev/null || { echo "node and npm are required (apt-get install nodejs npm)"; exit 1; }
(cd tests/agentclients && npm ci --silent --no-audit --no-fund)
export BRIDLE_REQUIRE_AGENT_CLIENTS=1

echo "== go test"
go test -count=1 ./...
# Every parser gets a short fuzzing pass (go test runs their seed corpora
# on every run anyway).
for target in schema:FuzzLoad mcp:FuzzLineTransport memory:FuzzChunkFile proposals:FuzzApply \
              proposals:FuzzDraftFromBody install:FuzzMerge redact:FuzzRedact \
              internal/mdsafe:FuzzProse internal/mdsafe:FuzzLine enforce:FuzzCheckCommand \
              enforce:FuzzStarlarkString renderers:FuzzMergeClaudeSettings; do
  pkg="${target%%:*}" fn="${target##*:}"
  echo "== fuzz $pkg.$fn for $FUZZTIME"
  # Every input that finds new coverage is minimised first, and the runs that
  # takes count in FUZZTIME. With 500x, minimising a mutation of FuzzApply's
  # 10.6 KB example seed (~57 ms a run) took up to 28.7 s, at 0 execs/s once
  # both workers were at it; with 50x the longest took 2.5 s (default: 60 s).
  go test "./$pkg" -run '^$' -fuzz "^$fn\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZE"
done
echo "== independent MCP client (TypeScript SDK) against the built binary"
command -v node >/dev/null && command -v npm >/dev/null || { echo "node and npm are required (apt-get install nodejs npm)"; exit 1; }
BIN_DIR="$(mktemp -d)"
trap 'rm -rf "$BIN_DIR"' EXIT
go build -o "$BIN_DIR/bridle" ./cmd/bridle
(cd tests/tsclient && npm ci --silent && BRIDLE_BIN="$BIN_DIR/bridle" node --test)
echo "== all tests passed"
