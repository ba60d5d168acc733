import type { ServiceDegradation, ServiceDependency } from '@svc/common/service-health';
import { DataSource } from 'typeorm';

/** A dependency some worker's probe sees degraded now (docs/operations.md → Service degraded). */
export interface ReportedDegradation {
  dependency: ServiceDependency;
  /** The cause as tenants may read it (`publicServiceCause`), of the latest report. */
  cause: string | null;
  /** The earliest start among the workers reporting it. */
  since: Date;
  degradedAt: Date;
  /** The latest report. */
  observedAt: Date;
  /** How many workers report it. */
  workers: number;
}

/** Rows of workers that stopped reporting are purged after this long. */
const STALE_ROWS_MS = 86_400_000;

/**
 * The workers' view of the service's health (`service_health`): each worker's health probe
 * reports the dependencies it sees degraded, and `/readyz` reads them. Not tenant data: the causes
 * stored are the public ones, never a driver's message with hosts and ports.
 */
export class ServiceHealthRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Replaces `observer`'s rows with `degradations` seen at `at`, in one statement, and purges rows
   * no worker refreshed for a day.
   */
  async report(observer: string, degradations: readonly ServiceDegradation[], at: Date): Promise<void> {
    await this.dataSource.query(
      `WITH incoming AS (
         SELECT * FROM jsonb_to_recordset($2::jsonb)
                AS d(dependency text, since timestamptz, degraded_at timestamptz, cause text)),
       gone AS (
         DELETE FROM service_health
          WHERE (observer = $1 AND dependency NOT IN (SELECT dependency FROM incoming)) OR (observer <> $1 AND observed_at < $4))
       INSERT INTO service_health (observer, dependency, since, degraded_at, cause, observed_at)
       SELECT $1, dependency, since, degraded_at, cause, $3 FROM incoming
       ON CONFLICT (observer, dependency) DO UPDATE
         SET since = EXCLUDED.since, degraded_at = EXCLUDED.degraded_at, cause = EXCLUDED.cause,
             observed_at = EXCLUDED.observed_at`,
      [
        observer,
        JSON.stringify(
          degradations.map((d) => ({
            dependency: d.dependency,
            since: d.since.toISOString(),
            degraded_at: d.degradedAt.toISOString(),
            cause: d.cause,
          })),
        ),
        at,
        new Date(at.getTime() - STALE_ROWS_MS),
      ],
    );
  }

  /** Dependencies some worker reported degraded at or after `freshSince`, by dependency. */
  async degraded(freshSince: Date): Promise<ReportedDegradation[]> {
    const rows: Array<{
      dependency: ServiceDependency;
      cause: string | null;
      since: Date;
      degraded_at: Date;
      observed_at: Date;
      workers: string;
    }> = await this.dataSource.query(
      `SELECT dependency, (array_agg(cause ORDER BY observed_at DESC))[1] AS cause, min(since) AS since,
              min(degraded_at) AS degraded_at, max(observed_at) AS observed_at, count(*) AS workers
         FROM service_health WHERE observed_at >= $1 GROUP BY dependency ORDER BY dependency`,
      [freshSince],
    );
    return rows.map((row) => ({
      dependency: row.dependency,
      cause: row.cause,
      since: row.since,
      degradedAt: row.degraded_at,
      observedAt: row.observed_at,
      workers: Number(row.workers),
    }));
  }
}
