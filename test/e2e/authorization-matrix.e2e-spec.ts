import { newId } from '@svc/workflow-contract/ids';
import { SEARCH_ATTRIBUTES } from '@svc/workflow-contract/definitions';
import { WorkflowNotFoundError } from '@temporalio/client';
import { waitFor, WebhookReceiver } from '../utils/receiver';
import { apiClient, useStackReceiverAndClient } from '../utils/stack';

/**
 * Workspace isolation as a matrix (issue 41; design/style.md habit 13; docs/security.md →
 * Workspace isolation). Workspace A holds one of every resource; workspace B's full-access key
 * calls EVERY operation of the served OpenAPI document with A's ids. Each operation has a row in
 * MATRIX saying how it is checked; an operation without a row, or a row without an operation,
 * fails the first test, so a new route cannot ship without deciding how it is isolated.
 *
 * - `foreign`: B's call with an id of A answers 404 `not_found`, byte for byte what it answers
 *   for an id that never existed (so not even existence leaks); `like-unknown` rows (filters)
 *   only need the second part.
 * - `list`: B's call answers 200 and mentions none of A's ids.
 * - `refer`: a create or update that names A's resources is refused, or makes B's own resource.
 * - `server-wide`: workspace-independent operations (no resource id); they answer B and mention
 *   none of A's ids.
 * - `public` / `sign-in`: no credentials at all; they reveal none of A's ids either.
 *
 * Every authenticated operation is also called by a dashboard session of a user outside A with
 * `Svc-Workspace: <A>`: 403 `forbidden` (spec → Errors: workspace membership). At the end, A's
 * rows in PostgreSQL (and any row anywhere that mentions an id of A), A's Temporal executions and
 * A's webhook receiver are exactly as they were before B started.
 */

