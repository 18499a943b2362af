import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ggufBytes } from '../../scripts/gguf.mjs';
import { checkModelFile, sha256Hex } from '../../src/lib/local-model/download';

// A model's sha256 is hashed as the file streams (not read whole into memory): checked against
// Node's own sha256 on files that stream in several pieces.

const referee = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe("a model file's sha256", () => {
  it('is the sha256 of the whole file, however it streams', async () => {
    const random = randomBytes(3 * 1024 * 1024 + 17);
    // A Blob of several parts streams in pieces of its own sizes.
    const parts = new Blob([random.subarray(0, 5), random.subarray(5, 70_000), random.subarray(70_000)]);
    expect(await sha256Hex(parts)).toBe(referee(random));
    expect(await sha256Hex(new Blob([]))).toBe(referee(new Uint8Array()));
  });

  it('keeps a file of the listed sha256 and refuses one that differs', async () => {
    const tiny = new Uint8Array(ggufBytes({ shape: 'tiny' }));
    const file = new Blob([tiny]);
    await expect(checkModelFile(file, { size: tiny.byteLength, sha256: referee(tiny).toUpperCase() })).resolves.toBeTruthy();
    const changed = tiny.slice();
    changed[changed.length - 1] ^= 1;
    await expect(checkModelFile(new Blob([changed]), { sha256: referee(tiny) })).rejects.toThrow(/sha256 is not the one the list gives/);
  });
});
