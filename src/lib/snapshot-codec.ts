// How the build's memory snapshot travels; shared by the build (Node), the page and the worker.
//
// Half of a booted Pyodide's 31 MB of memory is pages of zeros, so the file leaves them out:
// "PTZ1", the page size and the full length (u32, little-endian), a bitmap of the pages
// present, then those pages. Hand-written because unpacking must cost next to nothing on
// every page load: gzip would halve the file again, but inflating 31 MB took ~200 ms in
// Chromium here, where filling in the zeros is one allocation and a copy per page.

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

/** The snapshot's bytes from the downloaded file; bytes that are not a packed file pass as they are. */
export function unpackSnapshot(bytes: Uint8Array): Uint8Array {
  const layout = packedLayout(bytes);
  // Unpacked already: as is, or out of shared memory (the page's one copy for all its
  // workers, snapshot-share.ts), which Pyodide's restore cannot decode from.
  if (!layout) return bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
  const raw = new Uint8Array(layout.length);
  for (const { from, to, size } of layout.pages) raw.set(bytes.subarray(from, from + size), to);
  return raw;
}

/** Throws as unpackSnapshot would on a packed file that is cut short or has extra bytes, without unpacking it. */
export function checkPackedSnapshot(bytes: Uint8Array): void {
  packedLayout(bytes);
}

/** Where each kept page of a packed file lies in it and in the snapshot; null when the bytes are not a packed file. */
function packedLayout(bytes: Uint8Array): { length: number; pages: { from: number; to: number; size: number }[] } | null {
  if (bytes.length < HEADER || MAGIC.some((b, i) => bytes[i] !== b)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pageSize = view.getUint32(4, true);
  const length = view.getUint32(8, true);
  const count = Math.ceil(length / pageSize);
  const bitmap = bytes.subarray(HEADER, HEADER + Math.ceil(count / 8));
  const pages: { from: number; to: number; size: number }[] = [];
  let offset = HEADER + bitmap.length;
  for (let p = 0; p < count; p++) {
    if (!(bitmap[p >> 3] & (1 << (p & 7)))) continue;
    const size = Math.min(pageSize, length - p * pageSize);
    if (offset + size > bytes.length) throw new Error('The memory snapshot file is truncated.');
    pages.push({ from: offset, to: p * pageSize, size });
    offset += size;
  }
  if (offset !== bytes.length) throw new Error('The memory snapshot file has bytes it does not account for.');
  return { length, pages };
}
