import { byteRangeToStringRange, markSegments } from './byte-range';

describe('byteRangeToStringRange', () => {
  it('should map UTF-8 byte ranges to string ranges for ASCII, 2-byte, 3-byte and astral characters', () => {
    expect(byteRangeToStringRange('every mondy', 6, 5)).toEqual({ start: 6, end: 11 });
    // "évery": é is 2 bytes, so the API's 6 bytes are the 5 characters.
    expect(byteRangeToStringRange('évery day', 0, 6)).toEqual({ start: 0, end: 5 });
    expect(byteRangeToStringRange('à 9h évry', 6, 5)).toEqual({ start: 5, end: 9 });
    // 😀 is 4 bytes and 2 UTF-16 units; '€' is 3 bytes.
    expect(byteRangeToStringRange('😀 € mondy', 9, 5)).toEqual({ start: 5, end: 10 });
  });

  it('should clamp ranges past the end and keep empty ranges empty', () => {
    expect(byteRangeToStringRange('abc', 2, 10)).toEqual({ start: 2, end: 3 });
    expect(byteRangeToStringRange('abc', 5, 0)).toEqual({ start: 3, end: 3 });
  });
});

describe('markSegments', () => {
  it('should split the text into marked and plain parts, merging overlaps and widening empty ranges to one character', () => {
    expect(markSegments('every mondy at 9', [{ start: 6, end: 11 }])).toEqual([
      { text: 'every ', marked: false },
      { text: 'mondy', marked: true },
      { text: ' at 9', marked: false },
    ]);
    expect(
      markSegments('abcdef', [
        { start: 1, end: 3 },
        { start: 2, end: 4 },
        { start: 5, end: 5 },
      ]),
    ).toEqual([
      { text: 'a', marked: false },
      { text: 'bcd', marked: true },
      { text: 'e', marked: false },
      { text: 'f', marked: true },
    ]);
  });
});
