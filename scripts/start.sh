#!/usr/bin/env bash
# The one command that runs the service on a laptop (README): installs dependencies, builds,
# starts a Temporal dev server unless TEMPORAL_ADDRESS, TEMPORAL_PROFILE or TEMPORAL_CONFIG_FILE is
# set (docs/operations.md → Connecting to Temporal), PostgreSQL from embedded-postgres
# unless DATABASE_URL is set, migrates, starts the API and the worker, bootstraps a workspace and
# an API key, and prints where everything listens. Ctrl-C stops all of it; data stays in .data/.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

DATA_DIR="${SVC_DATA_DIR:-$ROOT/.data}"
export PORT="${PORT:-3000}" HOST="${HOST:-127.0.0.1}"
START_TEMPORAL=""
if [ -z "${TEMPORAL_ADDRESS:-}" ] && [ -z "${TEMPORAL_PROFILE:-}" ] && [ -z "${TEMPORAL_CONFIG_FILE:-}" ]; then
  START_TEMPORAL=1
fi

# Every port this start listens on is checked before anything starts or is written: a taken one
# stops it here, named with the variable that moves it (a second copy on one machine moves all).
TAKEN=()
check_port() { # variable port host what
  [ "$2" = 0 ] && return
  if (exec 3<>"/dev/tcp/$3/$2") 2>/dev/null; then
    TAKEN+=("port $2 on $3 ($4) is already in use: stop what listens there, or move it with $1=<another port>")
  fi
}
check_port PORT "$PORT" "$HOST" "the API and dashboard"
check_port METRICS_WORKER_PORT "${METRICS_WORKER_PORT:-9464}" "$HOST" "the worker's metrics; 0 turns it off"
check_port METRICS_TEMPORAL_SDK_PORT "${METRICS_TEMPORAL_SDK_PORT:-9465}" "$HOST" "the Temporal SDK's worker metrics; 0 turns it off"
if [ -n "$START_TEMPORAL" ]; then
  check_port SVC_TEMPORAL_PORT "${SVC_TEMPORAL_PORT:-7233}" 127.0.0.1 "the Temporal dev server; or use a running one with TEMPORAL_ADDRESS"
  check_port SVC_TEMPORAL_UI_PORT "${SVC_TEMPORAL_UI_PORT:-8233}" 127.0.0.1 "the Temporal Web UI"
fi
if [ -z "${DATABASE_URL:-}" ]; then
  check_port SVC_PG_PORT "${SVC_PG_PORT:-54329}" 127.0.0.1 "the embedded PostgreSQL; or use your own with DATABASE_URL"
