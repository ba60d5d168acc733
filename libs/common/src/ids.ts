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

const ID_PATTERN = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `value` looks like an id of `kind` (used to answer 404 early for malformed ids). */
export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(`${ID_PREFIXES[kind]}_`) && ID_PATTERN.test(value);
}
