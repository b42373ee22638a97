# Sourced by run.sh. Puts a Node >= 22.13 and the pinned pnpm on PATH, then installs
# dependencies from the lockfile. Downloads only what this machine lacks, into .tools/,
# and says what it downloads while it does: a first run can take minutes on a slow network.
TOOLS="$ROOT/.tools"
log() { printf 'bootstrap: %s\n' "$*" >&2; }

# Runs a command, prefixing its output and printing a heartbeat every 10 s, so a long
# download never looks like a hang. Usage: with_progress LABEL DIR COMMAND... (DIR is
# measured for the heartbeat; the command's exit status is returned).
with_progress() {
  local label=$1 dir=$2 started=$SECONDS hinted=''
  shift 2
  (
    while sleep 10; do
      size=$(du -sk "$dir" 2>/dev/null | cut -f1)
      log "… still $label: $((SECONDS - started)) s${size:+, $((size / 1024)) MB in ${dir#"$ROOT"/}}"
    done
  ) &
  local heartbeat=$!
  # Always called as `with_progress ... || ...`, so errexit is off here and the
  # command's own status can be read from PIPESTATUS.
  "$@" 2>&1 | while IFS= read -r line; do
    printf 'bootstrap:   %s\n' "$line" >&2
    # npm retries a request that fails TLS verification and then falls back to its cache:
    # minutes of waiting with nothing wrong in the project. Say so once.
    case "$line" in
      *SELF_SIGNED_CERT*|*UNABLE_TO_GET_ISSUER_CERT*|*UNABLE_TO_VERIFY_LEAF_SIGNATURE*|*CERT_HAS_EXPIRED*)
        if [ -z "$hinted" ]; then
          hinted=1
          log "npm cannot verify the registry's TLS certificate, so it retries each request (about a minute each)."
          log "Behind a proxy that re-signs TLS, point NODE_EXTRA_CA_CERTS (or npm's cafile) at its CA certificate."
        fi ;;
    esac
  done
  local status=${PIPESTATUS[0]}
  kill "$heartbeat" 2>/dev/null
  wait "$heartbeat" 2>/dev/null || true
  return "$status"
}

node_is_recent() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=13)?0:1)'
}

# --prefer-offline: what npm's cache already holds is used without asking the registry again.
NPM_INSTALL=(npm install --no-audit --no-fund --prefer-offline --loglevel=http)

if ! node_is_recent; then
  if [ ! -x "$TOOLS/node/node_modules/.bin/node" ]; then
    command -v npm >/dev/null 2>&1 || { log "needs npm to fetch Node 24 (found neither a Node >= 22.13 nor npm)"; exit 1; }
    log "Node $(node --version 2>/dev/null || echo 'is missing') is older than 22.13: downloading Node 24 into .tools/node"
    log "(the npm registry's 'node' package, a ~50 MB binary; seconds on a fast network, a few minutes on a slow one; once per clone)"
    started=$SECONDS
    with_progress "downloading Node 24" "$TOOLS/node" "${NPM_INSTALL[@]}" --prefix "$TOOLS/node" node@24 ||
      { log "could not install Node 24 (see npm's output above)"; exit 1; }
    log "Node $("$TOOLS/node/node_modules/.bin/node" --version) ready in $((SECONDS - started)) s"
  fi
  export PATH="$TOOLS/node/node_modules/.bin:$PATH"
fi

PNPM_VERSION=$(node -p 'require("./package.json").packageManager.split("@")[1]')
if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  if [ "$("$TOOLS/pnpm/node_modules/.bin/pnpm" --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
    log "installing pnpm $PNPM_VERSION (pinned by packageManager, ~5 MB) into .tools/pnpm"
    started=$SECONDS
    with_progress "installing pnpm" "$TOOLS/pnpm" "${NPM_INSTALL[@]}" --prefix "$TOOLS/pnpm" "pnpm@$PNPM_VERSION" ||
      { log "could not install pnpm (see npm's output above)"; exit 1; }
    log "pnpm ready in $((SECONDS - started)) s"
  fi
  export PATH="$TOOLS/pnpm/node_modules/.bin:$PATH"
fi
export COREPACK_ENABLE_STRICT=0

log "node $(node --version), pnpm $(pnpm --version)"
if [ -f "$ROOT/node_modules/.modules.yaml" ]; then
  pnpm install --frozen-lockfile --prefer-offline --reporter=silent >&2
else
  log "installing the dependencies from the lockfile (about 400 packages, ~500 MB on disk; the first time a minute or more, later seconds)"
  started=$SECONDS
  with_progress "installing dependencies" "$ROOT/node_modules" \
    pnpm install --frozen-lockfile --prefer-offline --reporter=append-only ||
    { log "pnpm install failed (see its output above)"; exit 1; }
  log "dependencies ready in $((SECONDS - started)) s"
fi
