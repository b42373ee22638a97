# Sourced by run.sh. Puts a Node >= 22.13 and the pinned pnpm on PATH, then installs
# dependencies from the lockfile. Downloads only what this machine lacks, into .tools/.
TOOLS="$ROOT/.tools"
log() { printf 'bootstrap: %s\n' "$*" >&2; }

node_is_recent() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=13)?0:1)'
}

if ! node_is_recent; then
  if [ ! -x "$TOOLS/node/node_modules/.bin/node" ]; then
    command -v npm >/dev/null 2>&1 || { log "needs npm to fetch Node 24 (found neither a Node >= 22.13 nor npm)"; exit 1; }
    log "Node $(node --version 2>/dev/null || echo 'is missing') is older than 22.13; installing Node 24 from the npm registry into .tools/node"
    npm install --prefix "$TOOLS/node" --no-audit --no-fund --loglevel=error node@24 >&2
  fi
  export PATH="$TOOLS/node/node_modules/.bin:$PATH"
fi

PNPM_VERSION=$(node -p 'require("./package.json").packageManager.split("@")[1]')
if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  if [ "$("$TOOLS/pnpm/node_modules/.bin/pnpm" --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
    log "installing pnpm $PNPM_VERSION (pinned by packageManager) into .tools/pnpm"
    npm install --prefix "$TOOLS/pnpm" --no-audit --no-fund --loglevel=error "pnpm@$PNPM_VERSION" >&2
  fi
  export PATH="$TOOLS/pnpm/node_modules/.bin:$PATH"
fi
export COREPACK_ENABLE_STRICT=0

log "node $(node --version), pnpm $(pnpm --version)"
pnpm install --frozen-lockfile --prefer-offline --reporter=silent >&2
