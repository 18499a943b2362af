import { afterEach, describe, expect, it, vi } from 'vitest';
import { heldSnapshot, snapshotForWorker } from '../../src/lib/sessions/snapshot-share';

const page = () => ({ file: 'snapshot-x.bin', bytes: Uint8Array.from({ length: 10_000 }, (_, i) => i % 251) });

afterEach(() => vi.unstubAllGlobals());

describe("the page's snapshot", () => {
  it('is held in shared memory alone where the page has it, and every worker gets those very bytes', () => {
    const first = page();
    const held = heldSnapshot(first);
    expect(held.bytes.buffer instanceof SharedArrayBuffer).toBe(true);
    expect(Buffer.from(held.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    // Moved once: asking again, with the first bytes or the held ones, copies nothing.
    expect(heldSnapshot(first).bytes).toBe(held.bytes);
    expect(heldSnapshot(held)).toBe(held);
    for (let i = 0; i < 3; i++) {
      const { snapshot, transfer } = snapshotForWorker(held);
      expect(snapshot.bytes).toBe(held.bytes);
      expect(transfer).toHaveLength(0);
    }
  });

  it('stays as it is where the page cannot share memory, and each worker gets a transferable copy', () => {
    vi.stubGlobal('SharedArrayBuffer', undefined);
    const first = page();
    expect(heldSnapshot(first)).toBe(first);
    const { snapshot, transfer } = snapshotForWorker(first);
    expect(snapshot.bytes).not.toBe(first.bytes);
    expect(Buffer.from(snapshot.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    expect(transfer).toEqual([snapshot.bytes.buffer]);
  });
});
