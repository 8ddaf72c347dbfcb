# shellcheck shell=bash
# Sourced by bin/hangar, bin/test and .ci/run. Makes a fresh clone runnable:
#   1. a Node that satisfies package.json "engines" first on PATH (a pinned Node 24 from the npm
#      registry when the system one is older; its integrity is checked against the pin below),
#   2. npm settings that work with that Node on these machines (see README "Toolchain"),
#   3. node_modules installed by `npm ci`, redone only when package-lock.json or Node changed.
# Progress goes to stderr so that commands keep a clean stdout.

HANGAR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HANGAR_NODE_VERSION=24.21.0
HANGAR_NODE_MIN_MAJOR=24
HANGAR_NODE_MIN_MINOR=11
# dist.integrity of node-linux-<arch>@24.21.0 on registry.npmjs.org
declare -A HANGAR_NODE_INTEGRITY=(
  [x64]='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='
  [arm64]='sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g=='
)

hangar_log() { printf 'hangar setup: %s\n' "$*" >&2; }
hangar_die() { printf 'hangar setup: error: %s\n' "$*" >&2; exit 1; }

hangar_node_ok() { # $1 = path of a node binary; true if it satisfies the engines range
  local v
  v="$("$1" -p 'process.versions.node' 2>/dev/null)" || return 1
  local major="${v%%.*}" rest="${v#*.}"
  local minor="${rest%%.*}"
  [ "$major" -eq "$HANGAR_NODE_MIN_MAJOR" ] && [ "$minor" -ge "$HANGAR_NODE_MIN_MINOR" ]
}

hangar_fetch_node() { # unpacks the pinned Node into .toolchain/node-<version>
  local dest="$1" arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) hangar_die "no pinned Node for $(uname -m); install Node ${HANGAR_NODE_VERSION%%.*} yourself" ;;
  esac
  [ "$(uname -s)" = Linux ] || hangar_die "install Node ${HANGAR_NODE_VERSION%%.*} (>= $HANGAR_NODE_MIN_MAJOR.$HANGAR_NODE_MIN_MINOR) and retry"
  command -v npm >/dev/null || hangar_die "npm is needed to fetch Node $HANGAR_NODE_VERSION"
  local pkg="node-linux-$arch@$HANGAR_NODE_VERSION" tmp
  tmp="$(mktemp -d "$HANGAR_ROOT/.toolchain/fetch.XXXXXX")"
  hangar_log "fetching $pkg from the npm registry"
  (cd "$tmp" && npm pack --silent "$pkg" >/dev/null 2>&1) || { rm -rf "$tmp"; hangar_die "npm pack $pkg failed"; }
  local tgz actual
  tgz="$(ls "$tmp"/*.tgz)"
  actual="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  if [ "$actual" != "${HANGAR_NODE_INTEGRITY[$arch]}" ]; then
    rm -rf "$tmp"
    hangar_die "integrity mismatch for $pkg (got $actual)"
  fi
  tar -xzf "$tgz" -C "$tmp" && rm -rf "$dest" && mv "$tmp/package" "$dest" && rm -rf "$tmp"
  hangar_log "Node $("$dest/bin/node" -v) ready in ${dest#"$HANGAR_ROOT"/}"
}

hangar_setup() {
  mkdir -p "$HANGAR_ROOT/.toolchain"
  # One setup at a time: two commands started together on a fresh clone must not both install.
  exec {hangar_lock_fd}>"$HANGAR_ROOT/.toolchain/.lock"
  flock "$hangar_lock_fd"

  local node_bin
  node_bin="$(command -v node || true)"
  if [ -z "$node_bin" ] || ! hangar_node_ok "$node_bin"; then
    local pinned="$HANGAR_ROOT/.toolchain/node-$HANGAR_NODE_VERSION"
    hangar_node_ok "$pinned/bin/node" || hangar_fetch_node "$pinned"
    export PATH="$pinned/bin:$PATH"
    # The machine's ~/.npmrc points node-gyp at /usr (Node 20 headers): use the pinned Node's own.
    export npm_config_nodedir="$pinned"
  fi
  # Keep the machine's CA bundle when npm runs under another Node (else SELF_SIGNED_CERT_IN_CHAIN).
  if [ -z "${npm_config_globalconfig:-}" ] && [ -f /usr/etc/npmrc ]; then
    export npm_config_globalconfig=/usr/etc/npmrc
  fi
  if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
  fi
  # Browsers come from Debian (tests), Electron's binary from a machine with internet (packaging).
  export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 ELECTRON_SKIP_BINARY_DOWNLOAD=1

  local stamp="$HANGAR_ROOT/node_modules/.hangar-installed" want
  want="$(node -p 'process.version')-$(sha256sum "$HANGAR_ROOT/package-lock.json" | cut -c1-64)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    hangar_log "installing dependencies (npm ci)"
    (cd "$HANGAR_ROOT" && npm ci --no-audit --no-fund --loglevel=error >&2) || hangar_die "npm ci failed"
    printf '%s' "$want" >"$stamp"
  fi
  # Stamp version control facts for GET /api/version when running from a checkout.
  (cd "$HANGAR_ROOT" && node scripts/stamp-build-info.mjs --if-changed) || hangar_die "could not stamp build info"

  flock -u "$hangar_lock_fd"
  exec {hangar_lock_fd}>&-
}

hangar_setup
