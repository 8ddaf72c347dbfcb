# shellcheck shell=bash
# Sourced by bin/test. Browser tests use Debian's Chromium through playwright-core (Playwright's own
# browser download cannot work here). Installs it when missing; exports HANGAR_CHROMIUM.

hangar_ensure_chromium() {
  local bin="${HANGAR_CHROMIUM:-}"
  [ -n "$bin" ] || bin="$(command -v chromium || command -v chromium-browser || true)"
  if [ -z "$bin" ]; then
    local sudo=''
    [ "$(id -u)" -eq 0 ] || sudo='sudo -n'
    printf 'hangar setup: installing Chromium (apt-get install chromium) for the browser tests\n' >&2
    if $sudo apt-get install -y -qq chromium >/dev/null 2>&1 || { $sudo apt-get update -qq >/dev/null 2>&1 && $sudo apt-get install -y -qq chromium >/dev/null 2>&1; }; then
      bin="$(command -v chromium || true)"
    fi
  fi
  if [ -n "$bin" ]; then
    export HANGAR_CHROMIUM="$bin"
  else
    printf 'hangar setup: Chromium is not available; browser tests will %s\n' "$([ "${CI:-}" = true ] && echo fail || echo skip)" >&2
  fi
}

hangar_ensure_chromium
