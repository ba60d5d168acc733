#!/usr/bin/env bash
# Scale-out bench (issue #13): two API processes and one, then two, worker processes of the
# service on one Temporal dev server and one PostgreSQL database, with `bench/load.ts` offering the
# same load to each configuration; prints deliveries/s, start lag and the load average of each.
# Starts everything it needs (Temporal on a free port, a scratch database on the local
# PostgreSQL), stops and drops it at the end; loopback only.
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
DB_NAME="svc_scale_$$"
DATABASE_URL="${ADMIN_URL%/*}/$DB_NAME"
RUN_DIR="$(mktemp -d)"
PIDS=()

cleanup() {
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  node -e 'const {Client}=require("pg");const c=new Client({connectionString:process.argv[1]});
    c.connect().then(()=>c.query(`DROP DATABASE IF EXISTS "${process.argv[2]}" WITH (FORCE)`)).finally(()=>c.end())' \
    "$ADMIN_URL" "$DB_NAME" 2>/dev/null || true
  rm -rf "$RUN_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ -f dist/apps/api/src/main.js ] || { log "building"; npm run --silent build >"$RUN_DIR/build.log" 2>&1; }

temporal_port="$(free_port)"
log "starting a Temporal dev server on 127.0.0.1:$temporal_port"
start_temporal_dev "$temporal_port" "" "" "$RUN_DIR/temporal.log"
PIDS+=("$TEMPORAL_PID")

export DATABASE_URL TEMPORAL_ADDRESS="127.0.0.1:$temporal_port" HOST=127.0.0.1
export LIMITS_API_RATE_LIMIT_PER_MINUTE=0 METRICS_WORKER_PORT=0 METRICS_TEMPORAL_SDK_PORT=0
export SECRETS_ENCRYPTION_KEY
SECRETS_ENCRYPTION_KEY="$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))')"
node scripts/ensure-database.js "$DATABASE_URL"
node dist/apps/cli/src/main.js migrate >"$RUN_DIR/migrate.log" 2>&1

start_worker() {
  node dist/apps/worker/src/main.js >"$RUN_DIR/worker-$1.log" 2>&1 &
  PIDS+=("$!")
}
API_URLS=()
for n in 1 2; do
  port="$(free_port)"
  PORT="$port" node dist/apps/api/src/main.js >"$RUN_DIR/api-$n.log" 2>&1 &
  PIDS+=("$!")
  wait_for_port 127.0.0.1 "$port" 60 "${PIDS[-1]}" || { cat "$RUN_DIR/api-$n.log" >&2; exit 1; }
  API_URLS+=("http://127.0.0.1:$port")
done
API_KEY="$(node dist/apps/cli/src/main.js bootstrap --workspace scale --json |
  node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>console.log(JSON.parse(s).api_key))')"

# One phase: the load bench against one API (the other serves the same database), service side only.
phase() { # label api_url
  log "phase: $1"
  SVC_URL="$2" SVC_API_KEY="$API_KEY" TEMPORAL_ADDRESS="127.0.0.1:$temporal_port" \
    node -r @swc-node/register bench/load.ts "$JOBS" "$SECONDS_PER_PHASE" "$INTERVAL" --only=svc --noop=0 \
    >"$RUN_DIR/$1.out" 2>"$RUN_DIR/$1.err" || { tail -20 "$RUN_DIR/$1.err" >&2; exit 1; }
  tail -n 1 "$RUN_DIR/$1.out" >"$RUN_DIR/$1.json"
  # what became of every due occurrence (delivered, skipped, collapsed, other statuses, no run)
  grep -m 1 '^service mirror:' "$RUN_DIR/$1.out" | sed "s/^/[$1] /" >&2 || true
}

start_worker 1
sleep 3
phase one-worker "${API_URLS[0]}"
start_worker 2
sleep 3
phase two-workers "${API_URLS[1]}"

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
