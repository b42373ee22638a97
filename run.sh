#!/usr/bin/env bash
# One entry point for a fresh machine: installs what is missing, then runs.
#   ./run.sh demo    install everything, run the demo
#   ./run.sh test    install everything, run the whole test suite
#   ./run.sh bench   install everything, run the benchmarks and write bench/report/
#   ./run.sh ci      what .ci/run calls: services, install, typecheck, lint, tests
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$ROOT"
# shellcheck source=scripts/bootstrap.sh
source "$ROOT/scripts/bootstrap.sh"

case "${1:-}" in
  demo)  shift; pnpm demo "$@" ;;
  test)  shift; bash "$ROOT/scripts/services.sh"; pnpm test "$@" ;;
  bench) shift; bash "$ROOT/scripts/services.sh"; pnpm bench "$@" ;;
  ci)    shift
         bash "$ROOT/scripts/services.sh"
         pnpm typecheck
         pnpm lint
         pnpm test "$@" ;;
  *) echo "usage: ./run.sh demo|test|bench|ci" >&2; exit 2 ;;
esac
