import 'fake-indexeddb/auto';
import { describe, it, expect } from 'vitest';
import { deflateSync } from 'fflate';
import { sessionRange, type PyTabsDB } from '../../src/lib/storage/db';
import { commitChange } from '../../src/lib/storage/commit';
import { getSession, newSessionRecord, putSession } from '../../src/lib/storage/sessions';
import { readAllFiles } from '../../src/lib/storage/files';
import { newRound } from '../../src/lib/chat/round';
import type { Round } from '../../src/lib/chat/types';
import { portableDevice } from './portable-device';
import { said } from '../../src/lib/i18n/said';
import {
  decodeShare,
  encodeShare,
  ImportError,
  MAX_FRAGMENT_CHARS,
  MAX_SHARE_CHARS,
  openShared,
  sessionFromShare,
  shareSession,
  type SharedSession,
} from '../../src/lib/portability';

// Shared links on real (fake-indexeddb) storage and real fflate: what Share puts in a link,
// what opening it writes, and what a hostile or broken link is refused with, writing nothing.

const bytes = (s: string) => new TextEncoder().encode(s);
async function device() {
  const changed: string[] = [];
  return Object.assign(await portableDevice('share', { storageChanged: (id) => void changed.push(id) }), { changed });
}

/** A fragment as a hostile page could write it: any JSON, any compression, any version. */
function craft(payload: unknown, { version = '1', raw }: { version?: string; raw?: Uint8Array } = {}): string {
  const data = raw ?? deflateSync(bytes(JSON.stringify(payload)));
  const b64 = btoa(String.fromCharCode(...data)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `#/share?v=${version}&z=${b64}`;
}

const lesson: SharedSession = {
  name: 'Lesson <b>4</b>',
  cells: ['import csv\nrows = list(csv.DictReader(open("data.csv")))', 'sum(int(r["x"]) for r in rows)', 'print("é ✓ 𝄞")'],
  files: [
    { path: 'data.csv', text: 'x\n1\n2\n' },
    { path: 'notes/read me.md', text: '# Notes\n<script>alert(1)</script>\n' },
  ],
};

describe('encodeShare and decodeShare', () => {
  it('round-trips name, cells and files, in a fragment of base64url only', async () => {
    const { fragment, bytes: size } = encodeShare(lesson);
    expect(fragment).toMatch(/^#\/share\?v=1&z=[A-Za-z0-9_-]+$/);
    expect(size).toBe(bytes(JSON.stringify(lesson)).byteLength);
    const opened = await decodeShare(fragment);
    expect(opened!.session).toEqual(lesson);
    expect(opened!.key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names a link by its contents: the same session gives the same key, another a different one', async () => {
    const a = await decodeShare(encodeShare(lesson).fragment);
    const again = await decodeShare(craft(lesson, { raw: deflateSync(bytes(JSON.stringify(lesson)), { level: 1 }) }));
    const other = await decodeShare(encodeShare({ ...lesson, cells: [...lesson.cells, '1'] }).fragment);
    expect(again!.key).toBe(a!.key);
    expect(other!.key).not.toBe(a!.key);
  });

  it('ignores addresses that are not shared links', async () => {
    expect(await decodeShare('#/s/abc')).toBeNull();
    expect(await decodeShare('#/open?from=x.ipynb')).toBeNull();
    expect(await decodeShare('#/sharethis')).toBeNull();
  });

  const refusals: [string, () => string, RegExp][] = [
    ['no data', () => '#/share?v=1', /carries no session/],
    ['no version', () => '#/share?z=abc', /has no version/],
    ['another version', () => craft(lesson, { version: '2' }), /version "2"; this PyTabs opens version 1/],
    ['characters outside base64url', () => '#/share?v=1&z=ab$cd', /not base64url/],
    ['data cut short', () => encodeShare(lesson).fragment.slice(0, -20), /damaged|not valid JSON/],
    ['bytes that are not DEFLATE', () => craft(null, { raw: bytes('this is not compressed at all, not in the least') }), /damaged/],
    ['a fragment over the cap', () => `#/share?v=1&z=${'A'.repeat(MAX_FRAGMENT_CHARS)}`, /characters long; at most 65536/],
    ['contents that are not JSON', () => craft(null, { raw: deflateSync(bytes('{"cells": [')) }), /not valid JSON/],
    ['contents that are not UTF-8', () => craft(null, { raw: deflateSync(new Uint8Array([0xff, 0xfe, 0x00])) }), /not UTF-8/],
    ['cells that are not a list', () => craft({ name: 'x', cells: 'print(1)' }), /"cells" must be a list/],
    ['too many cells', () => craft({ name: 'x', cells: Array(1001).fill('1') }), /"cells" has 1001 items; at most 1000/],
    ['a cell that is not text', () => craft({ name: 'x', cells: [{ code: 1 }] }), /cell 1 must be text/i],
    ['a file path with ..', () => craft({ name: 'x', cells: [], files: [{ path: '../../evil.txt', text: 'x' }] }), /would leave the workspace/],
    ['an absolute file path', () => craft({ name: 'x', cells: [], files: [{ path: '/etc/passwd', text: 'x' }] }), /absolute path/],
    ['a control character in a file name', () => craft({ name: 'x', cells: [], files: [{ path: 'a\u0007b.txt', text: 'x' }] }), /control characters/],
    ['a file twice', () => craft({ name: 'x', cells: [], files: [{ path: 'a.txt', text: '1' }, { path: 'a.txt', text: '2' }] }), /holds "a\.txt" twice/],
    ['a file that is also a folder', () => craft({ name: 'x', cells: [], files: [{ path: 'a', text: '1' }, { path: 'a/b', text: '2' }] }), /also a folder/],
    ['a file whose text is not text', () => craft({ name: 'x', cells: [], files: [{ path: 'a.txt', text: [1, 2] }] }), /file "a\.txt" must be text/i],
  ];
  for (const [what, make, message] of refusals) {
    it(`refuses ${what} with a clear message`, async () => {
      const error = await decodeShare(make()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImportError);
      expect((error as Error).message).toMatch(/^Cannot open this shared link: /);
      expect((error as Error).message).toMatch(message);
    });
  }

  it('stops a zip bomb while inflating, not after', async () => {
    // 32 MB of zeros packs into ~32 kB, a link of ~43,000 characters.
    const packed = deflateSync(new Uint8Array(32 * 1024 ** 2), { level: 9 });
    const bomb = craft(null, { raw: packed });
    expect(bomb.length).toBeLessThan(MAX_FRAGMENT_CHARS);
    await expect(decodeShare(bomb)).rejects.toThrow(/unpack to more than 1\.0 MB, the most a link may carry \(a zip bomb\?\)/);
    // Cut short, it is damaged at its end: only a check made while inflating sees the bomb first.
    await expect(decodeShare(craft(null, { raw: packed.subarray(0, packed.length / 2) }))).rejects.toThrow(/zip bomb/);
  });
});

async function seed(db: PyTabsDB, id: string): Promise<void> {
  await putSession(db, newSessionRecord(id, 'Lesson 4', 1000));
  await commitChange(db, id, {
    files: {
      put: [
        { path: 'data.csv', data: bytes('x\n1\n2\n'), modifiedAt: 1 },
        { path: 'img.png', data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff]), modifiedAt: 1 },
      ],
    },
  });
  const typed = (seq: number, message: string, kind?: 'ask'): Round => ({ ...newRound(id, seq, message, [], 1000 + seq), state: 'finished', ...(kind ? { kind } : {}) });
  for (const r of [typed(2, 'total = 3'), typed(1, 'x = 1'), typed(3, 'What is x?', 'ask'), typed(4, 'print(total)')]) await db.put('rounds', r);
}

describe('shareSession and openShared', () => {
  it('shares the typed cells in order and the text files, opens them as a new session that has not run, and finds it again by the link', async () => {
    const home = await device();
    await seed(home.db, 's1');
    const offer = await shareSession(home, 's1', 'https://example.org/app/?x=1#/s/s1');
    expect(offer).toMatchObject({
      cells: 3,
      files: [{ path: 'data.csv', size: 6 }],
      leftOut: [{ path: 'img.png', why: said('lib_share_not_text') }],
      questions: 1,
      maxChars: MAX_SHARE_CHARS,
    });
    expect(offer.url!.startsWith('https://example.org/app/?x=1#/share?v=1&z=')).toBe(true);
    expect(offer.chars).toBe(offer.url!.length);

    // A fresh device: nothing of the first one.
    const fresh = await device();
    const opened = (await decodeShare(new URL(offer.url!).hash))!;
    expect(opened.session.cells).toEqual(['x = 1', 'total = 3', 'print(total)']);
    expect(await sessionFromShare(fresh, opened.key)).toBeNull();
    const result = await openShared(fresh, opened, 5000);
    expect(result).toMatchObject({ name: 'Lesson 4', kind: 'shared', files: ['data.csv'], rounds: 3, runAll: ['x = 1', 'total = 3', 'print(total)'], held: null });
    const files = await readAllFiles(fresh.db, result.sessionId);
    expect(files.map((f) => [f.path, new TextDecoder().decode(f.data)])).toEqual([['data.csv', 'x\n1\n2\n']]);
    const rounds = (await fresh.db.getAll('rounds', sessionRange(result.sessionId))) as unknown as Round[];
    expect(rounds.map((r) => [r.seq, r.message, r.importedFrom])).toEqual([
      [1, 'x = 1', 'a shared link'],
      [2, 'total = 3', 'a shared link'],
      [3, 'print(total)', 'a shared link'],
    ]);
    // Nothing ran: no code started in any round, no variables, no run counted.
    expect(rounds.flatMap((r) => r.events).filter((e) => e.type === 'code_start')).toEqual([]);
    expect(await fresh.db.getAll('variables')).toEqual([]);
    expect((await getSession(fresh.db, result.sessionId))!.totalExecutions).toBe(0);
    expect(fresh.changed).toEqual([result.sessionId]);

    expect(await sessionFromShare(fresh, opened.key)).toEqual({ id: result.sessionId, name: 'Lesson 4' });
    // Deleting the session forgets the link with it.
    await fresh.db.delete('sessions', result.sessionId);
    await fresh.db.delete('imports', sessionRange(result.sessionId));
    expect(await sessionFromShare(fresh, opened.key)).toBeNull();
  });

  it('makes no link over the limit, and says how long it would have been', async () => {
    const home = await device();
    await seed(home.db, 's1');
    // Random text barely compresses: far over the limit once packed.
    const noise = Array.from({ length: 40_000 }, () => String.fromCharCode(33 + Math.floor(Math.random() * 90))).join('');
    await commitChange(home.db, 's1', { files: { put: [{ path: 'big.txt', data: bytes(noise), modifiedAt: 2 }] } });
    const offer = await shareSession(home, 's1', 'https://example.org/');
    expect(offer.url).toBeNull();
    expect(offer.chars).toBeGreaterThan(MAX_SHARE_CHARS);
    expect(offer.files.map((f) => f.path)).toEqual(['big.txt', 'data.csv']);
  });
});
