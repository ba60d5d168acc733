import { DataSource, EntityManager } from 'typeorm';
import { returnedRows } from './query-result';

/** What a workspace sets for one destination. Null: no such limit. */
export interface DestinationLimitSettings {
  maxInFlight: number | null;
  perMinute: number | null;
  /** `pause_destination`: a 429 or 503 with `Retry-After` holds every attempt to it until then. */
  on429: 'pause_destination' | null;
}

/** A destination's limits with the state every worker shares. */
export interface DestinationLimitRow extends DestinationLimitSettings {
  destination: string;
  /** Attempts holding an unexpired lease now. */
  inFlight: number;
  /** Runs `deferred` waiting for it. */
  waiting: number;
  /** Until when a `Retry-After` holds it (null when it is not held now). */
  heldUntil: Date | null;
  /** Leases taken in the last minute. */
  startsLastMinute: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The answer to a lease request. */
export type LeaseAnswer =
  /** Taken (or the destination has no limits row any more: nothing to count). */
  | { kind: 'taken' }
  | { kind: 'unlimited' }
  /** Not now: `held` by a `Retry-After` until `retryAt`, or `limit` (in flight or per minute) full. */
  | { kind: 'wait'; reason: 'held' | 'limit'; retryAt: Date };

/** The destination state `/metrics` shows (all workspaces, by destination). */
export interface DestinationGauge {
  destination: string;
  inFlight: number;
  waiting: number;
  /** Epoch seconds of the latest hold still ahead, else 0. */
  heldUntilSeconds: number;
}

/** The time of one statement, once (a CTE is evaluated once, also when a row lock is waited for). */
const NOW_MS = `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`;
/** Leases of `d` still unexpired at `c.now_ms`, the one of key `$3` left out (a re-taken lease). */
const LIVE_LEASES = `jsonb_each(d.leases) e WHERE (e.value #>> '{}')::bigint > c.now_ms AND e.key <> $3`;
/** How long a `per_minute` window is. */
export const DESTINATION_WINDOW_MS = 60_000;

/**
 * Destination limits (docs/delivery.md → Destination limits), shared by every worker:
 * the counts live in the limits row itself. A lease is taken by one `UPDATE` whose `WHERE` checks
 * the hold, the live leases (`max_in_flight`) and the starts of the last minute (`per_minute`) on
 * the row; two workers racing for the last slot serialize on the row lock, and PostgreSQL
 * re-evaluates the conditions on the row the first one wrote, so the second one finds it full.
 * A lease carries its expiry, so one a dead worker never released stops counting by itself.
 */
export class DestinationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The destinations of the workspace that have a limits row (the worker's cached lookup). */
  async configured(workspaceId: string): Promise<string[]> {
    const rows: Array<{ destination: string }> = await this.dataSource.query(
      `SELECT destination FROM destination_limits WHERE workspace_id = $1`,
      [workspaceId],
    );
    return rows.map((r) => r.destination);
  }

  /** The workspace's destinations with their state, by name (byte order). */
  async list(workspaceId: string, manager: EntityManager = this.dataSource.manager): Promise<DestinationLimitRow[]> {
    return this.read(workspaceId, null, manager);
  }

  async get(
    workspaceId: string,
    destination: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<DestinationLimitRow | null> {
    return (await this.read(workspaceId, destination, manager))[0] ?? null;
  }

  private async read(workspaceId: string, destination: string | null, manager: EntityManager) {
    const rows: Array<Record<string, unknown>> = await manager.query(
      `WITH c AS (SELECT ${NOW_MS} AS now_ms)
       SELECT d.destination, d.max_in_flight, d.per_minute, d.on_429, d.created_at, d.updated_at,
              CASE WHEN d.held_until > clock_timestamp() THEN d.held_until END AS held_until,
              (SELECT count(*) FROM jsonb_each(d.leases) e WHERE (e.value #>> '{}')::bigint > c.now_ms)::int AS in_flight,
              (SELECT count(*) FROM unnest(d.recent_starts) s WHERE s > c.now_ms - ${DESTINATION_WINDOW_MS})::int AS starts,
              (SELECT count(*) FROM runs r WHERE r.workspace_id = d.workspace_id AND r.deferred_destination = d.destination
                  AND r.status = 'deferred' AND r.deferred_reason IS NOT NULL)::int AS waiting
         FROM destination_limits d, c
        WHERE d.workspace_id = $1 AND ($2::text IS NULL OR d.destination = $2)
        ORDER BY d.destination COLLATE "C"`,
      [workspaceId, destination],
    );
    return rows.map((r): DestinationLimitRow => ({
      destination: r.destination as string,
      maxInFlight: (r.max_in_flight as number | null) ?? null,
      perMinute: (r.per_minute as number | null) ?? null,
      on429: (r.on_429 as 'pause_destination' | null) ?? null,
      inFlight: r.in_flight as number,
      waiting: r.waiting as number,
      heldUntil: (r.held_until as Date | null) ?? null,
      startsLastMinute: r.starts as number,
      createdAt: r.created_at as Date,
      updatedAt: r.updated_at as Date,
    }));
  }

  /** Creates or replaces the destination's limits (its leases and hold stay); true when created. */
  async upsert(
    workspaceId: string,
    destination: string,
    settings: DestinationLimitSettings,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const rows: Array<{ created: boolean }> = await manager.query(
      `INSERT INTO destination_limits (workspace_id, destination, max_in_flight, per_minute, on_429)
            VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id, destination) DO UPDATE SET
            max_in_flight = EXCLUDED.max_in_flight, per_minute = EXCLUDED.per_minute, on_429 = EXCLUDED.on_429,
            held_until = CASE WHEN EXCLUDED.on_429 IS NULL THEN NULL ELSE destination_limits.held_until END,
            updated_at = now()
       RETURNING (xmax = 0) AS created`,
      [workspaceId, destination, settings.maxInFlight, settings.perMinute, settings.on429],
    );
    return rows[0]!.created;
  }

  /** True when there was a row to delete. */
  async delete(
    workspaceId: string,
    destination: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const rows = returnedRows<unknown>(
      await manager.query(`DELETE FROM destination_limits WHERE workspace_id = $1 AND destination = $2 RETURNING 1`, [
        workspaceId,
        destination,
      ]),
    );
    return rows.length > 0;
  }

  /**
   * Takes a lease for attempt `key` (`<run id>:<attempt>`) on the destination, in one statement, or
   * says why not and when to ask again. Taking it again under the same key (a re-executed
   * activity) replaces the lease, never counts it twice. `leaseMs` bounds it: past it the lease no
   * longer counts (a worker that died mid-request). `pollMs`: when to ask again while in-flight
   * leases are full (none says when it ends), unless one expires sooner.
   */
  async acquire(
    workspaceId: string,
    destination: string,
    key: string,
    leaseMs: number,
    pollMs: number,
  ): Promise<LeaseAnswer> {
    const rows: Array<{
      taken: number;
      now_ms: string;
      found: boolean;
      held_until_ms: string | null;
      per_minute: number | null;
      starts: number | null;
      first_start_ms: string | null;
      first_expiry_ms: string | null;
    }> = await this.dataSource.query(
      `WITH c AS (SELECT ${NOW_MS} AS now_ms),
       taken AS (
         UPDATE destination_limits d SET
                leases = COALESCE((SELECT jsonb_object_agg(e.key, e.value) FROM ${LIVE_LEASES}), '{}'::jsonb)
                         || jsonb_build_object($3::text, c.now_ms + $4::bigint),
                recent_starts = CASE WHEN d.per_minute IS NULL THEN '{}'::bigint[]
                  ELSE ARRAY(SELECT s FROM unnest(d.recent_starts) s WHERE s > c.now_ms - ${DESTINATION_WINDOW_MS}) || c.now_ms END
           FROM c
          WHERE d.workspace_id = $1 AND d.destination = $2
            AND (d.held_until IS NULL OR d.held_until <= to_timestamp(c.now_ms / 1000.0))
            AND (d.max_in_flight IS NULL OR (SELECT count(*) FROM ${LIVE_LEASES}) < d.max_in_flight)
            AND (d.per_minute IS NULL
                 OR (SELECT count(*) FROM unnest(d.recent_starts) s WHERE s > c.now_ms - ${DESTINATION_WINDOW_MS}) < d.per_minute)
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM taken)::int AS taken, c.now_ms::text AS now_ms, d.destination IS NOT NULL AS found,
              (EXTRACT(EPOCH FROM d.held_until) * 1000)::bigint::text AS held_until_ms, d.per_minute,
              (SELECT count(*) FROM unnest(d.recent_starts) s WHERE s > c.now_ms - ${DESTINATION_WINDOW_MS})::int AS starts,
              (SELECT min(s) FROM unnest(d.recent_starts) s WHERE s > c.now_ms - ${DESTINATION_WINDOW_MS})::text AS first_start_ms,
              (SELECT min((e.value #>> '{}')::bigint) FROM ${LIVE_LEASES})::text AS first_expiry_ms
         FROM c LEFT JOIN destination_limits d ON d.workspace_id = $1 AND d.destination = $2`,
      [workspaceId, destination, key, Math.max(1, Math.round(leaseMs))],
    );
    const row = rows[0]!;
    if (row.taken > 0) {
      return { kind: 'taken' };
    }
    if (!row.found) {
      return { kind: 'unlimited' };
    }
    const now = Number(row.now_ms);
    // Read before the statement's own update: an estimate of when to ask again, never a decision.
    if (row.held_until_ms !== null && Number(row.held_until_ms) > now) {
      return { kind: 'wait', reason: 'held', retryAt: new Date(Number(row.held_until_ms)) };
    }
    let retryAt = now + pollMs;
    if (row.per_minute !== null && (row.starts ?? 0) >= row.per_minute && row.first_start_ms !== null) {
      retryAt = Math.max(retryAt, Number(row.first_start_ms) + DESTINATION_WINDOW_MS);
    } else if (row.first_expiry_ms !== null) {
      retryAt = Math.min(retryAt, Number(row.first_expiry_ms));
    }
    return { kind: 'wait', reason: 'limit', retryAt: new Date(Math.max(retryAt, now + 1)) };
  }

  /**
   * Gives the lease of `key` back. With `holdMs` (the attempt was answered 429 or 503 with
   * `Retry-After`) and `on_429: pause_destination`, the destination is held that long for every
   * job's attempts (a hold only grows). Returns the hold's end when one was set.
   */
  async release(workspaceId: string, destination: string, key: string, holdMs: number | null): Promise<Date | null> {
    const rows = returnedRows<{ held_until: Date | null }>(
      await this.dataSource.query(
        `UPDATE destination_limits SET leases = leases - $3::text,
                held_until = CASE WHEN $4::bigint IS NOT NULL AND on_429 = 'pause_destination'
                  THEN GREATEST(COALESCE(held_until, to_timestamp(0)), clock_timestamp() + $4::bigint * interval '1 millisecond')
                  ELSE held_until END
          WHERE workspace_id = $1 AND destination = $2
          RETURNING CASE WHEN $4::bigint IS NOT NULL AND on_429 = 'pause_destination' THEN held_until END AS held_until`,
        [workspaceId, destination, key, holdMs === null ? null : Math.max(0, Math.round(holdMs))],
      ),
    );
    return rows[0]?.held_until ?? null;
  }

  /** Every configured destination's state, summed over workspaces (`/metrics`; one statement). */
  async gauges(): Promise<DestinationGauge[]> {
    const rows: Array<{ destination: string; in_flight: number; waiting: number; held_until_s: string | null }> =
      await this.dataSource.query(
        `WITH c AS (SELECT ${NOW_MS} AS now_ms),
         waits AS (
           SELECT workspace_id, deferred_destination, count(*)::int AS n FROM runs
            WHERE status = 'deferred' AND deferred_reason IS NOT NULL GROUP BY 1, 2
         )
         SELECT d.destination,
                sum((SELECT count(*) FROM jsonb_each(d.leases) e WHERE (e.value #>> '{}')::bigint > c.now_ms))::int AS in_flight,
                COALESCE(sum(w.n), 0)::int AS waiting,
                max(CASE WHEN d.held_until > clock_timestamp() THEN EXTRACT(EPOCH FROM d.held_until) END)::text AS held_until_s
           FROM destination_limits d CROSS JOIN c
           LEFT JOIN waits w ON w.workspace_id = d.workspace_id AND w.deferred_destination = d.destination
          GROUP BY d.destination ORDER BY d.destination COLLATE "C"`,
      );
    return rows.map((r) => ({
      destination: r.destination,
      inFlight: r.in_flight,
      waiting: r.waiting,
      heldUntilSeconds: r.held_until_s === null ? 0 : Number(r.held_until_s),
    }));
  }
}
