import 'fake-indexeddb/auto';
import { describe, it, expect } from 'vitest';
import { sessionRange } from '../../src/lib/storage/db';
import { readAllFiles } from '../../src/lib/storage/files';
import { portableDevice } from './portable-device';
import {
  EmbedBridge,
  embedFragment,
  embedPage,
  isEmbedSession,
  openEmbedSession,
  parentHelloOrigin,
  parseOrigins,
  readEmbed,
  readRequest,
  resetEmbed,
  type EmbedHandlers,
} from '../../src/lib/embed';
import { SHARE_VERSION, packShare } from '../../src/lib/portability/share-format';
import { downloadAllWork } from '../../src/lib/portability';
import { addNewSession, listSessionRecords } from '../../src/lib/storage/sessions';
import { applyCleanup } from '../../src/lib/sessions/cleanup';
import { unzipSync } from 'fflate';

// Embeds on real (fake-indexeddb) storage and real fflate: the fragment's options and refusals,
// the session kept per page and id, Reset, the origins file, and the bridge's rules about
// who it answers and what.

const device = () => portableDevice('embed');

function address(settings: Parameters<typeof embedFragment>[0], cells: string[], files: { path: string; text: string }[] = []): string {
  return embedFragment(settings, { version: SHARE_VERSION, data: packShare({ name: 'Lesson', cells, files }).data });
}

describe('an embed address', () => {
  it('carries its options and the author code, and reads back what embedFragment wrote', async () => {
    const opened = await readEmbed(address({ id: 'cell-1', page: '/week/1', readOnly: true, hideCode: true, run: 'load', theme: 'dark', showVariables: true, stepThrough: true }, ['x = 1']));
    expect(opened.options).toEqual({ id: 'cell-1', page: '/week/1', readOnly: true, hideCode: true, run: 'load', theme: 'dark', showVariables: true, stepThrough: true });
    expect(opened.author?.session.cells).toEqual(['x = 1']);
    const plain = await readEmbed('#/embed?id=a');
    expect(plain.author).toBeNull();
    expect(plain.options).toMatchObject({ readOnly: false, hideCode: false, run: 'click', theme: 'auto', showVariables: false, stepThrough: false, page: '' });
  });

  it('is refused whole, with the reason, when an option or its code is wrong', async () => {
    const refusals: [string, RegExp][] = [
      ['#/embed?run=load', /has no id/],
      ['#/embed?id=a/b', /id must be 1 to 64/],
      ['#/embed?id=a&ro=yes', /"ro=yes" is not one of "0", "1"/],
      ['#/embed?id=a&page=//evil.example/x%00', /page must be a path/],
      ['#/embed?id=a&theme=pink', /"theme=pink"/],
      ['#/embed?id=a&step=yes', /"step=yes" is not one of "0", "1"/],
      ['#/embed?id=a&v=2&z=AA', /version "2"/],
      ['#/embed?id=a&z=AA', /has no version/],
      [`#/embed?id=a&v=1&z=${'A'.repeat(70_000)}`, /at most 65536/],
    ];
    for (const [hash, why] of refusals) await expect(readEmbed(hash), hash).rejects.toThrow(why);
    await expect(readEmbed(address({ id: 'a' }, [], [{ path: '../x', text: '' }]))).rejects.toThrow(/Cannot show this embed: .*leave the workspace/);
  });
});

