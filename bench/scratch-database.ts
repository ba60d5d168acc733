/**
 * What the PostgreSQL benches share: a scratch database of their own (created under
 * BENCH_PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres, and dropped after),
 * and the p50/p99 of a query timed over rounds.
 */
import { createDataSource } from '@svc/persistence';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';

export const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs one statement as the admin user (CREATE / DROP DATABASE). */
async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface ScratchDatabase {
  /** `svc_bench_<label>_<random hex>`. */
  name: string;
  /** A data source on it, not initialized yet. */
  ds: DataSource;
  /** Destroys `ds` if initialized and drops the database, unless `keep`. */
  close(keep?: boolean): Promise<void>;
}

/** Creates a scratch database `svc_bench_<label>_…` and a data source on it with `options`. */
export async function createScratchDatabase(
  label: string,
  options: Parameters<typeof createDataSource>[1],
): Promise<ScratchDatabase> {
  const name = `svc_bench_${label}_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const ds = createDataSource(url.toString(), options);
  return {
    name,
    ds,
    close: async (keep = false) => {
      if (ds.isInitialized) {
        await ds.destroy();
      }
      if (!keep) {
        await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }
    },
  };
}

/** Nearest-rank percentile of unsorted `samples`; NaN for none. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) {
    return NaN;
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

/** `fn` three times to warm the cache, then `rounds` timed calls: their p50 and p99 in ms. */
export async function timeRounds(fn: () => Promise<unknown>, rounds: number): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 3; i++) {
    await fn();
  }
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}
