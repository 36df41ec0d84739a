#!/usr/bin/env bash
# Memory figures: indexing speed on go-git's source, hybrid search over
# 100k real code chunks (384 dimensions) with the searching process's RSS,
# the naive float32 scan for comparison, 8-process concurrency, and
# retrieval quality (recall@10 for keyword, vector and hybrid).
# Usage: bench/memory.sh [CHUNKS]   (default 100000)
# Needs only go (go-git's source comes from the module cache).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
needs bench/memory.sh "go:$GO_HINT"
N="${1:-100000}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
go build -o "$WORK/memsearch" ./bench/memsearch
echo "== indexing go-git v5 (offline embedder, embedded store)"
go test ./memory -run '^$' -bench IndexGoGit -benchtime 3x | grep -E 'Benchmark'
echo "== $N chunks"
"$WORK/memsearch" -build -db "$WORK/m.db" -n "$N"
"$WORK/memsearch" -search -db "$WORK/m.db"
"$WORK/memsearch" -naive -n "$N" -queries 50
echo "== 8 processes x 500 writes while searching"
go test ./memory -count=1 -run 'TestConcurrentProcesses' -v | grep -E '^(---|ok|FAIL)'
echo "== retrieval quality on go-git (32 labelled questions)"
go test ./memory -count=1 -run 'TestRetrievalQuality' -v | grep -E 'recall|indexed'
