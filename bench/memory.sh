#!/usr/bin/env bash
# Memory figures: indexing speed on go-git's source, hybrid search over
# 100k real code chunks (384 dimensions) with the searching process's RSS,
# the naive float32 scan for comparison, 8-process concurrency, and
# retrieval quality (recall@10 and MRR for keyword, vector and hybrid on the
# labelled sets in memory/testdata: tuning, held-out and blind halves apart).
# Usage: bench/memory.sh [CHUNKS]   (default 100000)
# Needs only go (the modules' source comes from the module cache).
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
echo "== retrieval quality: the labelled sets in memory/testdata (tuning and held-out halves, and the blind sets apart)"
go test ./memory -count=1 -run 'TestRetrievalQuality' -v | grep -E 'R@10|indexed'
echo "== with an embedding model (fake servers): never worse than offline"
go test ./memory -count=1 -run 'TestModelNeverRanksWorse' -v | grep -E 'against|^(---|ok|FAIL)'
