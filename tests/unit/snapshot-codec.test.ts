import { describe, expect, it } from 'vitest';
import { packSnapshot, snapshotImage } from '../../src/lib/snapshot-codec';

const PAGE = 4096;

/** A snapshot of `pages` pages (the last one `tail` bytes short), where page p holds bytes when `kept(p)`. */
function rawSnapshot(pages: number, kept: (p: number) => boolean, tail = 0): Uint8Array {
  const raw = new Uint8Array(pages * PAGE - tail);
  for (let p = 0; p < pages; p++) {
    if (!kept(p)) continue;
    const end = Math.min(raw.length, (p + 1) * PAGE);
    // Distinct bytes per page, and never a page of zeros.
    for (let i = p * PAGE; i < end; i += 97) raw[i] = ((p * 31 + i) % 255) + 1;
  }
  return raw;
}

describe('packed snapshot layout', () => {
  // Kept pages in runs that start and end inside bitmap bytes, span whole bytes, and reach the end or not.
  const patterns: [string, (p: number) => boolean][] = [
    ['alternating pages', (p) => p % 2 === 0],
    ['runs across bitmap bytes', (p) => p % 37 >= 5 && p % 37 < 29],
    ['long runs and long gaps', (p) => Math.floor(p / 45) % 2 === 1],
    ['everything kept', () => true],
    ['nothing kept', () => false],
    ['only the last page', (p) => p === 130],
  ];
  for (const [name, kept] of patterns) {
    it(`reads back every byte: ${name}`, () => {
      for (const tail of [0, 1000]) {
        const raw = rawSnapshot(131, kept, tail);
        const image = snapshotImage(packSnapshot(raw));
        expect(image.length).toBe(raw.length);
        expect(Buffer.from(image.slice(0, raw.length)).equals(Buffer.from(raw))).toBe(true);
        for (const [start, end] of [
          [0, 1],
          [PAGE - 3, 5 * PAGE + 7],
          [17 * PAGE, 64 * PAGE],
          [raw.length - PAGE - 10, raw.length],
        ]) {
          expect(Buffer.from(image.slice(start, end)).equals(Buffer.from(raw.subarray(start, end)))).toBe(true);
        }
        // Into memory that holds other bytes: the gaps come out as zeros, and nothing past the end is written.
        const heap = new Uint8Array(raw.length + 50).fill(0x5a);
        image.copyTo(heap, 123);
        expect(Buffer.from(heap.subarray(0, raw.length - 123)).equals(Buffer.from(raw.subarray(123)))).toBe(true);
        expect(heap.subarray(raw.length - 123).every((b) => b === 0x5a)).toBe(true);
      }
    });
  }
});
