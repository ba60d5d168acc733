#!/usr/bin/env bash
# Contract fuzzing (issue #8, docs/api.md → Contract fuzzing): Schemathesis (PyPI `schemathesis`,
# installed into .tools/) generates requests for every operation of the served OpenAPI document
# and checks every response: no 5xx, bodies and headers as documented. The stack is assembled from
# dist/ (run `npm run build` first): its own Temporal dev server, its own embedded PostgreSQL, the
# worker and the API, with an API key from `svc bootstrap`.
#
# Traffic stays on 127.0.0.1: the whole run happens in a fresh network namespace holding only
# loopback (`unshare -n`), and the API and worker also load scripts/loopback-only.js, which refuses
# any other destination (the only fence when no namespace can be made).
#
# Usage: bash scripts/fuzz.sh [--max-examples N] [--seed N] [any other `st run` option]
#   defaults: --max-examples $SVC_FUZZ_MAX_EXAMPLES (12), --seed $SVC_FUZZ_SEED (a fixed one, so CI
#   is repeatable). Exits 0 when Schemathesis found nothing and generated at least
#   $SVC_FUZZ_MIN_CASES (2000) cases. Reports land in $SVC_FUZZ_REPORT_DIR (default .test-data/fuzz).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

SCHEMATHESIS_VERSION="4.32.5"
REPORT_DIR="${SVC_FUZZ_REPORT_DIR:-$ROOT/.test-data/fuzz}"
MIN_CASES="${SVC_FUZZ_MIN_CASES:-2000}"

# Installed under a `site-packages` folder: Hypothesis draws string constants from every module it
# takes for the project's own (any path without `site-packages`), and urllib3's `@@@SKIP_HEADER@@@`
# sent as a header value crashes the client (a Schemathesis "Runtime Error", not the API's).
ST_DIR="$ROOT/.tools/schemathesis/site-packages"

ensure_schemathesis() {
  local dir="$ST_DIR"
  if [ ! -x "$dir/bin/st" ] || ! grep -qx "$SCHEMATHESIS_VERSION" "$dir/.version" 2>/dev/null; then
    log "installing Schemathesis (pip: schemathesis==$SCHEMATHESIS_VERSION) into .tools/"
    rm -rf "$ROOT/.tools/schemathesis"
    python3 -m pip install --quiet --disable-pip-version-check --target "$dir" \
      "schemathesis==$SCHEMATHESIS_VERSION" >&2 2>/dev/null || return 1
    echo "$SCHEMATHESIS_VERSION" >"$dir/.version"
  fi
}

# Outside a namespace: install what needs the network, then re-run this script inside one.
if [ -z "${SVC_FUZZ_INSIDE:-}" ]; then
  ensure_schemathesis || { log "Schemathesis could not be installed"; exit 1; }
  ensure_temporal_cli >/dev/null || { log "the Temporal CLI could not be installed"; exit 1; }
  [ -f dist/apps/api/src/main.js ] || { log "dist/ is missing: run npm run build first"; exit 1; }
  rm -rf "$REPORT_DIR" && mkdir -p "$REPORT_DIR"
  if unshare -n true 2>/dev/null && command -v ip >/dev/null 2>&1; then
    log "fuzzing inside a network namespace (loopback only)"
    exec unshare -n env SVC_FUZZ_INSIDE=netns bash -c 'ip link set lo up && exec bash "$0" "$@"' "$0" "$@"
  fi
  log "no network namespace available: relying on the loopback-only guard"
  exec env SVC_FUZZ_INSIDE=guard bash "$0" "$@"
fi

