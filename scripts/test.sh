#!/usr/bin/env bash
# Runs Bridle's whole test suite from a clean checkout: build, vet, unit and
# integration tests, and a short fuzzing pass over the rules loader.
# Usage: scripts/test.sh            (FUZZTIME=30s scripts/test.sh to fuzz longer)
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME="${FUZZTIME:-10s}"

echo "== go build"
go build ./...
echo "== go vet"
go vet ./...
echo "== gofmt"
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "gofmt needed on:"; echo "$unformatted"; exit 1
fi
echo "== go test"
go test -count=1 ./...
echo "== fuzz schema.FuzzLoad for $FUZZTIME"
go test ./schema -run '^$' -fuzz '^FuzzLoad$' -fuzztime "$FUZZTIME"
echo "== fuzz mcp.FuzzLineTransport for $FUZZTIME"
go test ./mcp -run "^$" -fuzz "^FuzzLineTransport$" -fuzztime "$FUZZTIME"
echo "== all tests passed"
