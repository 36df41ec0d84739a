# Shared by the bench scripts (source it): the prerequisite check and the
# committed rules repository the sidecar serves.

# needs SCRIPT TOOL:HINT...: checks every tool before any work and stops
# with all that are missing and how to install them (Debian's package
# names). A TOOL with a slash is a path that must be executable.
needs() {
  local script="$1" missing="" req tool
  shift
  for req in "$@"; do
    tool="${req%%:*}"
    if [[ "$tool" == */* ]]; then [ -x "$tool" ] && continue; else command -v "$tool" >/dev/null 2>&1 && continue; fi
    missing+="  $tool not found: ${req#*:}"$'\n'
  done
  [ -z "$missing" ] || { printf '%s needs:\n%s' "$script" "$missing" >&2; exit 1; }
}

GO_HINT="Go 1.26 or later from https://go.dev/dl/"

# rules_repo DIR: a git repository at DIR whose main holds the example's
# rules, committed (the sidecar serves committed rules only).
rules_repo() {
  mkdir -p "$1" && cp examples/runic-gateway/bridle.yaml "$1/"
  git -C "$1" init -q -b main && git -C "$1" add bridle.yaml \
    && git -C "$1" -c user.name=bench -c user.email=bench@example.com commit -q -m rules
}