describe("an embed's session", () => {
  it('is named by the page the browser reports, not by anything the page says about its origin', () => {
    const framed = { top: false, selfOrigin: 'https://pytabs.example', ancestorOrigins: ['https://course.example'], referrer: 'https://evil.example/' };
    expect(embedPage(framed, '/w1')).toEqual({ origin: 'https://course.example', key: 'https://course.example/w1' });
    expect(embedPage({ ...framed, ancestorOrigins: [] }, '')).toEqual({ origin: 'https://evil.example', key: 'https://evil.example' });
    expect(embedPage({ ...framed, ancestorOrigins: undefined, referrer: '' }, '').origin).toBeNull();
    expect(embedPage({ ...framed, top: true }, '').origin).toBe('https://pytabs.example');
    // The page's hello counts only where the browser told neither of the others.
    expect(embedPage({ ...framed, ancestorOrigins: undefined, referrer: '', helloOrigin: 'https://course.example' }, '/w1').key).toBe('https://course.example/w1');
    expect(embedPage({ ...framed, helloOrigin: 'https://other.example' }, '').origin).toBe('https://course.example');
  });

  it("learns its page's origin from the page's hello, from the parent window only", async () => {
    const self = new EventTarget() as unknown as Window;
    const parent = { postMessage: () => undefined } as unknown as Window;
    const say = (data: unknown, source: unknown, origin: string) => self.dispatchEvent(Object.assign(new Event('message'), { data, source, origin }));
    const hello = { pytabs: 'embed', kind: 'request', requestId: 'hello1', op: 'hello' };
    const heard = parentHelloOrigin(self, parent, 1000);
    say(hello, {}, 'https://evil.example');
    say({ ...hello, op: 'listVariables' }, parent, 'https://other.example');
    say({ ...hello, requestId: '' }, parent, 'https://other.example');
    say(hello, parent, 'https://course.example');
    await expect(heard).resolves.toBe('https://course.example');
    await expect(parentHelloOrigin(self, parent, 20)).resolves.toBeNull();
  });

  it('is one per page and id, found again, marked, and Reset to the author version', async () => {
    const manager = await device();
    const opened = await readEmbed(address({ id: 'a' }, ['print(1)'], [{ path: 'data.csv', text: 'x\n1\n' }]));
    const page = { origin: 'https://course.example', key: 'https://course.example/w1' };
    const first = await openEmbedSession(manager, page, opened.options, opened.author);
    expect(first).toMatchObject({ made: true, authorChanged: false });
    expect(await openEmbedSession(manager, page, opened.options, opened.author)).toEqual({ sessionId: first.sessionId, made: false, authorChanged: false });
    const other = await openEmbedSession(manager, { ...page, key: 'https://other.example/w1' }, opened.options, opened.author);
    const second = await openEmbedSession(manager, page, { ...opened.options, id: 'b' }, opened.author);
    expect(new Set([first.sessionId, other.sessionId, second.sessionId]).size).toBe(3);
    expect(await isEmbedSession(manager, first.sessionId, page.key, 'a')).toBe(true);
    expect(await isEmbedSession(manager, first.sessionId, page.key, 'b')).toBe(false);
    expect(await isEmbedSession(manager, other.sessionId, page.key, 'a')).toBe(false);

    // The reader changes the files; Reset brings back the author's, under the same id and mark.
    await manager.db.put('fileData', { sessionId: first.sessionId, path: 'mine.txt', data: new Uint8Array([1]) });
    await manager.db.put('files', { sessionId: first.sessionId, path: 'mine.txt', size: 1, modifiedAt: 1 });
    const changed = await readEmbed(address({ id: 'a' }, ['print(2)'], [{ path: 'data.csv', text: 'x\n2\n' }]));
    expect((await openEmbedSession(manager, page, changed.options, changed.author)).authorChanged).toBe(true);
    await resetEmbed(manager, first.sessionId, page, changed.options, changed.author);
    const files = await readAllFiles(manager.db, first.sessionId);
    expect(files.map((f) => [f.path, new TextDecoder().decode(f.data)])).toEqual([['data.csv', 'x\n2\n']]);
    expect((await openEmbedSession(manager, page, changed.options, changed.author)).authorChanged).toBe(false);
    // Reset refuses a session that is not this embed's, and changes nothing of it.
    await expect(resetEmbed(manager, other.sessionId, page, changed.options, changed.author)).rejects.toThrow(/not this embed/);
    expect((await manager.db.getAll('fileData', sessionRange(other.sessionId))).map((f) => new TextDecoder().decode(f.data))).toEqual(['x\n1\n']);
  });
  it("is kept apart from the person's sessions: not listed, not in Download all my work, and still in the cleanup policy", async () => {
    const manager = await device();
    await addNewSession(manager.db, 'mine', 'Mine', 1);
    const opened = await readEmbed(address({ id: 'a' }, ['print(1)']));
    const { sessionId } = await openEmbedSession(manager, { origin: 'https://pytabs.example', key: 'https://pytabs.example/embed/example.html' }, opened.options, opened.author, 2);
    expect((await listSessionRecords(manager.db)).map((r) => r.id)).toEqual(['mine']);
    expect((await listSessionRecords(manager.db, { embeds: true })).map((r) => r.id)).toEqual(['mine', sessionId]);
    expect(Object.keys(unzipSync((await downloadAllWork(manager)).data))).toEqual(['Mine.pytabs.zip']);
    // An embed left unused goes as any session does.
    const report = await applyCleanup(manager.db, { inactiveAfterDays: 1, deleteAfterDays: 2 }, 10 * 24 * 3600 * 1000);
    expect(report.deleted.sort()).toEqual(['mine', sessionId].sort());
  });
});

