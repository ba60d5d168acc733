#!/usr/bin/env bash
# The one test command (README; .ci/run calls exactly this). Installs dependencies, builds, starts
# what the tests need (a Temporal dev server unless TEMPORAL_ADDRESS is set; PostgreSQL from
# DATABASE_URL, else 127.0.0.1:5432 when it answers, else embedded-postgres), runs every test
# tier, stops what it started, and ends with the line `N passed, N failed`.
# Extra arguments go to jest (e.g. `bash scripts/test.sh libs/schedule`).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

RUN_DIR="$ROOT/.test-data/run-$$"
mkdir -p "$RUN_DIR"
TEMPORAL_PID=""
PG_PID=""
cleanup() {
  [ -n "$TEMPORAL_PID" ] && kill "$TEMPORAL_PID" 2>/dev/null && wait "$TEMPORAL_PID" 2>/dev/null
  [ -n "$PG_PID" ] && kill "$PG_PID" 2>/dev/null && wait "$PG_PID" 2>/dev/null
  rm -rf "$RUN_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail_setup() { log "$1"; echo "0 passed, 1 failed"; exit 1; }

ensure_node_modules || fail_setup "npm ci failed"
ensure_compose_cli
log "building (tsc)"
npm run --silent build >"$RUN_DIR/build.log" 2>&1 || { cat "$RUN_DIR/build.log" >&2; fail_setup "build failed"; }

# The code gate (prettier, eslint with zero warnings, tsc) counts as one test.
GATE_FAILED=0
log "checking format, lint and types (npm run check)"
if ! npm run --silent check >"$RUN_DIR/check.log" 2>&1; then
  cat "$RUN_DIR/check.log" >&2
  log "npm run check failed"
  GATE_FAILED=1
fi

if [ -n "${TEMPORAL_ADDRESS:-}" ]; then
  export TEST_TEMPORAL_ADDRESS="$TEMPORAL_ADDRESS"
else
  port="$(free_port)"
  log "starting Temporal dev server on 127.0.0.1:$port"
  start_temporal_dev "$port" "" "" "$RUN_DIR/temporal.log" || { cat "$RUN_DIR/temporal.log" >&2; fail_setup "Temporal did not start"; }
  export TEST_TEMPORAL_ADDRESS="127.0.0.1:$port"
fi

if [ -n "${DATABASE_URL:-}" ]; then
  export TEST_PG_ADMIN_URL="$DATABASE_URL"
elif postgres_reachable "postgres://postgres@127.0.0.1:5432/postgres"; then
  export TEST_PG_ADMIN_URL="postgres://postgres@127.0.0.1:5432/postgres"
else
  port="$(free_port)"
  log "starting embedded PostgreSQL on 127.0.0.1:$port"
  node scripts/embedded-postgres.js "$RUN_DIR/pg" "$port" >"$RUN_DIR/pg.log" 2>&1 &
  PG_PID=$!
  wait_for_port 127.0.0.1 "$port" 90 "$PG_PID" || fail_setup "embedded PostgreSQL did not start"
  export TEST_PG_ADMIN_URL="postgres://postgres:postgres@127.0.0.1:$port/postgres"
fi
export TEST_RUN_ID="r$$"

# The dashboard's browser test drives Debian's Chromium (browsers cannot be downloaded here). When
# it cannot be installed, the test fails and says why; nothing is skipped.
if ! command -v chromium >/dev/null 2>&1; then
  log "installing Debian's chromium for the dashboard browser test"
  SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo -n"
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium; } >"$RUN_DIR/chromium.log" 2>&1 ||
    { tail -5 "$RUN_DIR/chromium.log" >&2; log "chromium could not be installed: the dashboard test will fail"; }
fi

log "running tests"
npx jest --ci --json --outputFile="$RUN_DIR/jest.json" "$@"
status=$?
node scripts/print-test-summary.js "$RUN_DIR/jest.json" "$GATE_FAILED" || status=1
exit $status
