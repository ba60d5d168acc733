/**
 * Shared inputs of the differential tests of the evaluators' shortcuts (quartz-plain,
 * recurrence-plain, cron-fire-times): zones with every kind of clock change, and instants most of
 * which fall in the months when zones change their clocks.
 */
import fc from 'fast-check';

export const DST_ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe', // 30-minute change
  'America/Santiago', // changes at midnight
  'America/Havana', // changes at midnight
  'Asia/Beirut', // changes at midnight
  'Antarctica/Troll', // 2-hour change
  'Africa/Casablanca', // changes around Ramadan
  'Pacific/Chatham', // +12:45 / +13:45
  'America/St_Johns', // -03:30 / -02:30
  'Asia/Kolkata', // no DST
];

/** Instants between `from` and `to` (years), half of them in March-April and September-November of 1995-2045. */
export function instantAroundDstChanges(from = 1995, to = 2045): fc.Arbitrary<number> {
  return fc.oneof(
    fc.integer({ min: Date.UTC(from, 0, 1), max: Date.UTC(to, 0, 1) }),
    fc
      .record({
        year: fc.integer({ min: 1995, max: 2045 }),
        month: fc.constantFrom(2, 3, 3, 4, 8, 9, 9, 10), // 0-based: Mar, Apr, Sep, Oct, Nov …
        minute: fc.integer({ min: 0, max: 31 * 1440 }),
        ms: fc.integer({ min: 0, max: 59_999 }),
      })
      .map(({ year, month, minute, ms }) => Date.UTC(year, month, 1) + minute * 60_000 + ms),
  );
}
