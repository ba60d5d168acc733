/**
 * Prefixed ULIDs (spec: Conventions → IDs). Pure: time and randomness are parameters so that
 * workflow code can pass its deterministic clock and PRNG, and everything else the defaults.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export const ID_PREFIXES = {
  workspace: 'ws',
  user: 'usr',
  apiKey: 'key',
  job: 'job',
  run: 'run',
  channel: 'ch',
  rule: 'rule',
  audit: 'aud',
  /** A bulk action or a recover: also the id of its `bulkOperationWorkflow`. */
  operation: 'op',
  /** A backfill of a job's past occurrences: also the id of its `backfillWorkflow`. */
  backfill: 'bf',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

/** 26-character ULID: 10 chars of millisecond time, 16 chars of randomness. */
export function ulid(timeMs: number, random: () => number = Math.random): string {
  let time = '';
  let t = Math.floor(timeMs);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rand = '';
  for (let i = 0; i < 16; i++) {
    rand += CROCKFORD[Math.floor(random() * 32) % 32];
  }
  return time + rand;
}

export function newId(kind: IdKind, timeMs: number = Date.now(), random?: () => number): string {
  return `${ID_PREFIXES[kind]}_${ulid(timeMs, random)}`;
}

/**
 * The id of a job's scheduled run, derived from the occurrence itself: the ULID's time is the
 * scheduled instant and its random part a hash of (job id, instant). Every path that reaches the
 * same occurrence (a job-workflow task retried after a crash, a restarted job workflow) names the
 * same run, so the same run workflow and the same `webhook-id`. Pure and deterministic,
 * so workflow code may call it.
 */
export function occurrenceRunId(jobId: string, scheduledAtMs: number): string {
  const key = `${jobId}@${Math.floor(scheduledAtMs)}`;
  // 80 random bits from two independent 53-bit hashes: 10 digits of one, 6 of the other.
  const digits = [...base32Digits(hash53(key, 0x5bd1e995), 10), ...base32Digits(hash53(key, 0x27d4eb2f), 6)];
  let index = 0;
  return newId('run', scheduledAtMs, () => (digits[index++] + 0.5) / 32);
}

/** The lowest `count` base-32 digits of a non-negative integer, most significant first. */
function base32Digits(value: number, count: number): number[] {
  const digits: number[] = [];
  let rest = value;
  for (let i = 0; i < count; i++) {
    digits.unshift(rest % 32);
    rest = Math.floor(rest / 32);
  }
  return digits;
}

/** cyrb53: a fast, well-mixed 53-bit string hash (not cryptographic; ids are not secrets). */
function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const ID_PATTERN = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The ids of `kind`, exactly (`isId`), as an anchored pattern. */
export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-HJKMNP-TV-Z]{26}$`);
}

/** True when `value` looks like an id of `kind` (used to answer 404 early for malformed ids). */
export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(`${ID_PREFIXES[kind]}_`) && ID_PATTERN.test(value);
}