describe('embed-origins.json', () => {
  it('keeps exact origins and reports the rest', () => {
    const read = parseOrigins({ origins: ['https://a.example', 'https://b.example/path', '*', 'http://c.example:8080', 42, 'null'] });
    expect([...read.origins]).toEqual(['https://a.example', 'http://c.example:8080']);
    expect(read.problems).toHaveLength(4);
    expect(parseOrigins(['https://a.example']).origins.size).toBe(0);
  });
});

describe('the bridge', () => {
  const PAGE = 'https://course.example';
  function setup(parentOrigin: string | null, allowed = [PAGE]) {
    const self = new EventTarget() as unknown as Window;
    const posted: { message: Record<string, unknown>; origin: string }[] = [];
    const parent = { postMessage: (message: Record<string, unknown>, origin: string) => posted.push({ message, origin }) } as unknown as Window;
    const ran: string[] = [];
    const handlers: EmbedHandlers = {
      run: async (code) => (ran.push(code), { status: 'ok', stdout: '', stderr: '', result: '2' }),
      writeFile: async (path, data) => ({ path, size: data.byteLength }),
      getVariable: async (name) => ({ name, type: 'int', sizeBytes: 1, preview: '1', persisted: true, repr: '1' }),
      listVariables: async () => [],
    };
    const bridge = new EmbedBridge({ self, parent, parentOrigin, allowed: new Set(allowed), sessionId: 's1' }, handlers);
    const send = async (data: unknown, { source = parent, origin = PAGE }: { source?: unknown; origin?: string } = {}) => {
      self.dispatchEvent(Object.assign(new Event('message'), { data, source, origin }));
      await new Promise((resolve) => setTimeout(resolve, 0));
    };
    return { bridge, posted, ran, send, parent };
  }
  const request = (op: string, extra: Record<string, unknown> = {}) => ({ pytabs: 'embed', kind: 'request', requestId: 'r1', op, sessionId: 's1', ...extra });

  it('answers an allowed parent about its own session, at that origin only', async () => {
    const { bridge, posted, ran, send } = setup(PAGE);
    bridge.start();
    expect(posted).toEqual([{ message: { event: 'ready', pytabs: 'embed', kind: 'event', sessionId: 's1' }, origin: PAGE }]);
    await send(request('run', { code: '1 + 1' }));
    expect(ran).toEqual(['1 + 1']);
    expect(posted[1]).toEqual({ message: { pytabs: 'embed', kind: 'reply', requestId: 'r1', sessionId: 's1', ok: true, value: { status: 'ok', stdout: '', stderr: '', result: '2' } }, origin: PAGE });
    await send(request('run', { code: 'x', sessionId: 's2' }));
    expect(posted[2].message).toMatchObject({ ok: false, sessionId: 's1', error: expect.stringContaining('only for its own session') });
    expect(ran).toEqual(['1 + 1']);
  });

  it('ignores other windows and origins, and other messages; an unlisted parent gets nothing at all', async () => {
    const open = setup(PAGE);
    open.bridge.start();
    await open.send(request('run', { code: 'a' }), { source: {} });
    await open.send(request('run', { code: 'b' }), { origin: 'https://evil.example' });
    await open.send({ type: 'something else' });
    expect(open.ran).toEqual([]);
    expect(open.posted).toHaveLength(1);

    const closed = setup('https://evil.example');
    closed.bridge.start();
    closed.bridge.post({ event: 'resize', height: 10 });
    await closed.send(request('run', { code: 'c' }), { origin: 'https://evil.example' });
    expect(closed.bridge.open).toBe(false);
    expect(closed.posted).toEqual([]);
    expect(closed.ran).toEqual([]);
  });

  it('checks every field of a request', () => {
    expect(readRequest({ pytabs: 'embed', kind: 'request', requestId: 'r', op: 'run', code: 1 })).toEqual({ refused: expect.stringContaining('"code"'), requestId: 'r' });
    expect(readRequest({ pytabs: 'embed', kind: 'request', op: 'hello' })).toEqual({ refused: expect.stringContaining('requestId'), requestId: null });
    expect(readRequest({ pytabs: 'embed', kind: 'request', requestId: 'r', op: 'getVariable', name: 'a.b' })).toMatchObject({ refused: expect.stringContaining('identifier') });
    expect(readRequest({ pytabs: 'embed', kind: 'request', requestId: 'r', op: 'writeFile', path: 'a', data: {} })).toMatchObject({ refused: expect.stringContaining('"data"') });
    expect(readRequest({ pytabs: 'other' })).toBeNull();
    expect(readRequest({ pytabs: 'embed', kind: 'request', requestId: 'r', op: 'writeFile', path: 'a.txt', data: 'x', sessionId: 's' })).toEqual({
      request: { pytabs: 'embed', kind: 'request', requestId: 'r', op: 'writeFile', path: 'a.txt', data: 'x', sessionId: 's' },
    });
  });

  it("limits a text file's data to 10 MiB of UTF-8, the bytes written, not 10 Mi characters", () => {
    const max = 10 * 1024 * 1024;
    const write = (data: string) => readRequest({ pytabs: 'embed', kind: 'request', requestId: 'r', op: 'writeFile', path: 'a.txt', data });
    // "€" is 3 bytes: a third of the limit in characters is the limit in bytes, one more is over.
    const euros = Math.floor(max / 3);
    const under = '€'.repeat(euros) + 'a'.repeat(max - euros * 3);
    expect(new TextEncoder().encode(under).byteLength).toBe(max);
    expect(write(under)).toHaveProperty('request');
    expect(write(under + 'a')).toMatchObject({ refused: expect.stringContaining('at most 10485760 bytes') });
    expect(write('€'.repeat(euros + 1))).toHaveProperty('refused');
    // A character outside the BMP is two UTF-16 units and 4 bytes; a lone surrogate is written as U+FFFD, 3 bytes.
    const emoji = '😀'.repeat(max / 4);
    expect(write(emoji)).toHaveProperty('request');
    expect(write(emoji + 'a')).toHaveProperty('refused');
    expect(write('\ud800'.repeat(euros) + 'a'.repeat(max - euros * 3))).toHaveProperty('request');
    expect(write('\ud800'.repeat(euros + 1))).toHaveProperty('refused');
    // ASCII up to the limit, and a Uint8Array by its length.
    expect(write('a'.repeat(max))).toHaveProperty('request');
    expect(write('a'.repeat(max + 1))).toHaveProperty('refused');
  });
});
