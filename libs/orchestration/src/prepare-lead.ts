/**
 * How long before its instant a job workflow prepares an occurrence (docs/architecture.md
 * → Bursts prepared ahead). Pure: the worker's plan activity computes it and the job workflow
 * records it with the plan, so replay never computes it again.
 */

export interface PrepareLeadInput {
  jobId: string;
  /** Jobs planned at the occurrence's instant, this one included (best estimate, >= 1). */
  burst: number;
  /** `scheduler.prepare_ahead`: the lead of a lone occurrence and the least lead of any. */
  baseMs: number;
  /** `scheduler.prepare_rate`: occurrences a second the deployment prepares; 0 turns spreading off. */
  ratePerS: number;
  /** `scheduler.max_prepare_ahead`. */
  maxMs: number;
  /** From the job's previous occurrence (or the plan's start) to this one. */
  gapMs: number;
  /**
   * The plan counted no earlier instant of this job (its first plan, or one after a change): the
   * burst may still be growing, as when its jobs are being created.
   */
  burstMayGrow?: boolean;
}

/**
 * `base + position × burst / rate`: the burst's preparations are spread evenly over the time the
 * server needs for them at `rate`, ending `base` before the instant; each job's place in that
 * spread is fixed by its id, so the same job always takes the same place (a burst still being
 * counted, larger than the base lead prepares, prepares at `maxMs` instead). Capped so a job never
 * holds two of its own occurrences waiting at once (less than its gap), and by `maxMs`; never below
 * `base`. The wait needs no room in the attempt's budget: the run workflow adds it to the attempt's
 * start-to-close.
 */
export function prepareLeadMs(input: PrepareLeadInput): number {
  const { baseMs } = input;
  if (input.ratePerS <= 0 || input.burst <= 1) {
    return baseMs;
  }
  const spreadMs = (input.burst / input.ratePerS) * 1000;
  // A burst still being counted, already too large for the base lead, may outgrow any spread
  // computed now: its jobs prepare as early as `maxMs` allows, most of them as they are created,
  // so the creation itself paces the server. The gap does not bound it: the job counted no
  // earlier occurrence of its own.
  if (input.burstMayGrow && spreadMs > baseMs) {
    return Math.max(baseMs, input.maxMs);
  }
  const lead = baseMs + Math.floor(spreadPosition(input.jobId) * spreadMs);
  const cap = Math.min(input.maxMs, input.gapMs - 1_000);
  return Math.max(baseMs, Math.min(lead, cap));
}

/** A job's fixed place in [0, 1) (FNV-1a of its id): spreads a burst evenly, the same every time. */
export function spreadPosition(jobId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < jobId.length; i++) {
    hash ^= jobId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 2 ** 32;
}
