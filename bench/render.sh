#!/usr/bin/env bash
# Times `bridle render --all` on the example against the peers a user would
# pick instead — @intellectronica/ruler 0.3.44 and rulesync 17.0.0 — writing
# CLAUDE.md and AGENTS.md from the same rules, as whole cold processes, in one
# run. Prints median wall time, peak RSS and the ratios.
#
# Needs: go, node + npm, hyperfine and GNU time (apt-get install hyperfine time).
# Usage: bench/render.sh [RUNS]     (default 30 runs each)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
needs bench/render.sh "go:$GO_HINT" "git:apt-get install git" "hyperfine:apt-get install hyperfine" "node:Node 20 or later: apt-get install nodejs" "npm:apt-get install npm" "/usr/bin/time:apt-get install time (GNU time)"
RUNS="${1:-30}"
ROOT="$(pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

echo "== building bridle" >&2
go build -trimpath -o "$WORK/bridle" ./cmd/bridle

echo "== installing ruler 0.3.44 and rulesync 17.0.0 from npm into $WORK/peers" >&2
mkdir -p "$WORK/peers"
(cd "$WORK/peers" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund \
  @intellectronica/ruler@0.3.44 rulesync@17.0.0 >/dev/null 2>&1)
RULER="$WORK/peers/node_modules/.bin/ruler"
RULESYNC="$WORK/peers/node_modules/.bin/rulesync"

# The same rules for everyone: the peers take markdown, so they get the
# example's rendered AGENTS.md body (all conventions, guardrails, patterns).
EXAMPLE="$ROOT/examples/runic-gateway"
RULES_MD="$WORK/rules.md"
"$WORK/bridle" render --rules "$EXAMPLE" --agent codex | sed '1,/-->/d' > "$RULES_MD"

mkdir -p "$WORK/ruler/.ruler" "$WORK/rulesync/.rulesync/rules" "$WORK/bridle-out"
cp "$RULES_MD" "$WORK/ruler/.ruler/AGENTS.md"
{ printf -- '---\nroot: true\ntargets: ["*"]\ndescription: "runic-gateway rules"\nglobs: ["**/*"]\n---\n'; cat "$RULES_MD"; } \
  > "$WORK/rulesync/.rulesync/rules/overview.md"
(cd "$WORK/rulesync" && git init -q . )

BRIDLE_CMD="$WORK/bridle render --rules $EXAMPLE --all --out $WORK/bridle-out"
RULER_CMD="$RULER apply --project-root $WORK/ruler --agents claude,codex --no-mcp --no-gitignore --no-backup --no-skills"
RULESYNC_CMD="bash -c 'cd $WORK/rulesync && exec $RULESYNC generate --targets claudecode,codexcli --features rules --silent'"

echo "== timing ($RUNS runs each)" >&2
hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/times.json" \
  -n bridle "$BRIDLE_CMD" -n ruler "$RULER_CMD" -n rulesync "$RULESYNC_CMD" >&2

peak() { # median peak RSS in KiB over 7 runs
  for _ in 1 2 3 4 5 6 7; do /usr/bin/time -f '%M' bash -c "exec $1" 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 4p
}
B_RSS=$(peak "$BRIDLE_CMD"); R_RSS=$(peak "$RULER_CMD")
S_RSS=$(for _ in 1 2 3 4 5 6 7; do (cd "$WORK/rulesync" && /usr/bin/time -f '%M' "$RULESYNC" generate --targets claudecode,codexcli --features rules --silent 2>&1 >/dev/null | tail -1); done | sort -n | sed -n 4p)

node - "$WORK/times.json" "$B_RSS" "$R_RSS" "$S_RSS" <<'JS'
const [file, b, r, s] = process.argv.slice(2);
const res = require(file).results;
const med = Object.fromEntries(res.map(x => [x.command, x.median * 1000]));
const rss = { bridle: +b / 1024, ruler: +r / 1024, rulesync: +s / 1024 };
console.log("tool       median wall   peak RSS   wall vs bridle");
for (const t of ["bridle", "ruler", "rulesync"]) {
  console.log(`${t.padEnd(10)} ${med[t].toFixed(1).padStart(8)} ms ${rss[t].toFixed(1).padStart(7)} MiB   ${(med[t] / med.bridle).toFixed(1).padStart(6)}x`);
}
const ok = med.bridle <= 15 && rss.bridle <= 30 && med.ruler / med.bridle >= 25;
console.log(`targets: bridle median <= 15 ms, peak RSS <= 30 MiB, >= 25x faster than ruler: ${ok ? "met" : "NOT met"}`);
JS