WORK="$(mktemp -d "$ROOT/.test-data/fuzz-run-XXXXXX")"
chmod 755 "$WORK" # embedded PostgreSQL runs as the postgres user when we are root
PIDS=()
cleanup() {
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill -TERM "${PIDS[i]}" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

temporal_port="$(free_port)"
start_temporal_dev "$temporal_port" "" "" "$WORK/temporal.log" || { tail -20 "$WORK/temporal.log" >&2; exit 1; }
PIDS+=("$TEMPORAL_PID")

pg_port="$(free_port)"
node scripts/embedded-postgres.js "$WORK/pg" "$pg_port" >"$WORK/pg.log" 2>&1 &
PIDS+=("$!")
wait_for_port 127.0.0.1 "$pg_port" 120 "${PIDS[-1]}" || { tail -20 "$WORK/pg.log" >&2; log "PostgreSQL did not start"; exit 1; }

api_port="$(free_port)"
export DATABASE_URL="postgres://postgres:postgres@127.0.0.1:$pg_port/svc_fuzz"
export TEMPORAL_ADDRESS="127.0.0.1:$temporal_port" TEMPORAL_TASK_QUEUE="svc-fuzz"
export HOST=127.0.0.1 PORT="$api_port" PUBLIC_URL="http://127.0.0.1:$api_port"
export SECRETS_ENCRYPTION_KEY="$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))')"
# Rate limits stay on (their headers are part of the contract) but never bite the fuzzer.
export LIMITS_API_RATE_LIMIT_PER_MINUTE=10000000 LIMITS_SCHEDULE_RATE_LIMIT_PER_MINUTE=10000000
export SINKS_COMMAND_ENABLED=false SINKS_WEBHOOK_DNS_SERVERS=127.0.0.1:9
export METRICS_WORKER_PORT=0 METRICS_TEMPORAL_SDK_PORT=0
node scripts/ensure-database.js "$DATABASE_URL" || exit 1
node dist/apps/cli/src/main.js migrate >"$WORK/migrate.log" 2>&1 || { cat "$WORK/migrate.log" >&2; exit 1; }
API_KEY="$(node dist/apps/cli/src/main.js bootstrap --workspace fuzz --json |
  node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>process.stdout.write(JSON.parse(s).api_key))')" || exit 1

GUARD=(--require "$ROOT/scripts/loopback-only.js")
WORKER_STATE_DIR="$WORK/worker" node "${GUARD[@]}" dist/apps/worker/src/main.js >"$REPORT_DIR/worker.log" 2>&1 &
PIDS+=("$!")
node "${GUARD[@]}" dist/apps/api/src/main.js >"$REPORT_DIR/api.log" 2>&1 &
PIDS+=("$!")
wait_for_port 127.0.0.1 "$api_port" 60 "${PIDS[-1]}" || { tail -30 "$REPORT_DIR/api.log" >&2; log "the API did not start"; exit 1; }

# Something to find: a secret, a second key, an alert channel and rule, jobs (their webhooks go to a
# closed loopback port) and a failed run. Lists answer them, and the document's links lead the stateful phase to their ids.
node -e '
  const [base, key] = process.argv.slice(1);
  const call = async (method, path, body) => {
    const r = await fetch(base + path, { method, headers: { authorization: "Bearer " + key,
      ...(body ? { "content-type": "application/json" } : {}) }, body: body && JSON.stringify(body) });
    if (r.status >= 300) throw new Error(method + " " + path + " answered " + r.status + ": " + (await r.text()));
    return r.status === 204 ? null : r.json();
  };
  (async () => {
    await call("PUT", "/api/v1/secrets/FUZZ_TOKEN", { value: "not-a-real-secret" });
    await call("POST", "/api/v1/api-keys", { name: "fuzz reader", scopes: ["jobs:read", "runs:read"] });
    const job = { schedule: { expr: "every day at 3am" }, retry: { max_attempts: 1 },
      sink: { kind: "webhook", config: { url: "http://127.0.0.1:9/hook", headers: { "x-token": "{{secret.FUZZ_TOKEN}}" } } } };
    await call("POST", "/api/v1/jobs", { ...job, name: "fuzz paused", tags: ["fuzz"] }).then((j) => call("POST", `/api/v1/jobs/${j.id}/pause`));
    const channel = await call("POST", "/api/v1/alert-channels", { name: "fuzz hook", kind: "webhook", config: { url: "http://127.0.0.1:9/alert" } });
    await call("POST", "/api/v1/alert-rules", { name: "fuzz rule", channel_ids: [channel.id], events: ["run.failed"] });
    const { id } = await call("POST", "/api/v1/jobs", { ...job, name: "fuzz active", tags: ["fuzz"] });
    const { run_id } = await call("POST", `/api/v1/jobs/${id}/trigger`);
    for (let i = 0; i < 100; i++) {
      if ((await call("GET", `/api/v1/runs/${run_id}`)).status === "failed") return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error("the seeded run did not fail in time");
  })().catch((err) => { console.error(err.message); process.exit(1); });
' "http://127.0.0.1:$api_port" "$API_KEY" || { tail -30 "$REPORT_DIR/api.log" >&2; log "seeding the stack failed"; exit 1; }

# The settings: scripts/fuzz.toml, plus one entry per operation whose inputs the server checks
# beyond their schemas (the document's `x-server-checks`: a schedule that must parse, a secret that
# must exist, …): there, and only there, a schema-valid request may be refused with 400. Likewise
# an operation that takes a precondition header (`If-Match`, `If-None-Match`: PUT by key) may
# answer 412 when the condition does not hold: like 409, an answer about the state, not the input.
node -e '
  const [base, out, fixed] = process.argv.slice(1);
  const PRECONDITIONS = ["#/components/parameters/IfMatch", "#/components/parameters/IfNoneMatch"];
  fetch(base + "/api/v1/openapi.json").then((r) => r.json()).then((doc) => {
    let toml = require("fs").readFileSync(fixed, "utf8");
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        const checked = Boolean(op["x-server-checks"]);
        const conditional = (op.parameters ?? []).some((p) => PRECONDITIONS.includes(p.$ref));
        if (checked || conditional) {
          const statuses = ["2xx", "3xx", ...(checked ? ["400"] : []), "401", "403", "404", "409",
            ...(conditional ? ["412"] : []), "429", "5xx"];
          toml += `\n[[operations]]\ninclude-operation-id = ${JSON.stringify(op.operationId)}\n` +
            `checks.positive_data_acceptance.expected-statuses = ${JSON.stringify(statuses)}\n`;
        }
      }
    }
    require("fs").writeFileSync(out, toml);
  });
