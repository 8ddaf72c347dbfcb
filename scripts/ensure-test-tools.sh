# shellcheck shell=bash
# Sourced by bin/test. Parser tests build real inputs with Debian tools: wixl (.msi), rpmbuild
# (.rpm) and mksquashfs (squashfs images for AppImages). Installs whichever is missing; exports
# nothing. Without them those tests skip with a message (under CI=true they fail).

hangar_ensure_test_tools() {
  local missing=() pair cmd pkg
  for pair in wixl:wixl rpmbuild:rpm mksquashfs:squashfs-tools; do
    cmd="${pair%%:*}" pkg="${pair#*:}"
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  local sudo=''
  [ "$(id -u)" -eq 0 ] || sudo='sudo -n'
  printf 'hangar setup: installing %s (apt-get install) for the parser tests\n' "${missing[*]}" >&2
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || { $sudo apt-get update -qq >/dev/null 2>&1 && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; }
  for pair in wixl:wixl rpmbuild:rpm mksquashfs:squashfs-tools; do
    cmd="${pair%%:*}" pkg="${pair#*:}"
    command -v "$cmd" >/dev/null 2>&1 ||
      printf 'hangar setup: %s (package %s) is not available; tests that need it will %s\n' "$cmd" "$pkg" "$([ "${CI:-}" = true ] && echo fail || echo skip)" >&2
  done
}

hangar_ensure_test_tools
