#!/usr/bin/env bash
# Scale-out bench (issue #13): two API processes and one, then two, worker processes of the
# service on one Temporal dev server and one PostgreSQL database, with `bench/load.ts` offering the
# same load to each configuration; prints deliveries/s, start lag and the load average of each.
# Starts everything it needs afresh for each phase (Temporal on a free port, a scratch database on
# the local PostgreSQL), stops and drops it after the phase; loopback only.
#
#   bash bench/scale-out.sh [jobs=200] [seconds=120] [interval=10]
#
# DATABASE_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server the
# scratch database is created on. On a 2-core machine the second worker competes for the same
# cores as the first, Temporal and PostgreSQL: read the ratio with the load average.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$ROOT"

JOBS="${1:-200}"
SECONDS_PER_PHASE="${2:-120}"
INTERVAL="${3:-10}"
ADMIN_URL="${DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
RUN_DIR="$(mktemp -d)"
PIDS=()
DB_NAME=""

drop_database() {
  [ -n "$DB_NAME" ] || return 0
  node -e 'const {Client}=require("pg");const c=new Client({connectionString:process.argv[1]});
    c.connect().then(()=>c.query(`DROP DATABASE IF EXISTS "${process.argv[2]}" WITH (FORCE)`)).finally(()=>c.end())' \
    "$ADMIN_URL" "$DB_NAME" 2>/dev/null || true
  DB_NAME=""
}
# Stops every process of the current stack and drops its database.
stack_down() {
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PIDS=()
  drop_database
}
cleanup() {
  stack_down
  rm -rf "$RUN_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ -f dist/apps/api/src/main.js ] || { log "building"; npm run --silent build >"$RUN_DIR/build.log" 2>&1; }

export HOST=127.0.0.1 LIMITS_API_RATE_LIMIT_PER_MINUTE=0 METRICS_WORKER_PORT=0 METRICS_TEMPORAL_SDK_PORT=0
export SECRETS_ENCRYPTION_KEY
SECRETS_ENCRYPTION_KEY="$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))')"

# A fresh stack per phase (Temporal dev server, scratch database, two APIs, a bootstrap key), so
# the second phase does not start while the first one's backlog still drains.
stack_up() { # label
  DB_NAME="svc_scale_$$_${1//-/_}"
  export DATABASE_URL="${ADMIN_URL%/*}/$DB_NAME"
  temporal_port="$(free_port)"
  log "$1: starting a Temporal dev server on 127.0.0.1:$temporal_port"
  start_temporal_dev "$temporal_port" "" "" "$RUN_DIR/temporal-$1.log"
  PIDS+=("$TEMPORAL_PID")
  export TEMPORAL_ADDRESS="127.0.0.1:$temporal_port"
  node scripts/ensure-database.js "$DATABASE_URL"
  node dist/apps/cli/src/main.js migrate >"$RUN_DIR/migrate-$1.log" 2>&1
  API_URLS=()
  for n in 1 2; do
    port="$(free_port)"
    PORT="$port" node dist/apps/api/src/main.js >"$RUN_DIR/api-$1-$n.log" 2>&1 &
    PIDS+=("$!")
    wait_for_port 127.0.0.1 "$port" 60 "${PIDS[-1]}" || { cat "$RUN_DIR/api-$1-$n.log" >&2; exit 1; }
    API_URLS+=("http://127.0.0.1:$port")
  done
  API_KEY="$(node dist/apps/cli/src/main.js bootstrap --workspace scale --json |
    node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>console.log(JSON.parse(s).api_key))')"
}

start_worker() { # label n
  WORKER_STATE_DIR="$RUN_DIR/worker-$1-$2" node dist/apps/worker/src/main.js >"$RUN_DIR/worker-$1-$2.log" 2>&1 &
  PIDS+=("$!")
}

# One phase: the load bench through the second API (the first serves the same database), service
# side only.
phase() { # label
  log "phase: $1"
  SVC_URL="${API_URLS[1]}" SVC_API_KEY="$API_KEY" \
    node -r @swc-node/register bench/load.ts "$JOBS" "$SECONDS_PER_PHASE" "$INTERVAL" --only=svc --noop=0 \
    >"$RUN_DIR/$1.out" 2>"$RUN_DIR/$1.err" || { tail -20 "$RUN_DIR/$1.err" >&2; exit 1; }
  tail -n 1 "$RUN_DIR/$1.out" >"$RUN_DIR/$1.json"
  # what became of every due occurrence (delivered, skipped, collapsed, other statuses, no run)
  grep -m 1 '^service mirror:' "$RUN_DIR/$1.out" | sed "s/^/[$1] /" >&2 || true
}

stack_up one-worker
start_worker one-worker 1
sleep 3
phase one-worker
stack_down

stack_up two-workers
start_worker two-workers 1
start_worker two-workers 2
sleep 3
phase two-workers
stack_down

node - "$RUN_DIR/one-worker.json" "$RUN_DIR/two-workers.json" "$JOBS" "$INTERVAL" <<'NODE'
const [, , oneFile, twoFile, jobs, interval] = process.argv;
const read = (f) => JSON.parse(require('fs').readFileSync(f, 'utf8'));
const rows = [['1 worker, 2 APIs', read(oneFile)], ['2 workers, 2 APIs', read(twoFile)]];
console.log(`scale-out: ${jobs} jobs every ${interval} s, one Temporal dev server, one PostgreSQL, ${require('os').cpus().length} CPUs\n`);
console.log('| processes | delivered/s (offered) | lag p50 ms | p99 ms | lost | mirror unaccounted | load average after |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
for (const [label, r] of rows) {
  const s = r.sides[0];
  console.log(
    `| ${label} | ${s.deliveriesPerS} (${s.offeredPerS}) | ${s.lagMs.p50} | ${s.lagMs.p99} | ${s.lost} | ${r.mirror?.unaccounted ?? '-'} | ${r.loadAverage.after.join(' ')} |`,
  );
}
const [a, b] = rows.map(([, r]) => r.sides[0].deliveriesPerS);
console.log(`\ndeliveries/s, 2 workers / 1 worker: ${a ? (b / a).toFixed(2) : '-'}x`);
NODE
