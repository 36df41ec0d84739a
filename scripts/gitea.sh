#!/usr/bin/env bash
# Builds Gitea from its Go module into a cache outside the repository, once.
# Gitea cannot be fetched as a binary here, but it is a Go module.
#
#   scripts/gitea.sh build   → prints the path of the built binary
#   scripts/gitea.sh path    → prints where the binary is (built or not)
#
# About 7.5 minutes cold on 2 cores; later runs reuse the cached binary.
set -euo pipefail
VERSION="${GITEA_VERSION:-v1.26.0}"
CACHE="${BRIDLE_GITEA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bridle/gitea}"
BIN="$CACHE/gitea-$VERSION"
SRC="$CACHE/src-$VERSION"

case "${1:-build}" in
  path) echo "$BIN"; exit 0 ;;
  build) ;;
  *) echo "usage: $0 build|path" >&2; exit 2 ;;
esac

if [ -x "$BIN" ] && [ -d "$SRC" ]; then
  echo "$BIN"; exit 0
fi
mkdir -p "$CACHE"
echo "gitea: downloading code.gitea.io/gitea@$VERSION" >&2
MODDIR="$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "code.gitea.io/gitea@$VERSION" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')"
[ -d "$MODDIR" ] || { echo "gitea: module download failed" >&2; exit 1; }
rm -rf "$SRC.tmp" && cp -r "$MODDIR" "$SRC.tmp" && chmod -R u+w "$SRC.tmp"
echo "gitea: building (go build -tags 'sqlite sqlite_unlock_notify'); this takes several minutes" >&2
(cd "$SRC.tmp" && CGO_ENABLED=1 go build -buildvcs=false -trimpath -tags "sqlite sqlite_unlock_notify" \
  -ldflags "-X main.Version=${VERSION#v}" -o "$BIN.tmp" .)
rm -rf "$SRC" && mv "$SRC.tmp" "$SRC" && mv "$BIN.tmp" "$BIN"
echo "$BIN"
