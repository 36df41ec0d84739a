#!/usr/bin/env bash
# Compares this checkout's bridle with an earlier commit's, side by side in
# one run (interleaved, so that load on the machine hits both alike):
#   - bridle render --all on the example (hyperfine, whole cold processes),
#   - bridle mcp cold start to an answered initialize + tools/list
#     (bench/mcpstart, alternating old and new, ROUNDS rounds of 10 starts),
#   - bridle validate on the example (hyperfine).
# Prints medians, binary sizes and new/old ratios.
#
# Needs: go, git, hyperfine (apt-get install hyperfine).
# Usage: bench/compare.sh OLD_REF [ROUNDS]   (default 10 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
needs bench/compare.sh "go:$GO_HINT" "git:apt-get install git" "hyperfine:apt-get install hyperfine"
[ $# -ge 1 ] || { echo "usage: bench/compare.sh OLD_REF [ROUNDS]" >&2; exit 2; }
OLD="$1" ROUNDS="${2:-10}"
WORK="$(mktemp -d)"
trap 'git worktree remove --force "$WORK/old-src" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
export BRIDLE_STATE_DIR="$WORK/state" BRIDLE_AGENT=

echo "== building bridle at $OLD and at HEAD$(git diff --quiet || echo ' (with uncommitted changes)')" >&2
git worktree add -q --detach "$WORK/old-src" "$OLD"
(cd "$WORK/old-src" && go build -trimpath -o "$WORK/old" ./cmd/bridle)
go build -trimpath -o "$WORK/new" ./cmd/bridle
go build -trimpath -o "$WORK/mcpstart" ./bench/mcpstart

RULES="$WORK/rules"
rules_repo "$RULES"

echo "== render --all and validate (hyperfine)" >&2
hyperfine -N --warmup 3 --runs 40 --export-json "$WORK/render.json" \
  -n old "$WORK/old render --rules $RULES --all --out $WORK/out-old" \
  -n new "$WORK/new render --rules $RULES --all --out $WORK/out-new" >&2
hyperfine -N --warmup 3 --runs 40 --export-json "$WORK/validate.json" \
  -n old "$WORK/old validate --rules $RULES" \
  -n new "$WORK/new validate --rules $RULES" >&2

echo "== mcp cold start ($ROUNDS rounds of 10 starts each, alternating)" >&2
: > "$WORK/old.txt"; : > "$WORK/new.txt"
for _ in $(seq "$ROUNDS"); do
  for v in old new; do
    BRIDLE_CACHE_DIR="$WORK/cache-$v" "$WORK/mcpstart" -runs 10 -name "$v" -- "$WORK/$v" mcp --rules "$RULES" 2>/dev/null \
      | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' >> "$WORK/$v.txt"
  done
done

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
jmed() { # the median of command $2 in hyperfine's export $1, in ms
  awk -v want="\"$2\"" '/"command":/ {c=$2; gsub(/,/,"",c)} /"median":/ && c==want {m=$2; gsub(/,/,"",m); printf "%.2f", m*1000}' "$1"
}
ro=$(jmed "$WORK/render.json" old) rn=$(jmed "$WORK/render.json" new)
vo=$(jmed "$WORK/validate.json" old) vn=$(jmed "$WORK/validate.json" new)
mo=$(median "$WORK/old.txt") mn=$(median "$WORK/new.txt")
printf '%-28s %10s %10s %8s\n' "" "old ($OLD)" "new" "new/old"
printf '%-28s %8s ms %8s ms %8.2f\n' "render --all (median)" "$ro" "$rn" "$(awk "BEGIN {print $rn / $ro}")"
printf '%-28s %8s ms %8s ms %8.2f\n' "validate (median)" "$vo" "$vn" "$(awk "BEGIN {print $vn / $vo}")"
printf '%-28s %8s ms %8s ms %8.2f\n' "mcp cold start (median)" "$mo" "$mn" "$(awk "BEGIN {print $mn / $mo}")"
size() { awk -v b="$(stat -c %s "$1")" 'BEGIN {printf "%.1f", b / 1048576}'; }
printf '%-28s %8s MB %8s MB %8.2f\n' "binary size" "$(size "$WORK/old")" "$(size "$WORK/new")" "$(awk "BEGIN {print $(stat -c %s "$WORK/new") / $(stat -c %s "$WORK/old")}")"