' "http://127.0.0.1:$api_port" "$WORK/fuzz.toml" "$ROOT/scripts/fuzz.toml" || { log "reading the document failed"; exit 1; }

log "Schemathesis $SCHEMATHESIS_VERSION against http://127.0.0.1:$api_port"
status=0
# One worker: with two, Hypothesis' lambda-source cache races and Schemathesis reports runtime
# errors of its own (not the API's); one is as fast here, the API being the bottleneck.
PYTHONPATH="$ST_DIR" SCHEMATHESIS_HOOKS="$ROOT/scripts/fuzz_hooks.py" "$ST_DIR/bin/st" \
  --config-file "$WORK/fuzz.toml" run \
  "http://127.0.0.1:$api_port/api/v1/openapi.json" \
  --url "http://127.0.0.1:$api_port" \
  --header "Authorization: Bearer $API_KEY" \
  --checks all \
  --max-examples "${SVC_FUZZ_MAX_EXAMPLES:-12}" \
  --seed "${SVC_FUZZ_SEED:-20261122}" \
  --workers 1 \
  --request-timeout 15 \
  --suppress-health-check all \
  --no-color \
  --report junit,ndjson --report-dir "$REPORT_DIR" \
  "$@" >"$REPORT_DIR/schemathesis.log" 2>&1 || status=$?

# The run's own count of generated cases (the ndjson events' totals), checked against the floor.
cases="$(node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
  let total = 0;
  for (const line of lines) {
    const event = JSON.parse(line);
    const finished = event.ScenarioFinished ?? event.scenario_finished;
    if (finished && finished.recorder) total += Object.keys(finished.recorder.cases ?? {}).length;
  }
  process.stdout.write(String(total));
' "$(ls "$REPORT_DIR"/*.ndjson 2>/dev/null | head -1)" 2>/dev/null || echo 0)"
tail -40 "$REPORT_DIR/schemathesis.log" >&2
# A run whose key was revoked half-way tested little but 401s: the key must still work.
if ! node -e 'fetch(process.argv[1],{headers:{authorization:"Bearer "+process.argv[2]}}).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))' \
  "http://127.0.0.1:$api_port/api/v1/me" "$API_KEY"; then
  log "the fuzzer's API key no longer works: the run tested little beyond 401s"
  status=1
fi
log "Schemathesis generated $cases cases (floor $MIN_CASES), exit status $status"
if [ "$status" -ne 0 ]; then
  log "Schemathesis found failures; full log: $REPORT_DIR/schemathesis.log"
  exit 1
fi
if [ "$cases" -lt "$MIN_CASES" ]; then
  log "fewer than $MIN_CASES cases were generated"
  exit 1
fi
