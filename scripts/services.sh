#!/usr/bin/env bash
# What the tests and benchmarks need besides Node.
#   bash scripts/services.sh     starts the local PostgreSQL and Redis if they are down and
#                                this machine has them (they outlive the script).
#   source scripts/services.sh   (run.sh) then `start_services`: the same, and a Restate
#                                server from its npm package, its data folder in a temporary
#                                directory, on known ports; RECOURSE_RESTATE_INGRESS_URL and
#                                RECOURSE_RESTATE_ADMIN_URL tell the tests where it is.
#                                `stop_services` stops it and deletes its data.
# The Restate tests start a server of their own when these variables are not set.
RESTATE_INGRESS_PORT=${RECOURSE_RESTATE_INGRESS_PORT:-28080}
RESTATE_ADMIN_PORT=${RECOURSE_RESTATE_ADMIN_PORT:-29070}
RESTATE_NODE_PORT=${RECOURSE_RESTATE_NODE_PORT:-25122}
RESTATE_PID=''
RESTATE_DATA=''

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_stores() {
  if ! port_open 5432 && [ -d /etc/postgresql ] && command -v pg_ctlcluster >/dev/null; then
    echo "services: starting PostgreSQL" >&2
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
  if ! port_open 6379 && command -v redis-server >/dev/null; then
    echo "services: starting Redis" >&2
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no || true
  fi
  for _ in $(seq 1 50); do
    port_open 5432 && port_open 6379 && return 0
    sleep 0.2
  done
  echo "services: PostgreSQL (5432) or Redis (6379) is not answering; the store tests will say so" >&2
}

# The server binary itself (the package's launcher would outlive a kill), resolved from
# the package's real folder, where pnpm puts the platform package beside it.
restate_binary() {
  local launcher="${ROOT:-.}/tests/engines/node_modules/@restatedev/restate-server/package.json"
  [ -f "$launcher" ] || return 1
  node -e '
    const { createRequire } = require("node:module");
    const { realpathSync } = require("node:fs");
    const found = createRequire(realpathSync(process.argv[1]))
      .resolve(`@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`);
    process.stdout.write(found);' "$launcher" 2>/dev/null
}

start_restate() {
  local binary
  if ! binary=$(restate_binary); then
    echo "services: no Restate server in tests/engines/node_modules; the Restate tests start their own" >&2
    return 0
  fi
  local port
  for port in "$RESTATE_INGRESS_PORT" "$RESTATE_ADMIN_PORT" "$RESTATE_NODE_PORT"; do
    if port_open "$port"; then
      echo "services: port $port is taken; the Restate tests start a server of their own" >&2
      return 0
    fi
  done
  RESTATE_DATA=$(mktemp -d "${TMPDIR:-/tmp}/recourse-restate.XXXXXX")
  echo "services: starting the Restate server (data in $RESTATE_DATA)" >&2
  RESTATE_INGRESS__BIND_ADDRESS="127.0.0.1:$RESTATE_INGRESS_PORT" \
    RESTATE_ADMIN__BIND_ADDRESS="127.0.0.1:$RESTATE_ADMIN_PORT" \
    RESTATE_BIND_ADDRESS="127.0.0.1:$RESTATE_NODE_PORT" \
    RESTATE_ADVERTISED_ADDRESS="http://127.0.0.1:$RESTATE_NODE_PORT" \
    "$binary" --base-dir "$RESTATE_DATA" --no-logo --listen-mode tcp \
    >"$RESTATE_DATA/server.log" 2>&1 &
  RESTATE_PID=$!
  for _ in $(seq 1 150); do
    if port_open "$RESTATE_INGRESS_PORT" && port_open "$RESTATE_ADMIN_PORT"; then
      export RECOURSE_RESTATE_INGRESS_URL="http://127.0.0.1:$RESTATE_INGRESS_PORT"
      export RECOURSE_RESTATE_ADMIN_URL="http://127.0.0.1:$RESTATE_ADMIN_PORT"
      return 0
    fi
    kill -0 "$RESTATE_PID" 2>/dev/null || break
    sleep 0.2
  done
  echo "services: the Restate server did not come up; the Restate tests start their own" >&2
  tail -n 20 "$RESTATE_DATA/server.log" >&2 || true
  stop_services
}

start_services() {
  start_stores
  start_restate
}

stop_services() {
  if [ -n "$RESTATE_PID" ]; then
    kill "$RESTATE_PID" 2>/dev/null || true
    wait "$RESTATE_PID" 2>/dev/null || true
    RESTATE_PID=''
  fi
  if [ -n "$RESTATE_DATA" ]; then
    rm -rf "$RESTATE_DATA"
    RESTATE_DATA=''
  fi
  unset RECOURSE_RESTATE_INGRESS_URL RECOURSE_RESTATE_ADMIN_URL
}

# Run rather than sourced: the stores only (nothing would stop a server started here).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -u
  start_stores
fi
