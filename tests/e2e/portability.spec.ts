import { test, expect, type Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { dumpDatabase, openApp } from './app';

// Sessions as files and the clean slate, through the page's API (window.pytabs and
// window.pytabsLib), in real Chromium with real IndexedDB, real Pyodide and real pickles.

const CODE = [
  'import csv, statistics',
  "rows = [int(r['x']) for r in csv.DictReader(open('data.csv'))]",
  'total = sum(rows)',
  'def double(v):',
  '    return 2 * v',
  "open('report.txt', 'w').write(f'total {total}')",
  "print('student', get_session_var('student'))",
  'statistics.mean(rows)',
].join('\n');

/** The messages of a session's history, read from IndexedDB itself. */
function roundMessages(page: Page, id: string): Promise<string[]> {
  return page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('pytabs');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const rounds = await new Promise<{ message: string }[]>((resolve, reject) => {
      const req = db.transaction('rounds').objectStore('rounds').getAll(IDBKeyRange.bound([id], [id, []]));
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    db.close();
    return rounds.map((r) => r.message);
  }, id);
}

/** A session with a file, session variables, history and variables (a pickle, a def, an import), exported; the bytes come back as a list. */
async function makeAndExport(page: Page): Promise<{ id: string; name: string; data: number[]; files: Record<string, number[]> }> {
  return page.evaluate(async (code) => {
    const api = window.pytabs!;
    const lib = window.pytabsLib!;
    const s = await api.createSession('Hand-in 3');
    await api.writeFile(s.id, 'data.csv', new TextEncoder().encode('x\n1\n2\n3\n'));
    await api.setSessionVars(s.id, { student: 'Ada' });
    const round = await lib.sendMessage(api, s.id, `Work:\n\n\`\`\`python\n${code}\n\`\`\``);
    if (round.state !== 'finished') throw new Error(JSON.stringify(round.events));
    const file = await lib.exportSession(api, s.id);
    const files: Record<string, number[]> = {};
    for (const f of await api.listFiles(s.id)) files[f.path] = Array.from(await api.readFile(s.id, f.path));
    return { id: s.id, name: file.name, data: Array.from(file.data), files };
  }, CODE);
}

test('an export unzips in Node: workspace byte for byte, right sha256, a notebook nbformat accepts', async ({ page }) => {
  await openApp(page);
  const exported = await makeAndExport(page);
  expect(exported.name).toBe('Hand-in 3.pytabs.zip');
  const zip = unzipSync(new Uint8Array(exported.data));
  const manifest = JSON.parse(strFromU8(zip['manifest.json']));
  expect(manifest.session).toMatchObject({ name: 'Hand-in 3', vars: { student: 'Ada' } });
  for (const [name, info] of Object.entries(manifest.entries as Record<string, { sha256: string; size: number }>)) {
    expect(createHash('sha256').update(zip[name]).digest('hex'), name).toBe(info.sha256);
  }
  expect(Object.keys(exported.files).sort()).toEqual(['data.csv', 'report.txt']);
  for (const [file, data] of Object.entries(exported.files)) expect(Array.from(zip[`files/${file}`]), file).toEqual(data);
  const variables = JSON.parse(strFromU8(zip['state/variables.json'])).variables as { name: string; kind: string }[];
  expect(Object.fromEntries(variables.map((v) => [v.name, v.kind]))).toMatchObject({ total: 'pickle', rows: 'pickle', double: 'replay', csv: 'replay' });

  const dir = mkdtempSync(path.join(tmpdir(), 'pytabs-e2e-'));
  try {
    writeFileSync(path.join(dir, 'history.ipynb'), zip['history.ipynb']);
    const run = spawnSync('/usr/bin/python3', ['-c', 'import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))', path.join(dir, 'history.ipynb')], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cells = JSON.parse(strFromU8(zip['history.ipynb'])).cells;
  expect(cells.map((c: { cell_type: string }) => c.cell_type)).toEqual(['markdown', 'code']);
  expect(cells[1].outputs).toEqual([
    { output_type: 'stream', name: 'stdout', text: 'student Ada\n' },
    { output_type: 'execute_result', execution_count: 1, data: { 'text/plain': '2' }, metadata: {} },
  ]);
});

test('import into a fresh browser profile: files and history at once, variables after confirming', async ({ page, browser }) => {
  await openApp(page);
  const exported = await makeAndExport(page);

  const fresh = await browser.newContext();
  try {
    const other = await fresh.newPage();
    await openApp(other);
    const before = await other.evaluate(async ({ name, data }) => {
      const api = window.pytabs!;
      const lib = window.pytabsLib!;
      const result = await lib.importSession(api, { name, data: new Uint8Array(data) });
      const id = result.sessionId;
      const report = new TextDecoder().decode(await api.readFile(id, 'report.txt'));
      // Python runs before the person says yes, without the saved variables.
      const r = await api.run(id, "'total' in globals(), get_session_var('student')");
      return { result, report, r, vars: await api.listVariables(id), held: await lib.heldState(api, id) };
    }, exported);
    const rounds = await roundMessages(other, before.result.sessionId);
    expect(before.result).toMatchObject({ name: 'Hand-in 3', kind: 'session', files: ['data.csv', 'report.txt'], rounds: 1 });
    expect(before.result.held?.variables.sort()).toEqual(['csv', 'double', 'rows', 'statistics', 'total']);
    expect(rounds).toHaveLength(1);
    expect(rounds[0]).toContain('total = sum(rows)');
    expect(before.report).toBe('total 6');
    expect(before.r.result?.['text/plain']).toBe("(False, 'Ada')");
    expect(before.vars).toEqual([]);
    expect(before.held).toEqual(before.result.held);

    const after = await other.evaluate(async (id) => {
      const api = window.pytabs!;
      await window.pytabsLib!.confirmImportedState(api, id);
      const r = await api.run(id, 'double(total), statistics.mean(rows), csv.__name__');
      return { r, vars: (await api.listVariables(id)).map((v) => [v.name, v.persisted]), held: await window.pytabsLib!.heldState(api, id) };
    }, before.result.sessionId);
    expect(after.r.status).toBe('ok');
    expect(after.r.result?.['text/plain']).toBe("(12, 2, 'csv')");
    expect(Object.fromEntries(after.vars)).toMatchObject({ total: true, rows: true, double: true });
    expect(after.held).toBeNull();

    // And after a reload, from storage alone.
    await other.reload();
    await openApp(other);
    const reloaded = await other.evaluate((id) => window.pytabs!.run(id, 'double(total)'), before.result.sessionId);
    expect(reloaded.result?.['text/plain']).toBe('12');
  } finally {
    await fresh.close();
  }
});

test('hostile archives are refused with a clear error and nothing written to IndexedDB', async ({ page }) => {
  await openApp(page);
  await makeAndExport(page);
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  const archive = (entries: Record<string, Uint8Array>) => {
    const listed = Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, { sha256: sha(v), size: v.byteLength }]));
    const manifest = { format: 'pytabs-session', formatVersion: 1, app: { name: 'PyTabs', version: '0' }, pyodide: '314.0.7', exportedAt: 1, session: { name: 'Evil', createdAt: 1, vars: {} }, entries: listed };
    return zipSync({ 'manifest.json': strToU8(JSON.stringify(manifest)), ...entries });
  };
  const escape = archive({ 'files/../../escape.txt': strToU8('x') });
  // 32 MB of zeros that say they unpack to 100 bytes, in the local header and the central directory.
  const bomb = archive({ 'files/zeros.bin': new Uint8Array(32 * 1024 * 1024) });
  const view = new DataView(bomb.buffer);
  for (let i = 0; i + 4 <= bomb.length; i++) {
    if (view.getUint32(i, true) === 0x04034b50 && strFromU8(bomb.subarray(i + 30, i + 45)) === 'files/zeros.bin') view.setUint32(i + 22, 100, true);
    if (view.getUint32(i, true) === 0x02014b50 && strFromU8(bomb.subarray(i + 46, i + 61)) === 'files/zeros.bin') view.setUint32(i + 24, 100, true);
  }
  const tampered = unzipSync(archive({ 'files/data.csv': strToU8('x\n1\n') }));
  tampered['files/data.csv'] = strToU8('x\n9\n');

  const before = await dumpDatabase(page);
  const errors = await page.evaluate(async (files) => {
    const out: string[] = [];
    for (const [name, data] of files) {
      await window.pytabsLib!.importSession(window.pytabs!, { name, data: new Uint8Array(data) }).then(
        () => out.push('imported'),
        (e: Error) => out.push(`${e.name}: ${e.message}`),
      );
    }
    return out;
  }, [['escape.pytabs.zip', Array.from(escape)], ['bomb.pytabs.zip', Array.from(bomb)], ['tampered.pytabs.zip', Array.from(zipSync(tampered))]] as [string, number[]][]);
  expect(errors[0]).toMatch(/^ImportError: Cannot import "escape\.pytabs\.zip": .*would leave the workspace/);
  expect(errors[1]).toMatch(/^ImportError: Cannot import "bomb\.pytabs\.zip": "files\/zeros\.bin" unpacks to more than the 100 B it declares \(a zip bomb\?\)/);
  expect(errors[2]).toMatch(/^ImportError: Cannot import "tampered\.pytabs\.zip": "files\/data\.csv" does not match the sha256/);
  expect(await dumpDatabase(page)).toEqual(before);
});

