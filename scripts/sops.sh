#!/usr/bin/env bash
# Builds the real sops CLI from its Go module into a cache outside the
# repository, once, for the interoperability test (secrets/sopsfile
# TestSOPSCLI: sops -d reads what Bridle writes, Bridle reads what sops -e
# writes).
#
#   scripts/sops.sh build   → prints the path of the built binary
#   scripts/sops.sh path    → prints where the binary is (built or not)
#
# About 4 minutes cold on 2 cores; later runs reuse the cached binary.
set -euo pipefail
VERSION="${SOPS_VERSION:-v3.13.3}"
CACHE="${BRIDLE_SOPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bridle/sops}"
BIN="$CACHE/sops-$VERSION"

case "${1:-build}" in
  path) echo "$BIN"; exit 0 ;;
  build) ;;
  *) echo "usage: $0 build|path" >&2; exit 2 ;;
esac

if [ -x "$BIN" ]; then
  echo "$BIN"; exit 0
fi
mkdir -p "$CACHE/bin.tmp"
echo "sops: building github.com/getsops/sops/v3/cmd/sops@$VERSION; this takes a few minutes" >&2
(cd "$CACHE" && GOBIN="$CACHE/bin.tmp" GOFLAGS=-mod=mod go install -trimpath "github.com/getsops/sops/v3/cmd/sops@$VERSION")
mv "$CACHE/bin.tmp/sops" "$BIN" && rmdir "$CACHE/bin.tmp"
echo "$BIN"
