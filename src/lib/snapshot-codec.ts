// How the build's memory snapshot travels; shared by the build (Node), the page and the worker.
//
// Half of a booted Pyodide's 31 MB of memory is pages of zeros, so the file leaves them out:
// "PTZ1", the page size and the full length (u32, little-endian), a bitmap of the pages
// present, then those pages. Hand-written because reading it must cost next to nothing on
// every start: gzip would halve the file again, but inflating 31 MB took ~200 ms in
// Chromium here, where a worker copies the kept pages straight into Python's memory and
// fills the rest with zeros.

const MAGIC = [0x50, 0x54, 0x5a, 0x31];
const PAGE = 4096;
const HEADER = 12;

/** The snapshot without its zero pages (build time). */
export function packSnapshot(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  const pages = Math.ceil(raw.length / PAGE);
  const bitmap = new Uint8Array(Math.ceil(pages / 8));
  const kept: Uint8Array[] = [];
  for (let p = 0; p < pages; p++) {
    const page = raw.subarray(p * PAGE, Math.min(raw.length, (p + 1) * PAGE));
    if (page.every((byte) => byte === 0)) continue;
    bitmap[p >> 3] |= 1 << (p & 7);
    kept.push(page);
  }
  const out = new Uint8Array(HEADER + bitmap.length + kept.reduce((n, page) => n + page.length, 0));
  out.set(MAGIC);
  const view = new DataView(out.buffer);
  view.setUint32(4, PAGE, true);
  view.setUint32(8, raw.length, true);
  out.set(bitmap, HEADER);
  let offset = HEADER + bitmap.length;
  for (const page of kept) {
    out.set(page, offset);
    offset += page.length;
  }
  return out;
}

/**
 * A snapshot read in ranges, packed or not and in shared memory or not, so a worker can copy
 * it straight into the interpreter's memory (workers/runtime/snapshot.ts) instead of
 * unpacking all 31 MB into an array first and copying that again.
 */
export interface SnapshotImage {
  /** The snapshot's full length, as unpacked. */
  readonly length: number;
  /** Bytes [start, end) of the snapshot, in an array of their own. */
  slice(start: number, end: number): Uint8Array<ArrayBuffer>;
  /** Writes bytes [start, length) of the snapshot into `target` from its index 0, its pages of zeros as zeros. */
  copyTo(target: Uint8Array, start: number): void;
}

/** The snapshot in `bytes` (a packed file or the snapshot itself); throws on a packed file that is cut short or has extra bytes. */
export function snapshotImage(bytes: Uint8Array): SnapshotImage {
  const layout = packedLayout(bytes);
  if (!layout) {
    return {
      length: bytes.length,
      slice: (start, end) => bytes.slice(start, end) as Uint8Array<ArrayBuffer>,
      copyTo: (target, start) => target.set(bytes.subarray(start)),
    };
  }
  const { length, runs } = layout;
  return {
    length,
    slice(start, end) {
      const out = new Uint8Array(Math.max(0, end - start));
      for (const { from, to, size } of runs) {
        if (to >= end) break;
        const lo = Math.max(to, start);
        const hi = Math.min(to + size, end);
        if (lo < hi) out.set(bytes.subarray(from + lo - to, from + hi - to), lo - start);
      }
      return out;
    },
    copyTo(target, start) {
      // The target may hold anything: the gaps between kept runs are written as zeros.
      let at = start;
      for (const { from, to, size } of runs) {
        if (to + size <= start) continue;
        if (to > at) target.fill(0, at - start, to - start);
        const lo = Math.max(to, start);
        target.set(bytes.subarray(from + lo - to, from + size), lo - start);
        at = to + size;
      }
      if (at < length) target.fill(0, at - start, length - start);
    },
  };
}

/** Throws as snapshotImage would on a packed file that is cut short or has extra bytes, without reading its pages. */
export function checkPackedSnapshot(bytes: Uint8Array): void {
  packedLayout(bytes);
}

/**
 * Where each run of kept pages of a packed file lies in it and in the snapshot; null when the
 * bytes are not a packed file. A booted Pyodide's kept pages come in a few dozen runs, so every
 * loop of a start (this one reads the bitmap a byte at a time) stays short: a loop per page, run
 * in every new worker, was hot enough for V8 to optimize it each time on another thread.
 */
function packedLayout(bytes: Uint8Array): { length: number; runs: Run[] } | null {
  if (bytes.length < HEADER || MAGIC.some((b, i) => bytes[i] !== b)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pageSize = view.getUint32(4, true);
  const length = view.getUint32(8, true);
  const count = Math.ceil(length / pageSize);
  const bitmap = bytes.subarray(HEADER, HEADER + Math.ceil(count / 8));
  const runs: Run[] = [];
  let offset = HEADER + bitmap.length;
  let first = -1;
  const endRun = (end: number) => {
    const to = first * pageSize;
    const size = Math.min(end * pageSize, length) - to;
    // internal: a damaged build file, the deployer's to fix; PyTabs' build and tests read this, no class does.
    if (offset + size > bytes.length) throw new Error('The memory snapshot file is truncated.');
    runs.push({ from: offset, to, size });
    offset += size;
    first = -1;
  };
  for (let i = 0; i < bitmap.length; i++) {
    const byte = bitmap[i];
    const base = i * 8;
    // A byte of all kept or all missing pages only continues or ends a run.
    if (byte === 0xff && first >= 0) continue;
    if (byte === 0 && first < 0) continue;
    for (let bit = 0; bit < 8 && base + bit < count; bit++) {
      const kept = (byte & (1 << bit)) !== 0;
      if (kept && first < 0) first = base + bit;
      else if (!kept && first >= 0) endRun(base + bit);
    }
  }
  if (first >= 0) endRun(count);
  // internal: as above, a damaged build file.
  if (offset !== bytes.length) throw new Error('The memory snapshot file has bytes it does not account for.');
  return { length, runs };
}

/** Consecutive kept pages: `size` bytes at `from` in the file, at `to` in the snapshot. */
interface Run {
  from: number;
  to: number;
  size: number;
}
