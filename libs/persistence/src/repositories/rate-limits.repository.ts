import { DataSource } from 'typeorm';

export interface WindowHit {
  /** Requests counted in the bucket's current window, this one included. */
  count: number;
  /** Milliseconds until the window closes. */
  resetMs: number;
}

/**
 * Fixed-window request counters shared by all API processes (table `rate_limit_windows`). A
 * window opens at a bucket's first request and lasts `windowMs`; one statement counts the request
 * and reopens an expired window, so concurrent replicas never lose a hit.
 */
export class RateLimitsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async hit(bucket: string, windowMs: number): Promise<WindowHit> {
    const rows: Array<{ count: number; reset_ms: string }> = await this.dataSource.query(
      `INSERT INTO rate_limit_windows AS w (bucket, reset_at, count)
            VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond', 1)
       ON CONFLICT (bucket) DO UPDATE SET
            count = CASE WHEN w.reset_at <= clock_timestamp() THEN 1 ELSE w.count + 1 END,
            reset_at = CASE WHEN w.reset_at <= clock_timestamp()
                            THEN clock_timestamp() + $2 * interval '1 millisecond' ELSE w.reset_at END
       RETURNING count, (EXTRACT(EPOCH FROM (reset_at - clock_timestamp())) * 1000)::bigint AS reset_ms`,
      [bucket, windowMs],
    );
    return { count: rows[0].count, resetMs: Math.max(0, Number(rows[0].reset_ms)) };
  }

  /** Removes windows that closed before `olderThanMs` ago; returns how many. */
  async deleteExpired(olderThanMs = 60_000): Promise<number> {
    const rows: unknown[] = await this.dataSource.query(
      `DELETE FROM rate_limit_windows WHERE reset_at < clock_timestamp() - $1 * interval '1 millisecond' RETURNING 1`,
      [olderThanMs],
    );
    return rows.length;
  }
}
