# shellcheck shell=bash
# Sourced by bin/test. Browser tests use Debian's Chromium through playwright-core (Playwright's own
# browser download cannot work here). Installs it when missing; exports HANGAR_CHROMIUM. Also a
# small Chinese font (1.6 MB), so that the zh-CN screenshots of the device pages show text, not boxes.

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
    if [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
      local sudo=''
      [ "$(id -u)" -eq 0 ] || sudo='sudo -n'
      $sudo apt-get install -y -qq fonts-wqy-microhei >/dev/null 2>&1 ||
        printf 'hangar setup: no Chinese font (fonts-wqy-microhei); zh-CN screenshots will show boxes\n' >&2
    fi
  else
    printf 'hangar setup: Chromium is not available; browser tests will %s\n' "$([ "${CI:-}" = true ] && echo fail || echo skip)" >&2
  fi
}

hangar_ensure_chromium
