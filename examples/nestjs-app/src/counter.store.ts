import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Pool } from 'pg';

/**
 * The example's own record of what it handled, in PostgreSQL so every replica writes to one place:
 * one row per call of a scheduled method (the e2e counts them per run), and the attempts of the
 * flaky job (so "fails twice" holds across replicas).
 */
@Injectable()
export class CounterStore implements OnModuleDestroy {
  private readonly pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  private ready: Promise<unknown> | undefined;

  private schema(): Promise<unknown> {
    this.ready ??= this.pool.query(`
      CREATE TABLE IF NOT EXISTS example_calls (
        id bigserial PRIMARY KEY,
        job_key text NOT NULL,
        run_id text NOT NULL,
        scheduled_at timestamptz NOT NULL,
        attempt int NOT NULL,
        outcome text NOT NULL,
        replica text NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      )`);
    return this.ready;
  }

  async record(call: { jobKey: string; runId: string; scheduledAt: Date; attempt: number; outcome: string }) {
    await this.schema();
    await this.pool.query(
      'INSERT INTO example_calls (job_key, run_id, scheduled_at, attempt, outcome, replica) VALUES ($1, $2, $3, $4, $5, $6)',
      [call.jobKey, call.runId, call.scheduledAt, call.attempt, call.outcome, process.env.REPLICA_NAME ?? 'replica'],
    );
  }

  /** How many times this run already failed on purpose, whichever replica handled it. */
  async failures(runId: string): Promise<number> {
    await this.schema();
    const { rows } = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM example_calls WHERE run_id = $1 AND outcome = 'failed'`,
      [runId],
    );
    return rows[0].n;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.end();
  }
}