test('a prepared session opens by link and resets to the file it came from', async ({ page, browser }) => {
  await openApp(page);
  const exported = await makeAndExport(page);
  const body = Buffer.from(exported.data);
  // Another host (another origin: another port), with and without CORS. A real server:
  // Playwright's route.fulfill adds CORS headers of its own.
  const other = createServer((req, res) => {
    const cors = req.url?.startsWith('/cors/') ? { 'Access-Control-Allow-Origin': '*' } : {};
    res.writeHead(200, { 'Content-Type': 'application/zip', ...cors }).end(body);
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const otherHost = `http://127.0.0.1:${(other.address() as { port: number }).port}`;

  const fresh = await browser.newContext();
  try {
    const student = await fresh.newPage();
    // The teacher's file beside the app, and one on another host with and without CORS.
    await student.route('**/lessons/week1.pytabs.zip', (route) => route.fulfill({ body, contentType: 'application/zip' }));
    await student.route('**/lessons/gone.pytabs.zip', (route) => route.fulfill({ status: 404, body: 'Not Found' }));
    await openApp(student);
    const opened = await student.evaluate(async (otherHost) => {
      const api = window.pytabs!;
      const lib = window.pytabsLib!;
      // The address a teacher shares; the page's router (phase 2) hands its hash to the library.
      const url = lib.preparedLinkTarget('#/open?from=lessons%2Fweek1.pytabs.zip', document.baseURI)!;
      const errors: string[] = [];
      const beside = (name: string) => new URL(`lessons/${name}`, document.baseURI).href;
      // A host that answers 404; one that serves the app's page for any address (as vite preview and many static hosts do); no CORS.
      for (const bad of [beside('gone.pytabs.zip'), beside('missing.pytabs.zip'), `${otherHost}/plain/week1.pytabs.zip`]) {
        await lib.fetchPrepared(bad).catch((e: Error) => errors.push(e.message));
      }
      const cors = await lib.fetchPrepared(`${otherHost}/cors/week1.pytabs.zip`);
      const prepared = await lib.fetchPrepared(url);
      const result = await lib.openPrepared(api, prepared);
      await lib.confirmImportedState(api, result.sessionId);
      return { url, errors, corsBytes: cors.data.byteLength, result, origin: await lib.sessionOrigin(api, result.sessionId) };
    }, otherHost);
    expect(opened.url).toMatch(/\/lessons\/week1\.pytabs\.zip$/);
    expect(opened.errors[0]).toMatch(/gone\.pytabs\.zip: there is no file at this address/);
    expect(opened.errors[1]).toMatch(/missing\.pytabs\.zip: it is a web page, not a PyTabs session .* Is the link right\?/);
    expect(opened.errors[2]).toMatch(/127\.0\.0\.1:\d+ does not let other sites read its files \(it must send Access-Control-Allow-Origin\)/);
    expect(opened.corsBytes).toBe(body.byteLength);
    expect(opened.origin?.url).toBe(opened.url);
    const id = opened.result.sessionId;

    // The student works: Python holds changed values in memory and wrote files.
    const worked = await student.evaluate(async (id) => {
      const api = window.pytabs!;
      await api.renameSession(id, 'My attempt');
      await window.pytabsLib!.sendMessage(api, id, "total = -1\nmine = 'extra'\nopen('data.csv', 'w').write('x\\n100\\n')\nopen('scratch.txt', 'w').write('mine')");
      return api.run(id, 'total, mine');
    }, id);
    expect(worked.result?.['text/plain']).toBe("(-1, 'extra')");

    const reset = await student.evaluate(async (id) => {
      const api = window.pytabs!;
      const lib = window.pytabsLib!;
      await lib.resetToOriginal(api, id);
      const r = await api.run(id, "total, 'mine' in globals(), open('data.csv').read(), double(3)");
      return {
        r,
        files: (await api.listFiles(id)).map((f) => f.path).sort(),
        name: (await api.getSession(id)).name,
        held: await lib.heldState(api, id),
      };
    }, id);
    expect(reset.r.status).toBe('ok');
    expect(reset.r.result?.['text/plain']).toBe("(6, False, 'x\\n1\\n2\\n3\\n', 6)");
    expect(reset.files).toEqual(['data.csv', 'report.txt']);
    // The original's one message, and the run after the reset is not stored as a message.
    expect(await roundMessages(student, id)).toHaveLength(1);
    expect(reset.name).toBe('Hand-in 3');
    expect(reset.held).toBeNull();
  } finally {
    await fresh.close();
    other.close();
  }
});

test('erase all data with a second tab open: no database, no cache, no session, and the other tab lets go', async ({ page, context }) => {
  await openApp(page);
  const setup = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Shared machine');
    await api.run(s.id, 'secret = 42');
    await (await caches.open('pytabs-packages-test')).put('/pyodide/fake.whl', new Response('wheel'));
    await (await caches.open('another-app')).put('/other', new Response('theirs'));
    localStorage.setItem('pytabs-remembered', 'x');
    localStorage.setItem('another-app', 'y');
    return s.id;
  });

  // The second tab runs a session of its own: its page and its worker both hold the database open.
  const second = await context.newPage();
  await openApp(second);
  const otherRun = await second.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Second tab');
    return { id: s.id, status: (await api.run(s.id, 'y = 1')).status };
  });
  expect(otherRun.status).toBe('ok');

  const report = await page.evaluate(async () => {
    let blocked = 0;
    const result = await window.pytabsLib!.eraseAllData(window.pytabs!, { onBlocked: () => blocked++ });
    return {
      ...result,
      blocked,
      databases: (await indexedDB.databases()).map((d) => d.name),
      caches: await caches.keys(),
      local: Object.keys(localStorage),
    };
  });
  expect(report.blocked).toBe(0);
  expect(report.databases).not.toContain('pytabs');
  expect(report.caches).toEqual(['another-app']);
  expect(report.local).toEqual(['another-app']);

  // This tab shows it too, and the second tab was told and let go.
  await expect(page.getByRole('alert')).toContainText('All PyTabs data on this device was erased.');
  await expect(second.getByRole('alert')).toContainText('All PyTabs data on this device was erased.');
  // A run asked for afterwards (a start that had waited on a claim) starts no worker, whose
  // storage would bring the database back empty.
  const late = await second.evaluate(async (id) => {
    const api = window.pytabs!;
    const message = await api.run(id, 'z = 3').then(
      () => 'ran',
      (error: Error) => error.message,
    );
    return { message, databases: (await indexedDB.databases()).map((d) => d.name) };
  }, otherRun.id);
  expect(late.message).toMatch(/closed in this tab/);
  expect(late.databases).not.toContain('pytabs');
  await second.getByRole('button', { name: 'Reload' }).click();
  await openApp(second);

  // Both tabs start as on a first visit: none of the old sessions, settings as shipped.
  await page.reload();
  await openApp(page);
  for (const tab of [page, second]) {
    const after = await tab.evaluate(async () => ({
      sessions: await window.pytabs!.listSessions(),
      settings: window.pytabs!.getSettings(),
      defaults: window.pytabsLib!.DEFAULT_SETTINGS,
    }));
    expect(after.sessions.map((s) => s.id)).not.toContain(setup);
    expect(after.sessions.map((s) => s.name)).not.toContain('Shared machine');
    expect(after.sessions.map((s) => s.name)).not.toContain('Second tab');
    expect(after.sessions.every((s) => s.totalExecutions === 0 && s.variableCount === 0)).toBe(true);
    expect(after.settings).toEqual(after.defaults);
  }
});
