#!/usr/bin/env bash
# Runs Bridle's whole test suite from a clean checkout: build, vet, formatting,
# unit and integration tests (against a real Gitea that scripts/gitea.sh
# builds from its Go module on first use, and the real sops CLI that
# scripts/sops.sh builds), short fuzzing passes, and an
# independent MCP client (the TypeScript SDK from npm) against the binary.
# Usage: scripts/test.sh            (FUZZTIME=200000x scripts/test.sh to fuzz longer)
# Needs Go 1.26+, git, gcc with the C headers, Node 20+ and npm: the Debian
# packages are installed when missing (as root, with apt-get), then all are
# checked first.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Debian packages the suite needs, installed when missing and this runs
# as root with apt-get (a fresh CI machine); otherwise the check below says
# what to install. Go comes from go.dev (Debian's is too old), and on a
# machine whose Node is from NodeSource npm comes with it.
pkgs=""
command -v git >/dev/null 2>&1 || pkgs+=" git"
command -v gcc >/dev/null 2>&1 || pkgs+=" gcc libc6-dev"
[ -e /usr/include/stdio.h ] || pkgs+=" libc6-dev"
command -v node >/dev/null 2>&1 || pkgs+=" nodejs"
command -v npm >/dev/null 2>&1 || pkgs+=" npm"
command -v chromium >/dev/null 2>&1 || pkgs+=" chromium fonts-dejavu-core"
if [ -n "$pkgs" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing Debian packages:$pkgs"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
fi

# Every prerequisite, checked before any work, with how to install it on
# Debian (package names are Debian's).
problems=""
need() { command -v "$1" >/dev/null 2>&1 || problems+="  $1 not found: $2"$'\n'; }
need go   "Go 1.26 or later from https://go.dev/dl/ (Debian 12's golang-go is 1.19)"
need git  "apt-get install git (the tests and Gitea run it)"
need gcc  "apt-get install gcc libc6-dev (cgo: Gitea's SQLite)"
need node "Node 20 or later: apt-get install nodejs (Debian 13; Debian 12's is 18, too old)"
need npm  "apt-get install npm"
need chromium "apt-get install chromium (the web panel's browser tests)"
if command -v go >/dev/null 2>&1; then
  # In the module, go switches to the toolchain go.mod asks for, or says why not.
  gov="$(go env GOVERSION 2>&1)" || true
  case "$gov" in
    go1.2[6-9]* | go1.[3-9][0-9]*) ;;
    *) problems+="  Go 1.26 or later is needed; go env GOVERSION says: $gov"$'\n' ;;
  esac
fi
if command -v gcc >/dev/null 2>&1 && ! printf 'int main(void){return 0;}\n' | gcc -x c -o /dev/null - >/dev/null 2>&1; then
  problems+="  gcc cannot build a C program (the C library headers are missing?): apt-get install libc6-dev"$'\n'
fi
if command -v node >/dev/null 2>&1; then
  nodev="$(node -p 'process.versions.node' 2>/dev/null || echo unknown)"
  [ "${nodev%%.*}" -ge 20 ] 2>/dev/null || problems+="  Node 20 or later is needed, found $nodev"$'\n'
fi
if [ -n "$problems" ]; then
  printf 'scripts/test.sh cannot run; missing prerequisites:\n%s' "$problems" >&2
  exit 1
fi

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
echo "== the real sops CLI for the vault's interoperability test (built once, then cached)"
BRIDLE_SOPS_BIN="$(scripts/sops.sh build)"
export BRIDLE_SOPS_BIN BRIDLE_REQUIRE_SOPS=1

echo "== the real agent CLIs (Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI, Qwen Code, Amp, Continue, Auggie) from npm, for the native-enforcement and install tests"
(cd tests/agentclients && npm ci --silent --no-audit --no-fund)
echo "== the real Gitea MCP server (gitea-mcp from npm), run under Bridle by go test ./upstream"
(cd tests/giteamcp && npm ci --silent --no-audit --no-fund)
export BRIDLE_REQUIRE_AGENT_CLIENTS=1
# The web panel's tests in a real headless Chromium (Debian's) fail, not skip.
export BRIDLE_REQUIRE_BROWSER=1

echo "== go test"
go test -count=1 ./...
# The patched copies of dependencies (third_party/README.md) are modules of
# their own, outside ./...: their tests run here.
for mod in third_party/*/; do
  echo "== go test $mod"
  # -structtag=false: upstream jsonschema-go's own tests tag unexported fields on purpose.
  (cd "$mod" && go vet -structtag=false ./... && go test -count=1 ./...)
done
# Every parser gets a short fuzzing pass (go test runs their seed corpora
# on every run anyway).
for target in schema:FuzzLoad mcp:FuzzLineTransport memory:FuzzChunkFile memory:FuzzSplitIdent proposals:FuzzApply \
              proposals:FuzzDraftFromBody install:FuzzMerge redact:FuzzRedact redact:FuzzCredentials \
              internal/mdsafe:FuzzProse internal/mdsafe:FuzzLine enforce:FuzzCheckCommand \
              enforce:FuzzStarlarkString renderers:FuzzMergeClaudeSettings gateway:FuzzParseConfig \
              kanboard:FuzzDecode feed:FuzzExtract vault:FuzzParseConfig vault/sopsfile:FuzzDecrypt \
              enforce:FuzzRespellings enforce:FuzzProtocols internal/jsonc:FuzzSet renderers:FuzzMergeHookSettings adopt:FuzzImport scaffold:FuzzCIRuns scaffold:FuzzInstallURL memory:FuzzExpand \
              renderers:FuzzAiderRead; do
  pkg="${target%%:*}" fn="${target##*:}"
  echo "== fuzz $pkg.$fn for $FUZZTIME"
  # Every input that finds new coverage is minimised first, and the runs that
  # takes count in FUZZTIME. With 500x, minimising a mutation of FuzzApply's
  # 10.6 KB example seed (~57 ms a run) took up to 28.7 s, at 0 execs/s once
  # both workers were at it; with 50x the longest took 2.5 s (default: 60 s).
  go test "./$pkg" -run '^$' -fuzz "^$fn\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZE"
done
echo "== independent MCP client (TypeScript SDK) against the built binary"
BIN_DIR="$(mktemp -d)"
trap 'rm -rf "$BIN_DIR"' EXIT
go build -o "$BIN_DIR/bridle" ./cmd/bridle
(cd tests/tsclient && npm ci --silent && BRIDLE_BIN="$BIN_DIR/bridle" node --test)
echo "== all tests passed"
