/** What the oracle specs share (not a spec file itself): comparing fire times with an oracle's. */
import { type CompiledSchedule, ScheduleValidationCache, type ScheduleInput, UNLIMITED_BUDGET } from '@svc/schedule';

/** An accepted oracle case: `n` fire times after `after` (epoch ms) in `zone`. */
export interface OracleFires {
  expr: string;
  zone: string;
  after: number;
  n: number;
  fires?: number[];
}

const fmt = (ms: number[]): string => ms.map((x) => new Date(x).toISOString()).join(' ');

/**
 * Where `c`'s fire times differ from the oracle's, computed directly from `schedule` and through
 * `cache` for `input` (the preview endpoint's path: the reference is `after`, fire times may come
 * from a cached window): one line per difference, none when both agree.
 */
export function fireMismatches(
  c: OracleFires,
  schedule: CompiledSchedule,
  cache: ScheduleValidationCache,
  input: ScheduleInput,
): string[] {
  const out: string[] = [];
  const after = new Date(c.after).toISOString();
  const want = fmt(c.fires ?? []);
  const got = fmt(schedule.next(new Date(c.after), c.n, UNLIMITED_BUDGET).map((d) => d.getTime()));
  if (got !== want) {
    out.push(`${c.expr} ${c.zone} after ${after}: ${got} instead of ${want}`);
  }
  const v = cache.validate(input, { sampleCount: c.n, budget: UNLIMITED_BUDGET });
  const viaCache = fmt(v.valid ? (v.sample ?? []).slice(0, c.n) : []);
  if (viaCache !== want) {
    out.push(`${c.expr} ${c.zone} after ${after} (cached): ${viaCache} instead of ${want}`);
  }
  return out;
}