interface Req {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/** One call with an id of A, and the same call with an id that never existed. */
interface ForeignCase {
  foreign: string;
  unknown: string;
  request: (id: string) => Req;
}

/** Workspace A, populated in beforeAll. */
interface World {
  ws: string;
  jobs: { active: string; paused: string; disabled: string; all: string[] };
  runs: { succeeded: string; failed: string; all: string[] };
  secret: string;
  /** A calendar of A (issue 45): named, like secrets. */
  calendar: string;
  /** A destination A limits (issue 46): named, like calendars. */
  destination: string;
  channel: string;
  rule: string;
  keys: string[];
  audit: string[];
  /** Job keys of A (issue 42's by-key/apply), once those operations exist. */
  jobKeys: string[];
  managedBy: string;
  /** A job body any workspace may send (B's creates use B's receiver). */
  jobBody: (url: string, name: string) => Record<string, unknown>;
  /** A used it on every create (job, trigger, channel, rule, key): B's use of it must not replay A's answer. */
  idempotencyKey: string;
  tag: string;
  /** A's bulk pause waiting for the end of its maintenance window (issue 46): cancelable. */
  operation: string;
  /** A's backfill of its active job (issue 45), completed. */
  backfill: string;
}

type ApiCall = ReturnType<typeof apiClient>;

interface Ctx {
  w: World;
  /** B's full-access key. */
  b: ApiCall;
  baseUrl: string;
  bUrl: string;
  bOwn: { job: string; channel: string; rule: string };
  /** Every id of A (nothing of B may mention one). */
  aIds: () => string[];
}

type Row =
  | {
      kind: 'foreign';
      cases: (w: World) => ForeignCase[];
      /** 404 (default): not_found and indistinguishable from an unknown id; like-unknown: the latter only. */
      expect?: 404 | 'like-unknown';
      pending?: string;
    }
  | { kind: 'list'; request?: Req; pending?: string }
  | { kind: 'refer'; why: string; run: (ctx: Ctx) => Promise<string[]>; late?: boolean; pending?: string }
  | { kind: 'server-wide'; why: string; request: Req; pending?: string }
  | { kind: 'public'; why: string; request?: Req; cases?: (w: World) => ForeignCase[]; pending?: string }
  | { kind: 'sign-in'; why: string; request?: Req; pending?: string };

const YEARLY = { expr: '0 0 0 1 1 ?', kind: 'quartz' };

const each = (ids: string[], unknown: () => string, request: (id: string) => Req): ForeignCase[] =>
  ids.map((foreign) => ({ foreign, unknown: unknown(), request }));
/** `each`'s unknown values: a fresh id with `prefix` for every case. */
const unknownId = (prefix: Parameters<typeof newId>[0]) => () => newId(prefix);
/** `each`'s request: the id in the path parameter `name`, beside `extra`. */
const byParam =
  (name: string, extra: Req = {}) =>
  (id: string): Req => ({ params: { [name]: id }, ...extra });
/** `each`'s request: the id in the query parameter `name`, after `extra`'s. */
const byQuery =
  (name: string, extra: Record<string, string> = {}) =>
  (id: string): Req => ({ query: { ...extra, [name]: id } });
const jobCases =
  (pick: (w: World) => string[], extra: Req = {}) =>
  (w: World) =>
    each(pick(w), unknownId('job'), byParam('id', extra));
const runCases = (pick: (w: World) => string[]) => (w: World) => each(pick(w), unknownId('run'), byParam('id'));
const channelCases =
  (extra: Req = {}) =>
  (w: World) =>
    each([w.channel], unknownId('channel'), byParam('id', extra));
const ruleCases =
  (extra: Req = {}) =>
  (w: World) =>
    each([w.rule], unknownId('rule'), byParam('id', extra));
const jobKeyCases =
  (extra: Req = {}) =>
  (w: World) =>
    each(w.jobKeys, () => `matrix-unknown-${Math.random().toString(36).slice(2, 8)}`, byParam('key', extra));
const backfillCases = (w: World) => each([w.backfill], unknownId('backfill'), byParam('id'));
const operationCases = (w: World) => each([w.operation], unknownId('operation'), byParam('id'));
/**
 * B's own create (or trigger) of `path`, sent with the Idempotency-Key A used: answered `status`
 * and naming no id of A (not A's replay); otherwise a problem, after `label`.
 */
async function ownDespiteAsKey(ctx: Ctx, path: string, body: unknown, status = 201, label = ''): Promise<string[]> {
  const answer = await ctx.b('POST', path, body, { 'idempotency-key': ctx.w.idempotencyKey });
  const text = JSON.stringify(answer.body);
  return answer.status === status && !ctx.aIds().some((id) => text.includes(id))
    ? []
    : [`${label}${answer.status} ${text}`];
}
/** A bulk action or recover by B whose filter names A's things must match nothing of A. */
async function matchesNothingOfA(ctx: Ctx, path: string, bodies: Array<Record<string, unknown>>): Promise<string[]> {
  const problems: string[] = [];
  for (const body of bodies) {
    const answer = await ctx.b('POST', path, body);
    const text = JSON.stringify(answer.body);
    if (
      ![200, 202].includes(answer.status) ||
      answer.body.matched !== 0 ||
      ctx.aIds().some((id) => text.includes(id))
    ) {
      problems.push(`${JSON.stringify(body)}: ${answer.status} ${text}`);
    }
  }
  return problems;
}
const skipCases =
  (extra: Req = {}) =>
  (w: World) =>
    each(w.jobs.all, unknownId('job'), (id) => ({ params: { id, at: '2031-01-01T00:00:00.000Z' }, ...extra }));
const calendarCases = (w: World) => each([w.calendar], () => 'matrix:never-stored', byParam('name'));
/** B writes a calendar under A's name (its own, 201) and deletes it again. */
async function ownCalendar(b: ApiCall, method: 'PUT' | 'POST', name: string): Promise<string[]> {
  const written =
    method === 'PUT'
      ? await b('PUT', `/api/v1/calendars/${name}`, { dates: ['2031-02-02'] })
      : await b('POST', '/api/v1/calendars', { name, dates: ['2031-02-02'] });
  if (written.status !== 201 || JSON.stringify(written.body.dates) !== '["2031-02-02"]') {
    return [`${method} A's calendar name: ${written.status} ${JSON.stringify(written.body)}`];
  }
  const removed = await b('DELETE', `/api/v1/calendars/${name}`);
  return removed.status === 204 ? [] : [`DELETE B's own calendar of A's name: ${removed.status}`];
}
const destinationCases = (w: World) =>
  each([w.destination], () => 'matrix-never-stored.example.com:443', byParam('destination'));
const BY_KEY = 'issue 42 (jobs as code, branch h4-jobs-as-code): checked once the operation is in the document';

/**
 * How each operation of the document is checked, by `METHOD /path` (path parameters as the
 * document names them). Add a row with every new operation.
 */
const MATRIX: Record<string, Row> = {
  // Jobs: every state-changing operation is tried on the job in the state where it would succeed in A.
  'GET /api/v1/jobs': { kind: 'list', request: { query: { limit: '200' } } },
  'GET /api/v1/jobs?tag&q': {
    kind: 'foreign',
    expect: 'like-unknown',
    cases: (w) => [
      ...each([w.tag], () => 'matrix-unknown-tag', byQuery('tag')),
      ...each(['matrix-a-active'], () => 'matrix-unknown-name', byQuery('q')),
      // Issue 42's filters, once A has keyed jobs (an unsupported filter answers both alike).
      ...each(w.jobKeys, () => 'matrix-unknown-key', byQuery('key')),
      ...(w.jobKeys.length > 0 ? each([w.managedBy], () => 'matrix-unknown-owner', byQuery('managed_by')) : []),
    ],
  },
  'POST /api/v1/jobs': {
    kind: 'refer',
    why: "a job naming A's secret is refused; reusing A's Idempotency-Key makes B's own job",
    run: async (ctx) => {
      const { w, b, bUrl, aIds } = ctx;
      const problems: string[] = [];
      const withSecret = await b('POST', '/api/v1/jobs', {
        ...w.jobBody(bUrl, 'b-steals-secret'),
        sink: {
          kind: 'webhook',
          config: { url: bUrl, headers: { authorization: `Bearer {{secret.${w.secret}}}` } },
        },
      });
      if (withSecret.status !== 400 || withSecret.body.error?.code !== 'validation_failed') {
        problems.push(`job with A's secret: ${withSecret.status} ${JSON.stringify(withSecret.body)}`);
      }
      // The same body A sent with the same Idempotency-Key: B gets a new job of its own, not A's replay.
      problems.push(
        ...(await ownDespiteAsKey(
          ctx,
          '/api/v1/jobs',
          w.jobBody(bUrl, 'matrix-a-active'),
          201,
          "A's Idempotency-Key: ",
        )),
      );
      // Issue 42: job keys are unique per workspace, not across workspaces.
      for (const key of w.jobKeys) {
        const keyed = await b('POST', '/api/v1/jobs', { ...w.jobBody(bUrl, `b posts ${key}`), key });
        if (keyed.status !== 201 || aIds().some((id) => JSON.stringify(keyed.body).includes(id))) {
          problems.push(`POST with A's key ${key}: ${keyed.status} ${JSON.stringify(keyed.body)}`);
        }
      }
      return problems;
    },
  },
  'POST /api/v1/jobs/test': {
    kind: 'refer',
    why: "an unsaved job naming A's secret is refused before anything is sent",
    run: async ({ w, b, bUrl }) => {
      const tested = await b('POST', '/api/v1/jobs/test', {
        ...w.jobBody(bUrl, 'b-tests-secret'),
        sink: { kind: 'webhook', config: { url: bUrl, headers: { 'x-token': `{{secret.${w.secret}}}` } } },
      });
      return tested.status === 400 && tested.body.error?.code === 'validation_failed'
        ? []
        : [`test with A's secret: ${tested.status} ${JSON.stringify(tested.body)}`];
    },
  },
  'GET /api/v1/jobs/{id}': { kind: 'foreign', cases: jobCases((w) => w.jobs.all) },
  'PATCH /api/v1/jobs/{id}': {
    kind: 'foreign',
    cases: jobCases((w) => w.jobs.all, { body: { name: 'stolen by B' } }),
  },
  'PATCH /api/v1/jobs/{id} (own job, A’s secret)': {
    kind: 'refer',
    why: "B's own job cannot be changed to use A's secret",
    run: async ({ w, b, bUrl, bOwn }) => {
      const patched = await b('PATCH', `/api/v1/jobs/${bOwn.job}`, {
        sink: { kind: 'webhook', config: { url: bUrl, body: `{"token":"{{secret.${w.secret}}}"}` } },
      });
      return patched.status === 400 && patched.body.error?.code === 'validation_failed'
        ? []
        : [`own job to A's secret: ${patched.status} ${JSON.stringify(patched.body)}`];
    },
  },
  'DELETE /api/v1/jobs/{id}': { kind: 'foreign', cases: jobCases((w) => w.jobs.all) },
  'POST /api/v1/jobs/{id}/pause': { kind: 'foreign', cases: jobCases((w) => [w.jobs.active]) },
  'POST /api/v1/jobs/{id}/resume': { kind: 'foreign', cases: jobCases((w) => [w.jobs.paused]) },
  'POST /api/v1/jobs/{id}/enable': { kind: 'foreign', cases: jobCases((w) => [w.jobs.disabled]) },
  'POST /api/v1/jobs/{id}/trigger': { kind: 'foreign', cases: jobCases((w) => w.jobs.all) },
  'POST /api/v1/jobs/{id}/trigger (own job, A’s Idempotency-Key)': {
    kind: 'refer',
    why: "B triggering its own job with the Idempotency-Key A used gets a run of its own, not A's replay",
    run: (ctx) => ownDespiteAsKey(ctx, `/api/v1/jobs/${ctx.bOwn.job}/trigger`, undefined, 202),
  },
  'POST /api/v1/jobs/{id}/test': { kind: 'foreign', cases: jobCases((w) => w.jobs.all) },
  'POST /api/v1/jobs/{id}/rotate-signing-secret': { kind: 'foreign', cases: jobCases((w) => w.jobs.all) },
  'GET /api/v1/jobs/{id}/runs': { kind: 'foreign', cases: jobCases((w) => w.jobs.all) },
  // Issue 45: an occurrence of A's jobs (YEARLY fires at 2031-01-01T00:00Z) is B's 404 either way.
  'POST /api/v1/jobs/{id}/occurrences/{at}/skip': { kind: 'foreign', cases: skipCases({ body: { note: 'b' } }) },
  'DELETE /api/v1/jobs/{id}/occurrences/{at}/skip': { kind: 'foreign', cases: skipCases() },

  // Jobs by key and apply (issue 42): B naming a key that A uses gets 404, or makes its own job.
  'GET /api/v1/jobs/by-key/{key}': { kind: 'foreign', cases: jobKeyCases(), pending: BY_KEY },
  'DELETE /api/v1/jobs/by-key/{key}': { kind: 'foreign', cases: jobKeyCases(), pending: BY_KEY },
  'PUT /api/v1/jobs/by-key/{key}': {
    kind: 'refer',
    why: "B's PUT of a key A uses creates (or updates) B's own job; A's stays as it was",
    pending: BY_KEY,
    late: true,
    run: async ({ w, b, bUrl, aIds }) => {
      const problems: string[] = [];
      for (const key of w.jobKeys) {
        const put = await b('PUT', `/api/v1/jobs/by-key/${encodeURIComponent(key)}`, w.jobBody(bUrl, `b ${key}`));
        // 201, or 200 where the POST row above already made B's own job under that key.
        if (![200, 201].includes(put.status) || aIds().some((id) => JSON.stringify(put.body).includes(id))) {
          problems.push(`PUT by-key ${key}: ${put.status} ${JSON.stringify(put.body)}`);
        }
      }
      return problems;
    },
  },
  'POST /api/v1/jobs/apply': {
    kind: 'refer',
    why: "B applying A's keys under A's managed_by with prune creates B's own jobs and prunes nothing of A",
    pending: BY_KEY,
    late: true,
    run: async ({ w, b, bUrl, aIds }) => {
      const applied = await b('POST', '/api/v1/jobs/apply', {
        managed_by: w.managedBy,
        prune: true,
        // The PUT row above made B's own job under one of these keys by hand: B may adopt its own.
        adopt: true,
        jobs: w.jobKeys.map((key) => ({ key, ...w.jobBody(bUrl, `b applied ${key}`) })),
      });
      const text = JSON.stringify(applied.body);
      return applied.status === 200 && !aIds().some((id) => text.includes(id))
        ? []
        : [`apply: ${applied.status} ${text}`];
    },
  },
  'GET /api/v1/schemas/jobs-file.json': { kind: 'public', why: 'the JSON Schema of a jobs file', pending: BY_KEY },

  // Runs and their attempts (GET /runs/{id} carries the attempts).
  'GET /api/v1/runs': { kind: 'list', request: { query: { limit: '200' } } },
  'GET /api/v1/runs?job_id': {
    kind: 'foreign',
    expect: 'like-unknown',
    cases: (w) => each(w.jobs.all, unknownId('job'), byQuery('job_id')),
  },
  'GET /api/v1/runs?tag': {
    kind: 'foreign',
    expect: 'like-unknown',
    cases: (w) => each([w.tag], () => 'matrix-unknown-tag', byQuery('tag')),
  },
  'GET /api/v1/runs/{id}': { kind: 'foreign', cases: runCases((w) => w.runs.all) },
  'POST /api/v1/runs/{id}/retry': { kind: 'foreign', cases: runCases((w) => [w.runs.failed]) },
  // A finished run of A answers B 404, not A's 409: B learns nothing of its state.
  'POST /api/v1/runs/{id}/cancel': { kind: 'foreign', cases: runCases((w) => w.runs.all) },

  // Bulk operations (issue 46): B's filters match B's jobs and runs only; A's operation is A's.
  'POST /api/v1/jobs/bulk': {
    kind: 'refer',
    why: "a bulk action whose filter names A's jobs (dry run) or A's tag (dry run and real) matches none of A's",
    run: (ctx) =>
      matchesNothingOfA(ctx, '/api/v1/jobs/bulk', [
        { action: 'pause', filter: { ids: ctx.w.jobs.all }, dry_run: true },
        { action: 'delete', filter: { tags: [ctx.w.tag] }, dry_run: true },
        { action: 'pause', filter: { tags: [ctx.w.tag] }, note: 'b' },
      ]),
  },
  'POST /api/v1/runs/recover': {
    kind: 'refer',
    why: "a recover whose filter names A's jobs (dry run) or A's tag (dry run and real) retries none of A's runs",
    run: (ctx) =>
      matchesNothingOfA(ctx, '/api/v1/runs/recover', [
        { filter: { job_ids: ctx.w.jobs.all }, dry_run: true },
        { filter: { tags: [ctx.w.tag] }, dry_run: true },
        { filter: { tags: [ctx.w.tag] } },
      ]),
  },
  'GET /api/v1/operations/{id}': { kind: 'foreign', cases: operationCases },
  'POST /api/v1/operations/{id}/cancel': { kind: 'foreign', cases: operationCases },

  // Backfills (issue 45): A's job cannot be backfilled by B (dry run or not); A's backfill is A's.
  'POST /api/v1/jobs/{id}/backfill': {
    kind: 'foreign',
    cases: jobCases((w) => w.jobs.all, {
      body: { from: '2025-03-01T00:00:00Z', to: '2025-03-02T00:00:00Z', dry_run: false },
    }),
  },
  'GET /api/v1/backfills/{id}': { kind: 'foreign', cases: backfillCases },
  'POST /api/v1/backfills/{id}/cancel': { kind: 'foreign', cases: backfillCases },

  // Secrets are named, not numbered: B's name space is its own.
  'GET /api/v1/secrets': { kind: 'list' },
  'DELETE /api/v1/secrets/{name}': {
    kind: 'foreign',
    cases: (w) => each([w.secret], () => 'MATRIX_NEVER_STORED', byParam('name')),
  },
  'PUT /api/v1/secrets/{name}': {
    kind: 'refer',
    why:
      "B's PUT of a name A uses creates B's own secret (201, not 200 replaced); B may delete it, A's job using " +
      'that name does not lock it (409 would name A’s job)',
    late: true,
    run: async ({ w, b, aIds }) => {
      const put = await b('PUT', `/api/v1/secrets/${w.secret}`, { value: 'b-own-value' });
      if (put.status !== 201) {
        return [`PUT A's secret name: ${put.status} ${JSON.stringify(put.body)}`];
      }
      const removed = await b('DELETE', `/api/v1/secrets/${w.secret}`);
      const text = JSON.stringify(removed.body);
      return removed.status === 204 && !aIds().some((id) => text.includes(id))
        ? []
        : [`DELETE B's own secret of A's name: ${removed.status} ${text}`];
    },
  },

  // Calendars (issue 45) are named like secrets: B's name space is its own.
  'GET /api/v1/calendars': { kind: 'list' },
  'GET /api/v1/calendars/{name}': { kind: 'foreign', cases: calendarCases },
  'DELETE /api/v1/calendars/{name}': { kind: 'foreign', cases: calendarCases },
  'PUT /api/v1/calendars/{name}': {
    kind: 'refer',
    why: "B's PUT of a name A uses creates B's own calendar (201, not 200 replaced); B may delete it",
    late: true,
    run: async ({ w, b }) => ownCalendar(b, 'PUT', w.calendar),
  },
  'POST /api/v1/calendars': {
    kind: 'refer',
    why: "B's create with a name A uses makes B's own calendar (201, not A's 409)",
    late: true,
    run: async ({ w, b }) => ownCalendar(b, 'POST', w.calendar),
  },

  // Destination limits (issue 46) are named like calendars: B's name space is its own.
  'GET /api/v1/destinations': { kind: 'list' },
  'GET /api/v1/destinations/{destination}': { kind: 'foreign', cases: destinationCases },
  'DELETE /api/v1/destinations/{destination}': { kind: 'foreign', cases: destinationCases },
  'PUT /api/v1/destinations/{destination}': {
    kind: 'refer',
    why: "B's PUT of a destination A limits creates B's own limits (201, not 200 replaced); A's stay as they were",
    late: true,
    run: async ({ w, b }) => {
      const written = await b('PUT', `/api/v1/destinations/${w.destination}`, { max_in_flight: 7 });
      if (written.status !== 201 || written.body.max_in_flight !== 7 || written.body.in_flight !== 0) {
        return [`PUT A's destination: ${written.status} ${JSON.stringify(written.body)}`];
      }
      const removed = await b('DELETE', `/api/v1/destinations/${w.destination}`);
      return removed.status === 204 ? [] : [`DELETE B's own destination of A's name: ${removed.status}`];
    },
  },

  // Alert channels and rules.
  'GET /api/v1/alert-channels': { kind: 'list' },
  'POST /api/v1/alert-channels': {
    kind: 'refer',
    why: 'a create takes no id of A (and A’s Idempotency-Key replays nothing of A): the channel is B’s own',
    run: (ctx) =>
      ownDespiteAsKey(ctx, '/api/v1/alert-channels', { name: 'b hook', kind: 'webhook', config: { url: ctx.bUrl } }),
  },
  'GET /api/v1/alert-channels/verify': {
    kind: 'public',
    why: 'email verification by signed link (spec → Authentication 7); the token, not a key, names the channel',
    request: { query: { token: 'not-a-token' } },
  },
  'GET /api/v1/alert-channels/{id}': { kind: 'foreign', cases: channelCases() },
  'PATCH /api/v1/alert-channels/{id}': { kind: 'foreign', cases: channelCases({ body: { name: 'stolen' } }) },
  'DELETE /api/v1/alert-channels/{id}': { kind: 'foreign', cases: channelCases() },
  'POST /api/v1/alert-channels/{id}/test': { kind: 'foreign', cases: channelCases() },
  'POST /api/v1/alert-channels/{id}/verify': { kind: 'foreign', cases: channelCases() },
  'GET /api/v1/alert-rules': { kind: 'list' },
  'POST /api/v1/alert-rules': {
    kind: 'refer',
    why: "a rule naming A's channel or A's job is refused with fields; A's Idempotency-Key replays nothing of A",
    run: async (ctx) => {
      const { w, b, bOwn } = ctx;
      const own = { name: 'b second rule', channel_ids: [bOwn.channel], events: ['run.failed'] };
      const problems = await ownDespiteAsKey(
        ctx,
        '/api/v1/alert-rules',
        own,
        201,
        "own rule with A's Idempotency-Key: ",
      );
      for (const [body, field] of [
        [{ name: 'b rule', channel_ids: [w.channel], events: ['run.failed'] }, 'channel_ids'],
        [{ name: 'b rule', channel_ids: [bOwn.channel], events: ['run.failed'], job_ids: [w.jobs.active] }, 'job_ids'],
      ] as const) {
        const created = await b('POST', '/api/v1/alert-rules', body);
        if (created.status !== 400 || !(field in (created.body.error?.fields ?? {}))) {
          problems.push(`rule naming A's ${field}: ${created.status} ${JSON.stringify(created.body)}`);
        }
      }
      return problems;
    },
  },
  'GET /api/v1/alert-rules/{id}': { kind: 'foreign', cases: ruleCases() },
  'PATCH /api/v1/alert-rules/{id}': { kind: 'foreign', cases: ruleCases({ body: { name: 'stolen' } }) },
  'PATCH /api/v1/alert-rules/{id} (own rule, A’s ids)': {
    kind: 'refer',
    why: "B's own rule cannot be pointed at A's channel or job",
    run: async ({ w, b, bOwn }) => {
      const problems: string[] = [];
      for (const [body, field] of [
        [{ channel_ids: [w.channel] }, 'channel_ids'],
        [{ job_ids: [w.jobs.active] }, 'job_ids'],
      ] as const) {
        const patched = await b('PATCH', `/api/v1/alert-rules/${bOwn.rule}`, body);
        if (patched.status !== 400 || !(field in (patched.body.error?.fields ?? {}))) {
          problems.push(`own rule to A's ${field}: ${patched.status} ${JSON.stringify(patched.body)}`);
        }
      }
      return problems;
    },
  },
  'DELETE /api/v1/alert-rules/{id}': { kind: 'foreign', cases: ruleCases() },

  // Keys, audit, workspace, stats, usage, identity.
  'GET /api/v1/api-keys': { kind: 'list' },
  'POST /api/v1/api-keys': {
    kind: 'refer',
    why: 'a create takes no id of A (and A’s Idempotency-Key replays nothing of A): the key is B’s own and sees only B',
    run: async ({ b, aIds, w, baseUrl }) => {
      const created = await b(
        'POST',
        '/api/v1/api-keys',
        { name: 'b extra', scopes: ['*'] },
        { 'idempotency-key': w.idempotencyKey },
      );
      if (created.status !== 201) {
        return [`${created.status} ${JSON.stringify(created.body)}`];
      }
      const seen = await apiClient(baseUrl, created.body.key)('GET', `/api/v1/jobs/${w.jobs.active}`);
      const text = JSON.stringify(created.body);
      return seen.status === 404 && !aIds().some((id) => text.includes(id))
        ? []
        : [`new key of B: ${text}; reads A's job: ${seen.status}`];
    },
  },
  'DELETE /api/v1/api-keys/{id}': {
    kind: 'foreign',
    cases: (w) => each(w.keys, unknownId('apiKey'), byParam('id')),
  },
  'GET /api/v1/audit-log': { kind: 'list', request: { query: { limit: '200' } } },
  'GET /api/v1/audit-log?target': {
    kind: 'foreign',
    expect: 'like-unknown',
    cases: (w) => [
      ...each([...w.jobs.all, w.channel, w.rule, ...w.keys], unknownId('job'), byQuery('target')),
      ...each(
        w.keys,
        () => newId('apiKey'),
        (id) => ({ query: { actor: `key:${id}` } }),
      ),
      ...each(w.audit, unknownId('audit'), byQuery('cursor')),
    ],
  },
  'GET /api/v1/workspaces/{ws}': {
    kind: 'foreign',
    cases: (w) => each([w.ws, 'acme'], unknownId('workspace'), byParam('ws')),
  },
  'PATCH /api/v1/workspaces/{ws}': {
    kind: 'foreign',
    cases: (w) => each([w.ws, 'acme'], unknownId('workspace'), byParam('ws', { body: { name: 'stolen' } })),
  },
  'GET /api/v1/stats/overview': { kind: 'list', request: { query: { window: '30d' } } },
  'GET /api/v1/stats/jobs/hourly': { kind: 'list', request: { query: { window: '24h' } } },
  'GET /api/v1/stats/jobs/hourly?job_id': {
    kind: 'foreign',
    expect: 'like-unknown',
    cases: (w) => each(w.jobs.all, unknownId('job'), byQuery('job_id', { window: '24h' })),
  },
  'GET /api/v1/usage': { kind: 'list' },
  'GET /api/v1/me': { kind: 'list' },
  'GET /api/v1/dashboard/config': { kind: 'list' },

  // The codec server works with the deployment's payload key, not a workspace's (docs/security.md).
  'POST /codec/encode': {
    kind: 'server-wide',
    why: 'encrypts what the caller sends under the deployment key; reads nothing stored',
    request: { body: { payloads: [] } },
  },
  'POST /codec/decode': {
    kind: 'server-wide',
    why: 'decrypts what the caller sends; payloads of A are reachable only through Temporal itself',
    request: { body: { payloads: [] } },
  },
  'OPTIONS /codec/encode': { kind: 'public', why: 'CORS preflight of the codec server' },
  'OPTIONS /codec/decode': { kind: 'public', why: 'CORS preflight of the codec server' },

  // Public (spec → Authentication 7) and the deployment's own surfaces.
  'GET /api/v1/features': { kind: 'public', why: 'server features (spec → Server)' },
  'GET /api/v1/openapi.json': { kind: 'public', why: 'the API description' },
  'GET /api/v1/openapi.yaml': { kind: 'public', why: 'the API description' },
  'GET /api/v1/docs': { kind: 'public', why: 'the API reference page' },
  'POST /api/v1/schedules/validate': {
    kind: 'public',
    why: 'schedule validation (spec → Schedules, no authentication)',
    request: { body: { expr: 'every day at 9am' } },
  },
  'POST /api/v1/schedules/preview': {
    kind: 'public',
    why: 'schedule preview (spec → Schedules, no authentication)',
    request: { body: { expr: 'every day at 9am' } },
  },
  'GET /healthz': { kind: 'public', why: 'liveness' },
  'GET /readyz': { kind: 'public', why: 'readiness' },
  'GET /version': { kind: 'public', why: 'build information' },
  'GET /metrics': {
    kind: 'public',
    why: 'operator metrics (loopback or metrics.token; docs/operations.md): no workspace label values',
  },
  'GET /': { kind: 'public', why: 'the dashboard shell; data comes from the API' },
  'GET /login': { kind: 'public', why: 'the dashboard shell' },
  'GET /jobs': { kind: 'public', why: 'the dashboard shell' },
  'GET /settings': { kind: 'public', why: 'the dashboard shell' },
  'GET /jobs/{wildcard}': {
    kind: 'public',
    why: 'the dashboard shell: the same page for an id of A as for none',
    cases: (w) => each([w.jobs.active], unknownId('job'), byParam('wildcard')),
  },
  'GET /runs/{wildcard}': {
    kind: 'public',
    why: 'the dashboard shell: the same page for an id of A as for none',
    cases: (w) => each([w.runs.succeeded], unknownId('run'), byParam('wildcard')),
  },
  'GET /settings/{wildcard}': {
    kind: 'public',
    why: 'the dashboard shell',
    cases: (w) => each([w.channel], unknownId('channel'), byParam('wildcard')),
  },
  'GET /assets/{name}': { kind: 'public', why: 'static dashboard assets', request: { params: { name: 'nope.js' } } },

  // The dashboard's sign-in routes: they sign a person in; the workspace comes later, per request.
  'POST /api/v1/auth/dev-login': {
    kind: 'sign-in',
    why: 'development sign-in by email; membership decides the workspaces (403 leg below)',
    request: { body: { email: 'matrix-probe@example.com' } },
  },
  'POST /api/v1/auth/logout': { kind: 'sign-in', why: 'ends the caller’s own session' },
  'POST /api/v1/auth/github/start': { kind: 'sign-in', why: 'starts an OAuth redirect' },
  'GET /api/v1/auth/github/callback': { kind: 'sign-in', why: 'OAuth callback, checked by state' },
  'POST /api/v1/auth/google/start': { kind: 'sign-in', why: 'starts an OIDC redirect' },
  'GET /api/v1/auth/google/callback': { kind: 'sign-in', why: 'OIDC callback, checked by state' },
  'POST /api/v1/auth/oidc/start': { kind: 'sign-in', why: 'starts an OIDC redirect' },
  'GET /api/v1/auth/oidc/callback': { kind: 'sign-in', why: 'OIDC callback, checked by state' },
};

/** Rows that check a query parameter or an update of B's own resource live beside their operation. */
function operationOf(row: string): string {
  return row.replace(/\?.*$/, '').replace(/ \(.*\)$/, '');
}

/** `{id}`, `{ws}`, `{key}`: one spelling, so a renamed parameter still matches its row. */
function shapeOf(operation: string): string {
  return operation.replace(/\{[^}]+\}/g, '{}');
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

function urlOf(template: string, req: Req): string {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = req.params?.[name] ?? Object.values(req.params ?? {})[0];
    if (value === undefined) {
      throw new Error(`no value for {${name}} in ${template}`);
    }
    return encodeURIComponent(value);
  });
  const query = req.query ? `?${new URLSearchParams(req.query).toString()}` : '';
  return `${path}${query}`;
}

