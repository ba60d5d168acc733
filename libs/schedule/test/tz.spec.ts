import fc from 'fast-check';
import { toIsoUtc } from '@svc/schedule';
import { instantToWall, lenientWallToInstant, rfc5545WallToInstant, wallToInstant, zoneOffsets } from '../src/tz';
import { DST_ZONES, instantAroundDstChanges } from './dst-arbitraries';

describe('toIsoUtc', () => {
  it('should format every instant exactly as Date#toISOString', () => {
    const yearsZeroTo9999 = fc.integer({ min: Date.UTC(0, 0, 1) - 1000, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });
    const anyDateValue = fc.integer({ min: -8.64e15, max: 8.64e15 });
    fc.assert(
      fc.property(fc.oneof(yearsZeroTo9999, anyDateValue), (ms) => {
        expect(toIsoUtc(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('should give the same text on a second call (the per-day memo)', () => {
    for (const ms of [1_795_420_800_000, 1_795_420_800_000 + 61_001, 1_795_420_800_000]) {
      expect(toIsoUtc(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it.each([
    0,
    -1,
    951_782_400_000,
    1_795_420_800_000,
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(0, 0, 1),
    -62_167_219_200_000,
    -62_167_219_200_001,
    253_402_300_799_999,
    253_402_300_800_000,
    1.5,
    -0.5,
  ])('should format %d like the built-in', (ms) => {
    expect(toIsoUtc(ms)).toBe(new Date(ms).toISOString());
  });
});

describe('allocation-free wall resolution', () => {
  it('should resolve every wall time as wallToInstant does under its policy (rfc5545: first of a repeat; lenient: second)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...DST_ZONES), instantAroundDstChanges(), (name, instant) => {
        const zone = zoneOffsets(name);
        // Wall times around the instant, so gaps and repeats are hit as well as ordinary times.
        for (const wall of [instant, instant + 1_800_000, instant + 3_600_000]) {
          expect(rfc5545WallToInstant(zone, wall)).toBe(wallToInstant(zone, wall, 'rfc5545'));
          expect(lenientWallToInstant(zone, wall)).toBe(wallToInstant(zone, wall, 'lenient'));
          expect(rfc5545WallToInstant(zone, instantToWall(zone, instant))).toBeLessThanOrEqual(instant);
        }
      }),
      { numRuns: 3_000 },
    );
  });
});
