/**
 * Span and trace ids for spans made inside workflow code, drawn from a generator of their own.
 *
 * The SDK's workflow tracer draws its ids from `Math.random`, which inside a workflow is the
 * seeded generator replay depends on: run ids (`newRunId`) come from it too. Turning tracing on or
 * off would then change the run ids a replay computes, and a job workflow would track runs that
 * do not exist. These ids never touch `Math.random`: they come from a small PRNG (sfc32) seeded
 * with the workflow's run id, so they are the same on every replay of the same history.
 */

/** What the OpenTelemetry SDK asks of an id generator (`IdGenerator`). */
export interface SpanIdGenerator {
  generateTraceId(): string;
  generateSpanId(): string;
}

/** cyrb128: four 32-bit words from a string (a fast non-cryptographic hash, for seeding). */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** sfc32: a small fast PRNG with a 128-bit state; returns unsigned 32-bit words. */
function sfc32(seed: [number, number, number, number]): () => number {
  let [a, b, c, d] = seed;
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
}

/** Ids from `seed` (the workflow's run id): the same sequence for the same seed, never all zeros. */
export function seededSpanIds(seed: string): SpanIdGenerator {
  const next = sfc32(cyrb128(`svc-span-ids:${seed}`));
  const hex = (words: number): string => {
    for (;;) {
      let out = '';
      for (let i = 0; i < words; i++) {
        out += next().toString(16).padStart(8, '0');
      }
      // All zeros is the invalid id of W3C Trace Context.
      if (!/^0+$/.test(out)) {
        return out;
      }
    }
  };
  return { generateTraceId: () => hex(4), generateSpanId: () => hex(2) };
}