/** A response with the two ids (and what varies per call) blanked, to compare A's id with none. */
function normalized(status: number, body: unknown, ...ids: string[]): string {
  let text = JSON.stringify({ status, body });
  for (const id of ids) {
    text = text.split(id).join('<ID>');
  }
  return text
    .replace(/"request_id":"[^"]*"/g, '"request_id":"<R>"')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<T>');
}

describe('authorization matrix: workspace B against workspace A (issue 41)', () => {
  // A's receiver fails the deliveries of `/a/fail…`.
  const e2e = useStackReceiverAndClient({
    config: { auth: { dev_login: true } },
    respond: (request) => ({ status: request.url.startsWith('/a/fail') ? 400 : 200, body: 'ok' }),
  });
  let bReceiver: WebhookReceiver;
  let document: { paths: Record<string, Record<string, any>> };
  let operations: string[];
  let w: World;
  let ctx: Ctx;
  let session: { cookie: string; csrf: string; ownWorkspace: string };
  let rowsBefore: string[];
  let executionsBefore: string[];
  let receivedBefore: number;

  const a = () => apiClient(e2e.stack.baseUrl, e2e.stack.apiKey);
  const present = (row: string) => operations.map(shapeOf).includes(shapeOf(operationOf(row)));
  /** Rows to check now: pending rows of absent operations are reported and skipped. */
  function rowsOf(kind: Row['kind']): Array<[string, Row]> {
    return Object.entries(MATRIX).filter(([name, row]) => {
      if (row.kind !== kind) {
        return false;
      }
      if (!present(name)) {
        console.warn(`authorization matrix: skipped ${name}: not in the document yet (${row.pending})`);
        return false;
      }
      return true;
    });
  }
  const documentPathOf = (row: string) => {
    const wanted = shapeOf(operationOf(row));
    const found = operations.find((op) => shapeOf(op) === wanted);
    return found!.slice(found!.indexOf(' ') + 1);
  };
  const aIds = () => [
    w.ws,
    ...w.jobs.all,
    ...w.runs.all,
    w.channel,
    w.rule,
    ...w.keys,
    ...w.audit,
    w.operation,
    w.backfill,
    e2e.stack.apiKey.slice(0, 12),
  ];

  /**
   * Every row that belongs to A or mentions an id of A, in every table, as JSON text. A row of B
   * that names an id of A (a rule on A's channel, a run of A's job) shows up as a difference.
   * `last_used_at` of A's keys is written off the request path by A's own earlier calls.
   */
  async function rowsOfA(): Promise<string[]> {
    const tables: Array<{ name: string }> = await e2e.stack.dataSource.query(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'migrations' ORDER BY 1`,
    );
    const ids = aIds();
    const rows: string[] = [];
    for (const { name } of tables) {
      const all: Array<{ row: string }> = await e2e.stack.dataSource.query(
        `SELECT row_to_json(t)::text AS row FROM "${name}" t`,
      );
      for (const { row } of all) {
        if (ids.some((id) => row.includes(id))) {
          rows.push(`${name} ${row.replace(/"last_used_at":"[^"]*"/, '"last_used_at":"<touched>"')}`);
        }
      }
    }
    return rows.sort();
  }

  /** A's Temporal executions (listed by SvcWorkspaceId, and every known id described): status and history length. */
  async function executionsOfA(): Promise<string[]> {
    const ids = new Set([...w.jobs.all, ...w.runs.all, w.operation, w.backfill]);
    for await (const execution of e2e.client.workflow.list({ query: `${SEARCH_ATTRIBUTES.workspaceId} = '${w.ws}'` })) {
      ids.add(execution.workflowId);
    }
    const out: string[] = [];
    for (const id of [...ids].sort()) {
      try {
        const d = await e2e.client.workflow.getHandle(id).describe();
        out.push(`${id} ${d.runId} ${d.status.name} ${d.historyLength}`);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) {
          throw err;
        }
        out.push(`${id} not found`);
      }
    }
    return out;
  }

  /** A's rows and executions once two reads a second apart agree (A's own last writes and signals have landed). */
  async function settledStateOfA(): Promise<[string[], string[]]> {
    let previous = '';
    await waitFor(
      async () => {
        const now = JSON.stringify([await rowsOfA(), await executionsOfA()]);
        const settled = now === previous;
        previous = now;
        return settled;
      },
      30_000,
      1_000,
    );
    return JSON.parse(previous) as [string[], string[]];
  }

  async function waitForRun(runId: string, status: string) {
    return waitFor(async () => {
      const run = (await a()('GET', `/api/v1/runs/${runId}`)).body;
      return run.status === status ? run : null;
    }, 60_000);
  }

  beforeAll(async () => {
    bReceiver = await WebhookReceiver.start();
    document = (await apiClient(e2e.stack.baseUrl)('GET', '/api/v1/openapi.json')).body;
    operations = operationsOf(document);

    // Workspace A: one of every resource, made through the API as a user would.
    const api = a();
    const secret = 'MATRIX_A_TOKEN';
    expect((await api('PUT', `/api/v1/secrets/${secret}`, { value: 'a-secret-value-never-shown' })).status).toBe(201);
    const calendar = 'holidays:matrix-a';
    expect((await api('POST', '/api/v1/calendars', { name: calendar, dates: ['2031-01-01'] })).status).toBe(201);
    const destination = 'matrix-a.example.com:443';
    expect((await api('PUT', `/api/v1/destinations/${destination}`, { max_in_flight: 2, per_minute: 50 })).status).toBe(
      201,
    );
    const jobBody = (url: string, name: string) => ({
      name,
      schedule: YEARLY,
      retry: { max_attempts: 1 },
      sink: { kind: 'webhook', config: { url } },
    });
    const idempotencyKey = 'matrix-shared-idempotency-key';
    const created = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const response = await api('POST', '/api/v1/jobs', body, headers);
      expect(response.status).toBe(201);
      return response.body.id as string;
    };
    const tag = 'matrix-a-tag';
    const idem = { 'idempotency-key': idempotencyKey };
    const active = await created(
      {
        ...jobBody(`${e2e.receiver.url}/a/active`, 'matrix-a-active'),
        tags: [tag],
        sink: {
          kind: 'webhook',
          config: { url: `${e2e.receiver.url}/a/active`, headers: { authorization: `Bearer {{secret.${secret}}}` } },
        },
      },
      idem,
    );
    const succeeded = (await api('POST', `/api/v1/jobs/${active}/trigger`, undefined, idem)).body.run_id as string;
    const failing = await created({
      ...jobBody(`${e2e.receiver.url}/a/fail`, 'matrix-a-failing'),
      auto_disable_threshold: 1,
    });
    const failed = (await api('POST', `/api/v1/jobs/${failing}/trigger`)).body.run_id as string;
    const paused = await created(jobBody(`${e2e.receiver.url}/a/paused`, 'matrix-a-paused'));
    expect((await api('POST', `/api/v1/jobs/${paused}/pause`)).status).toBe(200);
    await waitForRun(succeeded, 'succeeded');
    await waitForRun(failed, 'failed');
    await waitFor(async () => (await api('GET', `/api/v1/jobs/${failing}`)).body.state === 'disabled');
    // Channel and rule after the runs, so no alert of A is in flight while B walks.
    const channel = await api(
      'POST',
      '/api/v1/alert-channels',
      { name: 'matrix-a-hook', kind: 'webhook', config: { url: `${e2e.receiver.url}/a/alerts` } },
      idem,
    );
    expect(channel.status).toBe(201);
    const rule = await api(
      'POST',
      '/api/v1/alert-rules',
      { name: 'matrix-a-rule', channel_ids: [channel.body.id], events: ['run.failed'], job_ids: [active] },
      idem,
    );
    expect(rule.status).toBe(201);
    const extraKey = await api('POST', '/api/v1/api-keys', { name: 'matrix-a-extra', scopes: ['*'] }, idem);
    expect(extraKey.status).toBe(201);
    const me = await api('GET', '/api/v1/me');

    // Issue 42's operations, once the document has them: A's keyed jobs (by PUT, and by apply under a managed_by).
    const jobs = [active, failing, paused];
    const jobKeys: string[] = [];
    const managedBy = 'matrix-a';
    if (present('PUT /api/v1/jobs/by-key/{key}')) {
      const put = await api('PUT', '/api/v1/jobs/by-key/matrix-a-key', jobBody(`${e2e.receiver.url}/a/keyed`, 'keyed'));
      expect(put.status).toBe(201);
      jobs.push(put.body.id);
      jobKeys.push('matrix-a-key');
    }
    if (present('POST /api/v1/jobs/apply')) {
      const applied = await api('POST', '/api/v1/jobs/apply', {
        managed_by: managedBy,
        jobs: [{ key: 'matrix-a-applied', ...jobBody(`${e2e.receiver.url}/a/applied`, 'applied') }],
      });
      expect(applied.status).toBe(200);
      const [row] = await e2e.stack.dataSource.query(`SELECT id FROM jobs WHERE workspace_id = $1 AND key = $2`, [
        e2e.stack.workspaceId,
        'matrix-a-applied',
      ]);
      jobs.push(row.id);
      jobKeys.push('matrix-a-applied');
    }
    // Issue 46: a bulk pause of its own job, waiting for the end of its maintenance window.
    const windowJob = await created(jobBody(`${e2e.receiver.url}/a/window`, 'matrix-a-window'));
    jobs.push(windowJob);
    const bulk = await api('POST', '/api/v1/jobs/bulk', {
      action: 'pause',
      filter: { ids: [windowJob] },
      note: 'matrix window',
      resume_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(bulk.status).toBe(202);
    await waitFor(async () => (await api('GET', `/api/v1/operations/${bulk.body.id}`)).body.status === 'waiting');
    // Issue 45: a backfill of the active job over a range without occurrences (no run), completed.
    const backfill = await api('POST', `/api/v1/jobs/${active}/backfill`, {
      from: '2025-03-01T00:00:00Z',
      to: '2025-03-02T00:00:00Z',
    });
    expect(backfill.status).toBe(202);
    await waitFor(
      async () => (await api('GET', `/api/v1/backfills/${backfill.body.backfill_id}`)).body.status === 'completed',
    );
    const audit: Array<{ id: string }> = await e2e.stack.dataSource.query(
      `SELECT id FROM audit_log WHERE workspace_id = $1 ORDER BY id`,
      [e2e.stack.workspaceId],
    );
    w = {
      ws: e2e.stack.workspaceId,
      jobs: { active, paused, disabled: failing, all: jobs },
      runs: { succeeded, failed, all: [succeeded, failed] },
      secret,
      calendar,
      destination,
      channel: channel.body.id,
      rule: rule.body.id,
      keys: [me.body.key.id, extraKey.body.id],
      audit: audit.map((entry) => entry.id),
      jobKeys,
      managedBy,
      jobBody,
      idempotencyKey,
      tag,
      operation: bulk.body.id,
      backfill: backfill.body.backfill_id,
    };
    expect(w.audit.length).toBeGreaterThan(5);
    const attempts = (await api('GET', `/api/v1/runs/${succeeded}`)).body.attempts;
    expect(attempts).toHaveLength(1);

    // Workspace B: a full-access key, and a job, channel and rule of its own (for updates that name A's ids).
    const other = await e2e.stack.newWorkspaceKey('matrix-b');
    const b = apiClient(e2e.stack.baseUrl, other.apiKey);
    const bJob = await b('POST', '/api/v1/jobs', jobBody(`${bReceiver.url}/b`, 'b own'));
    const bChannel = await b('POST', '/api/v1/alert-channels', {
      name: 'b own',
      kind: 'webhook',
      config: { url: bReceiver.url },
    });
    const bRule = await b('POST', '/api/v1/alert-rules', {
      name: 'b own',
      channel_ids: [bChannel.body.id],
      events: ['run.failed'],
    });
    expect([bJob.status, bChannel.status, bRule.status]).toEqual([201, 201, 201]);
    ctx = {
      w,
      b,
      baseUrl: e2e.stack.baseUrl,
      bUrl: `${bReceiver.url}/b`,
      bOwn: { job: bJob.body.id, channel: bChannel.body.id, rule: bRule.body.id },
      aIds,
    };

    // A dashboard user who is not a member of A (dev login gives a first-time user a workspace of their own).
    const login = await fetch(`${e2e.stack.baseUrl}/api/v1/auth/dev-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'outsider@example.com' }),
    });
    expect(login.status).toBe(200);
    const token = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('svc_session='))!
      .split(';')[0];
    const signedIn = (await login.json()) as { csrf_token: string; workspaces: Array<{ id: string }> };
    session = { cookie: token, csrf: signedIn.csrf_token, ownWorkspace: signedIn.workspaces[0].id };

    // A's state before B does anything (visibility can lag a moment behind the starts).
    await waitFor(async () => {
      const listed = new Set<string>();
      for await (const e of e2e.client.workflow.list({ query: `${SEARCH_ATTRIBUTES.workspaceId} = '${w.ws}'` })) {
        listed.add(e.workflowId);
      }
      return [...w.jobs.all, ...w.runs.all].every((id) => listed.has(id));
    }, 30_000);
    [rowsBefore, executionsBefore] = await settledStateOfA();
    receivedBefore = e2e.receiver.requests.length;
  }, 180_000);

  afterAll(async () => {
    await bReceiver?.stop();
  });

  it('should have a row for every operation of the served document, and none for an operation that is gone', () => {
    const shapes = new Set(operations.map(shapeOf));
    const covered = new Set(Object.keys(MATRIX).map((row) => shapeOf(operationOf(row))));
    expect(operations.filter((op) => !covered.has(shapeOf(op)))).toEqual([]);
    expect(
      Object.entries(MATRIX)
        .filter(([row, spec]) => !spec.pending && !shapes.has(shapeOf(operationOf(row))))
        .map(([row]) => row),
    ).toEqual([]);
    // The walk is over the real document, not an empty one.
    expect(operations.length).toBeGreaterThan(50);
  });

  it("should answer B's key with 404 for every id of A, exactly as for an id that never existed", async () => {
    const problems: string[] = [];
    let calls = 0;
    for (const [name, row] of rowsOf('foreign')) {
      if (row.kind !== 'foreign') {
        continue;
      }
      const [method] = name.split(' ');
      const template = documentPathOf(name);
      for (const c of row.cases(w)) {
        const foreign = await ctx.b(method, urlOf(template, c.request(c.foreign)), c.request(c.foreign).body);
        const unknown = await ctx.b(method, urlOf(template, c.request(c.unknown)), c.request(c.unknown).body);
        calls += 1;
        if ((row.expect ?? 404) === 404 && (foreign.status !== 404 || foreign.body?.error?.code !== 'not_found')) {
          problems.push(`${name} with ${c.foreign}: ${foreign.status} ${JSON.stringify(foreign.body)}`);
        }
        const seen = normalized(foreign.status, foreign.body, c.foreign, c.unknown);
        if (seen !== normalized(unknown.status, unknown.body, c.foreign, c.unknown)) {
          problems.push(`${name} with ${c.foreign} differs from an unknown id: ${seen}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(calls).toBeGreaterThan(40);
  });

  it("should list nothing of A to B's key", async () => {
    const problems: string[] = [];
    for (const [name, row] of rowsOf('list')) {
      if (row.kind !== 'list') {
        continue;
      }
      const [method] = name.split(' ');
      const response = await ctx.b(method, urlOf(documentPathOf(name), row.request ?? {}));
      const text = JSON.stringify(response.body);
      const leaked = aIds().filter((id) => text.includes(id));
      if (response.status !== 200 || leaked.length > 0) {
        problems.push(`${name}: ${response.status}, mentions ${leaked.join(', ') || 'nothing of A'}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("should refuse B's creates and updates that name A's resources, and keep B's creates in B", async () => {
    const rows = rowsOf('refer').sort(([, x], [, y]) => Number('late' in x && x.late) - Number('late' in y && y.late));
    const problems: string[] = [];
    for (const [name, row] of rows) {
      if (row.kind === 'refer') {
        problems.push(...(await row.run(ctx)).map((problem) => `${name}: ${problem}`));
      }
    }
    expect(problems).toEqual([]);
  });

  it('should answer workspace-independent operations without any of A in them', async () => {
    const problems: string[] = [];
    for (const [name, row] of rowsOf('server-wide')) {
      if (row.kind !== 'server-wide') {
        continue;
      }
      const [method] = name.split(' ');
      const response = await ctx.b(method, urlOf(documentPathOf(name), row.request), row.request.body);
      const text = JSON.stringify(response.body);
      if (response.status !== 200 || aIds().some((id) => text.includes(id))) {
        problems.push(`${name}: ${response.status} ${text}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('should reveal nothing of A on public and sign-in operations', async () => {
    const anonymous = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${e2e.stack.baseUrl}${url}`, {
        method,
        headers: body !== undefined ? { 'content-type': 'application/json' } : {},
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
      });
      return { status: response.status, text: await response.text() };
    };
    const problems: string[] = [];
    for (const [name, row] of [...rowsOf('public'), ...rowsOf('sign-in')]) {
      if (row.kind !== 'public' && row.kind !== 'sign-in') {
        continue;
      }
      const [method] = name.split(' ');
      const template = documentPathOf(name);
      if (row.kind === 'public' && row.cases) {
        for (const c of row.cases(w)) {
          const foreign = await anonymous(method, urlOf(template, c.request(c.foreign)));
          const unknown = await anonymous(method, urlOf(template, c.request(c.unknown)));
          if (
            normalized(foreign.status, foreign.text, c.foreign) !== normalized(unknown.status, unknown.text, c.unknown)
          ) {
            problems.push(`${name}: an id of A answers unlike an unknown id`);
          }
        }
        continue;
      }
      const request = row.request ?? {};
      const response = await anonymous(method, urlOf(template, request), request.body);
      const leaked = aIds().filter((id) => response.text.includes(id));
      if (response.status >= 500 || leaked.length > 0) {
        problems.push(`${name}: ${response.status}, mentions ${leaked.join(', ') || 'nothing of A'}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('should refuse a dashboard session of a non-member with 403 forbidden on every authenticated operation for A', async () => {
    const problems: string[] = [];
    let calls = 0;
    // The session itself works: in its own workspace it reads (and A's job is 404 there, like for B's key).
    const own = { cookie: session.cookie, 'svc-workspace': session.ownWorkspace };
    expect((await apiClient(e2e.stack.baseUrl)('GET', '/api/v1/jobs', undefined, own)).status).toBe(200);
    expect((await apiClient(e2e.stack.baseUrl)('GET', `/api/v1/jobs/${w.jobs.active}`, undefined, own)).status).toBe(
      404,
    );
    const authenticated = Object.entries(MATRIX).filter(
      ([name, row]) => row.kind !== 'public' && row.kind !== 'sign-in' && present(name),
    );
    for (const [name, row] of authenticated) {
      const [method] = name.split(' ');
      const request: Req =
        row.kind === 'foreign'
          ? (() => {
              const [c] = row.cases(w);
              return c ? c.request(c.foreign) : { params: { id: 'none' } };
            })()
          : row.kind === 'list' || row.kind === 'server-wide'
            ? (row.request ?? {})
            : { params: { id: w.jobs.active, key: 'matrix-a-key', name: w.secret } };
      for (const workspace of [w.ws, 'acme']) {
        const response = await apiClient(e2e.stack.baseUrl)(
          method,
          urlOf(documentPathOf(name), request),
          ['POST', 'PUT', 'PATCH'].includes(method) ? (request.body ?? {}) : undefined,
          { cookie: session.cookie, 'x-csrf-token': session.csrf, 'svc-workspace': workspace },
        );
        calls += 1;
        if (response.status !== 403 || response.body?.error?.code !== 'forbidden') {
          problems.push(`${name} as ${workspace}: ${response.status} ${JSON.stringify(response.body)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(calls).toBeGreaterThan(60);
  });

  it('should leave A exactly as it was: its rows, its Temporal executions, its webhook receiver', async () => {
    // Settled first, so a signal or write that B's calls set off (and that lands a moment later) is seen.
    const [rowsAfter, executionsAfter] = await settledStateOfA();
    // Not vacuous: A's jobs, runs, attempts, secret, channel, rule, keys, audit entries and workspace; a workflow per job and run, and A's operation's.
    expect(rowsBefore.length).toBeGreaterThan(20);
    expect(executionsBefore.filter((e) => / (RUNNING|COMPLETED|FAILED) \d+$/.test(e))).toHaveLength(
      w.jobs.all.length + w.runs.all.length + 2, // and A's operation (issue 46) and backfill (issue 45)
    );
    expect(rowsAfter).toEqual(rowsBefore);
    expect(executionsAfter).toEqual(executionsBefore);
    expect(e2e.receiver.requests.slice(receivedBefore).map((r) => r.url)).toEqual([]);
    // And A still works with its own key.
    expect((await a()('GET', `/api/v1/jobs/${w.jobs.active}`)).body).toMatchObject({ name: 'matrix-a-active' });
  });
});