fi
if [ ${#TAKEN[@]} -gt 0 ]; then
  for line in "${TAKEN[@]}"; do log "$line"; done
  log "not started: ${#TAKEN[@]} port(s) taken (README → The two commands lists every port)"
  exit 1
fi

# Each start keeps the logs of the ones before: name.log becomes name.1.log, name.1.log becomes
# name.2.log, … up to name.$LOG_KEEP.log, so the reason of the last exit survives a restart.
LOG_KEEP=5
rotate_logs() {
  local f base i
  for f in "$1"/*.log; do
    [ -e "$f" ] || continue
    base="${f%.log}"
    [[ "$base" =~ \.[0-9]+$ ]] && continue
    rm -f "$base.$LOG_KEEP.log"
    for ((i = LOG_KEEP - 1; i >= 1; i--)); do
      if [ -e "$base.$i.log" ]; then mv "$base.$i.log" "$base.$((i + 1)).log"; fi
    done
    mv "$f" "$base.1.log"
  done
}
mkdir -p "$DATA_DIR/logs"
rotate_logs "$DATA_DIR/logs"

PIDS=()
NAMES=()
DB_URL_FILE="$DATA_DIR/database-url"
stop_all() {
  trap - INT TERM EXIT
  log "stopping"
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill -TERM "${PIDS[i]}" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  # svc reads this file to find the embedded database; it is gone with the database.
  [ -n "${EMBEDDED_PG:-}" ] && rm -f "$DB_URL_FILE"
  log "stopped"
}
trap 'stop_all; exit 0' INT TERM
trap stop_all EXIT

ensure_node || exit 1
ensure_node_modules || exit 1
if [ -n "${SVC_SKIP_BUILD:-}" ] && [ -f dist/apps/api/src/main.js ]; then
  log "using the existing build in dist/ (SVC_SKIP_BUILD is set)"
else
  log "building"
  npm run --silent build >"$DATA_DIR/logs/build.log" 2>&1 || { cat "$DATA_DIR/logs/build.log" >&2; exit 1; }
fi

UI_URL="${TEMPORAL_UI_URL:-}"
if [ -n "$START_TEMPORAL" ]; then
  port="${SVC_TEMPORAL_PORT:-7233}"
  ui_port="${SVC_TEMPORAL_UI_PORT:-8233}"
  log "starting Temporal dev server on 127.0.0.1:$port (UI :$ui_port, data $DATA_DIR/temporal.db)"
  start_temporal_dev "$port" "$ui_port" "$DATA_DIR/temporal.db" "$DATA_DIR/logs/temporal.log" || exit 1
  PIDS+=("$TEMPORAL_PID")
  NAMES+=("the Temporal dev server (logs/temporal.log)")
  export TEMPORAL_ADDRESS="127.0.0.1:$port"
  # A profile of the developer's own (~/.config/temporalio/temporal.toml, e.g. Temporal Cloud's TLS
  # and namespace) must not reach this dev server: an empty config file in its place.
  printf '[profile.default]\n' >"$DATA_DIR/temporal-dev.toml"
  export TEMPORAL_CONFIG_FILE="$DATA_DIR/temporal-dev.toml"
  UI_URL="http://127.0.0.1:$ui_port"
fi

if [ -z "${DATABASE_URL:-}" ]; then
  pg_port="${SVC_PG_PORT:-54329}"
  log "starting embedded PostgreSQL on 127.0.0.1:$pg_port (data $DATA_DIR/postgres)"
  node scripts/embedded-postgres.js "$DATA_DIR/postgres" "$pg_port" >"$DATA_DIR/logs/postgres.log" 2>&1 &
  PIDS+=("$!")
  NAMES+=("the embedded PostgreSQL (logs/postgres.log)")
  # `ready` comes once it accepts connections: after an unclean stop (a killed stack) the port opens
  # while it still recovers ("the database system is starting up").
  wait_until 120 "the embedded PostgreSQL on 127.0.0.1:$pg_port to finish starting" "${PIDS[-1]}" \
    grep -qx ready "$DATA_DIR/logs/postgres.log" || { tail -20 "$DATA_DIR/logs/postgres.log" >&2; exit 1; }
  export DATABASE_URL="postgres://postgres:postgres@127.0.0.1:$pg_port/svc"
  # `svc` run from the project folder reads it (apps/cli/src/config.ts), so it needs no DATABASE_URL.
  EMBEDDED_PG=1
  (umask 077 && printf '%s\n' "$DATABASE_URL" >"$DB_URL_FILE")
  DB_INFO="DATABASE_URL=$DATABASE_URL   (svc run from this folder finds it)"
else
  # A URL from an earlier embedded start must not send svc to the wrong database.
  rm -f "$DB_URL_FILE"
  DB_INFO="from DATABASE_URL"
fi
node scripts/ensure-database.js "$DATABASE_URL" || exit 1
node dist/apps/cli/src/main.js migrate >&2 || exit 1

# Workspace secrets are encrypted at rest under one key (README → Configuration): generated on the
# first start into the data folder, then reused, so stored secrets stay readable across restarts.
if [ -z "${SECRETS_ENCRYPTION_KEY:-}" ] && [ -z "${SECRETS_ENCRYPTION_KEY_FILE:-}" ]; then
  SECRETS_KEY_FILE="$DATA_DIR/secrets.key"
  if [ ! -s "$SECRETS_KEY_FILE" ]; then
    (umask 077 && node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))' >"$SECRETS_KEY_FILE") || exit 1
    log "generated the secrets encryption key into $SECRETS_KEY_FILE (back it up with the database)"
  fi
  export SECRETS_ENCRYPTION_KEY_FILE="$SECRETS_KEY_FILE"
fi

# Local mode signs in to the dashboard by email alone, into the bootstrapped workspace as its
# owner (docs/dashboard.md); set AUTH_DEV_LOGIN=false to turn it off, or configure OIDC instead.
export AUTH_DEV_LOGIN="${AUTH_DEV_LOGIN:-true}" AUTH_JOIN_WORKSPACE="${AUTH_JOIN_WORKSPACE:-${SVC_WORKSPACE:-default}}"
export AUTH_JOIN_ROLE="${AUTH_JOIN_ROLE:-owner}"
[ -n "$UI_URL" ] && export TEMPORAL_UI_URL="$UI_URL"
# The worker keeps what it must not lose in a crash (service-health transitions) in its own folder.
WORKER_STATE_DIR="${WORKER_STATE_DIR:-$DATA_DIR/worker}" node dist/apps/worker/src/main.js >"$DATA_DIR/logs/worker.log" 2>&1 &
WORKER_PID=$!
PIDS+=("$WORKER_PID")
NAMES+=("the worker (logs/worker.log)")
node dist/apps/api/src/main.js >"$DATA_DIR/logs/api.log" 2>&1 &
API_PID=$!
PIDS+=("$API_PID")
NAMES+=("the API (logs/api.log)")

# Why a process of ours ended: the message of its last fatal or error log line, else its last line.
last_error() {
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
    const parsed = lines.map((l) => { try { return JSON.parse(l); } catch { return { msg: l }; } });
    const bad = parsed.filter((l) => l.level === "fatal" || l.level === "error" || l.level >= 50).pop();
    console.log(((bad ?? parsed.pop())?.msg ?? "").toString().slice(0, 500));' "$1" 2>/dev/null
}
# Exits with the reason when process $1 (named $2, logging to $3) has ended.
fail_if_exited() {
  kill -0 "$1" 2>/dev/null && return 0
  wait "$1"
  local code=$?
  log "$2 exited (code $code) before it was ready: $(last_error "$3")"
  log "its log: $3"
  exit 1
}
deadline=$((SECONDS + 60))
until (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; do
  fail_if_exited "$API_PID" "the API" "$DATA_DIR/logs/api.log"
  fail_if_exited "$WORKER_PID" "the worker" "$DATA_DIR/logs/worker.log"
  [ $SECONDS -ge $deadline ] && { log "the API did not listen on $HOST:$PORT within 60 s; see $DATA_DIR/logs/api.log"; exit 1; }
  sleep 0.3
done
# The banner waits for the worker to poll its task queue: before it, nothing would run the jobs the
# banner invites to create. Asked of the API's /readyz (`dispatcher: active`: Temporal sees a poller
# on the queue), so it holds whatever LOG_LEVEL hides.
worker_polling() {
  node -e 'fetch(process.argv[1]).then((r) => r.json()).then((b) => process.exit(b.dispatcher === "active" ? 0 : 1), () => process.exit(1))' \
    "http://$HOST:$PORT/readyz" 2>/dev/null
}
deadline=$((SECONDS + 120))
until worker_polling; do
  fail_if_exited "$WORKER_PID" "the worker" "$DATA_DIR/logs/worker.log"
  fail_if_exited "$API_PID" "the API" "$DATA_DIR/logs/api.log"
  [ $SECONDS -ge $deadline ] && { log "the worker is not polling after 120 s; see $DATA_DIR/logs/worker.log"; exit 1; }
  sleep 0.3
done

# Reuse the key printed last time while it still works; only its hash is in the database.
KEY_FILE="$DATA_DIR/api-key"
API_KEY=""
key_works() {
  node -e 'fetch(process.argv[1],{headers:{authorization:"Bearer "+process.argv[2]}}).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))' \
    "http://$HOST:$PORT/api/v1/jobs?limit=1" "$1"
}
if [ -f "$KEY_FILE" ] && key_works "$(cat "$KEY_FILE")"; then
  API_KEY="$(cat "$KEY_FILE")"
else
  API_KEY="$(node dist/apps/cli/src/main.js bootstrap --workspace "${SVC_WORKSPACE:-default}" --json |
    node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>console.log(JSON.parse(s).api_key))')" || exit 1
  (umask 077 && printf '%s' "$API_KEY" >"$KEY_FILE")
fi

# Alerts by email need an SMTP server (docs/alerts.md); webhook and Slack channels work without one.
if [ -n "${SMTP_HOST:-}" ]; then
  ALERTS_INFO="email via $SMTP_HOST:${SMTP_PORT:-587}, webhook and Slack channels (docs/alerts.md)"
else
  ALERTS_INFO="webhook and Slack channels. Email is off until SMTP is set (or smtp.* in \$SVC_CONFIG):
                     SMTP_HOST=smtp.example.com SMTP_PORT=587 SMTP_USER=alerts SMTP_PASSWORD=… \\
                     SMTP_FROM='Scheduler <alerts@example.com>' npm start      (docs/alerts.md)"
fi

cat <<INFO

  Scheduled job service is running.
    Dashboard:       http://$HOST:$PORT/   (sign in with any email: development login)
    API:             http://$HOST:$PORT/api/v1   (health: http://$HOST:$PORT/readyz)
    API reference:   http://$HOST:$PORT/api/v1/docs
    Temporal Web UI: ${UI_URL:-"(external Temporal at ${TEMPORAL_ADDRESS:-profile ${TEMPORAL_PROFILE:-default}})"}
    API key:         $API_KEY   (also in $KEY_FILE)
    Database:        $DB_INFO
    Logs:            $DATA_DIR/logs/
    Alerts:          $ALERTS_INFO

  Try it (docs/getting-started.md): watch deliveries with  npx svc receive --port 4000 --secret whsec_…
    curl -s -H "Authorization: Bearer $API_KEY" http://$HOST:$PORT/api/v1/jobs

  Ctrl-C stops everything; data stays in $DATA_DIR.

INFO
wait -n "${PIDS[@]}"
for i in "${!PIDS[@]}"; do
  kill -0 "${PIDS[i]}" 2>/dev/null || log "${NAMES[i]} exited; stopping the rest (logs in $DATA_DIR/logs/)"
done
exit 1
