#!/usr/bin/env bash
# One entry point for a fresh machine: installs what is missing, then runs.
#   ./run.sh demo         install everything, run the demo
#   ./run.sh test         install everything, run the whole test suite
#   ./run.sh bench        install everything, run the benchmarks and write bench/report/
#   ./run.sh bench soak   a long-lived server: 10,000 runs per store, 1–8 workers (bench/report/soak.md)
#   ./run.sh bench killed agent jobs in DBOS and Restate, their worker SIGKILLed mid-write (bench/report/process-killed.md)
#   ./run.sh pack [DIR]   build, pack and check every package: tarballs to install with npm
#   ./run.sh ci           what .ci/run calls: services, install, typecheck, lint, packing
#                         (publint, attw), the consumer test from the tarballs, tests
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$ROOT"
# shellcheck source=scripts/bootstrap.sh
source "$ROOT/scripts/bootstrap.sh"
# shellcheck source=scripts/services.sh
source "$ROOT/scripts/services.sh"

TIMINGS=()
# Runs one CI step, and remembers how long it took for the summary.
ci_step() {
  local label=$1 started=$SECONDS
  shift
  printf '\nci: %s\n' "$label" >&2
  "$@"
  TIMINGS+=("$(printf '%5d s  %s' "$((SECONDS - started))" "$label")")
}

case "${1:-}" in
  demo)  shift; pnpm demo "$@" ;;
  # The services' Restate server is stopped (and its data deleted) however the run ends.
  test)  shift; trap stop_services EXIT; start_services; pnpm test "$@" ;;
  bench) shift; trap stop_services EXIT; start_services
         case "${1:-}" in
           soak)   shift; pnpm --filter @recourse/bench soak "$@" ;;
           killed) shift; pnpm --filter @recourse/bench killed "$@" ;;
           *)      pnpm bench "$@" ;;
         esac ;;
  pack)  shift; pnpm --silent release:dry "$@" ;;
  ci)    shift
         started=$SECONDS
         # Tarballs go to a temp folder, never into the repository.
         PACKS=$(mktemp -d "${TMPDIR:-/tmp}/recourse-ci-packs.XXXXXX")
         trap 'stop_services; rm -rf "$PACKS"' EXIT
         start_services
         ci_step "typecheck" pnpm typecheck
         ci_step "lint" pnpm lint
         ci_step "pack every package, publint + attw on the tarballs" pnpm --silent release:dry "$PACKS"
         ci_step "consumer test: npm install of the tarballs, tsc nodenext, plain node" \
           pnpm --silent test:consumer --tarballs "$PACKS"
         # Uses the proxy built by release:dry; both tallies are printed.
         ci_step "MCP conformance: server-everything directly and through recourse-mcp" \
           pnpm --silent conformance:mcp
         ci_step "tests" pnpm test "$@"
         printf '\nci: passed in %d s\n' "$((SECONDS - started))" >&2
         printf '%s\n' "${TIMINGS[@]}" >&2 ;;
  *) echo "usage: ./run.sh demo|test|bench|pack|ci" >&2; exit 2 ;;
esac
