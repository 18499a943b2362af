import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as XLSX from 'xlsx';
import { assignmentFileInPage, ONE_CHECK } from '../e2e/hand-ins';
import { runPython, startMockServer, stdoutOf, text, toolCalls } from '../mock-openai/server';
import { test, expect } from './fixtures';
import { FIRST_RUN, Person } from './person';

// What people do by hand, in Chromium, Firefox ESR and WebKitGTK, on a plain static host and on one with
// the project's headers: controls found by role and name, real Pyodide workers, real IndexedDB.

const SUM_CODE = [
  'import csv',
  'for _ in range(300_000):',
  '    pass',
  "rows = list(csv.DictReader(open('data.csv')))",
  "total = sum(int(r['x']) for r in rows)",
  "print('rows:', len(rows))",
  "print('total:', total)",
].join('\n');

/**
 * Journeys whose paths are the same on either host (no shared memory, service worker or
 * header in them): by default they run on the plain host only (playwright.config.ts).
 */
const ANY_HOST = { tag: '@any-host' };

/** Where Stop interrupts Python in place (SharedArrayBuffer); elsewhere it restarts the session. */
const INTERRUPTS: Record<string, boolean> = { 'chromium-project': true, 'firefox-project': true };

function tab(name: string) {
  return { role: 'tab', name };
}

async function newSession(person: Person, name: string): Promise<void> {
  await person.click({ role: 'button', name: 'New session' });
  await person.find({ role: 'heading', name });
}

test('the first start shows its progress; a Markdown message runs its python blocks in order', async ({ person, host }) => {
  // A slow standard library keeps the start in view long enough to be seen.
  host.delay = (file) => (file === 'pyodide/python_stdlib.zip' ? 2500 : 0);
  await person.open(host.url);
  await person.find({ role: 'progressbar', namePrefix: "Starting this session's Python" });
  await person.send(['Two steps:', '', '```python', 'a = 2', "print('first', a)", '```', '', 'then', '', '```python', "print('second', a * 21)", '```'].join('\n'));
  await person.expectText(person.reply(1), 'second 42', FIRST_RUN);
  await person.expectText(person.reply(1), 'first 2');
  expect(await person.has({ role: 'progressbar' })).toBe(false);
});

test('two sessions with the same data.csv, run at once: each gets its own numbers', async ({ person, host }) => {
  await person.open(host.url);
  await person.choose('Upload files', [{ name: 'data.csv', data: 'x\n1\n2\n3\n' }]);
  await person.find({ role: 'button', name: 'Preview data.csv' });
  await newSession(person, 'Session 2');
  await person.choose('Upload files', [{ name: 'data.csv', data: 'x\n10\n20\n' }]);
  await person.find({ role: 'button', name: 'Preview data.csv' });
  await person.send(SUM_CODE);
  await person.click(tab('Session 1'));
  await person.find({ role: 'heading', name: 'Session 1' });
  await person.send(SUM_CODE);
  await person.expectText(person.reply(1), 'total: 6', FIRST_RUN);
  await person.expectText(person.reply(1), 'rows: 3');
  await person.click(tab('Session 2'));
  await person.expectText(person.reply(1), 'total: 30', FIRST_RUN);
  expect(await person.text(person.reply(1))).toContain('rows: 2');
  await person.expectText({ role: 'row', namePrefix: 'total', within: person.region('Variables') }, '30');
});

test('four sessions started at once each run with their own values', async ({ person, host }) => {
  await person.open(host.url);
  for (const k of [2, 3, 4]) await newSession(person, `Session ${k}`);
  for (const k of [1, 2, 3, 4]) {
    await person.click(tab(`Session ${k}`));
    await person.find({ role: 'heading', name: `Session ${k}` });
    await person.send(`n = ${k}\n'session', n, n * n`);
  }
  for (const k of [1, 2, 3, 4]) {
    await person.click(tab(`Session ${k}`));
    await person.expectText(person.reply(1), `('session', ${k}, ${k * k})`, FIRST_RUN);
  }
});

test('sessions made at once (two through the API, one by New session meanwhile) never share a name', ANY_HOST, async ({ person, host }) => {
  await person.open(host.url);
  await person.find({ role: 'heading', name: 'Session 1' });
  const made = person.page.evaluate(async () => {
    type Api = { createSession(): Promise<{ name: string }> };
    const api = (window as unknown as { pytabs: Api }).pytabs;
    return (await Promise.all([api.createSession(), api.createSession()])).map((s) => s.name);
  });
  await person.click({ role: 'button', name: 'New session' });
  expect(new Set(await made).size).toBe(2);
  const names = await person.page.evaluate(async () => {
    type Api = { listSessions(): Promise<{ name: string }[]> };
    return (await (window as unknown as { pytabs: Api }).pytabs.listSessions()).map((s) => s.name);
  });
  expect(names.sort()).toEqual(['Session 1', 'Session 2', 'Session 3', 'Session 4']);
  for (const name of names) await person.find(tab(name));
});

test('a new session after a pause starts on the Python the spare worker loaded meanwhile, and has only its own names', ANY_HOST, async ({ person, host }) => {
  await person.open(host.url);
  await person.send("mine = 'session 1'");
  await person.expectText(person.reply(1), 'Done in', FIRST_RUN);
  // Once the page is idle, the spare worker is asked to load Python (a start then awaits that load, done or under way).
  await expect.poll(() => person.page.evaluate(() => performance.getEntriesByName('pytabs:spare-boot').length), { timeout: 30_000 }).toBeGreaterThan(0);
  await newSession(person, 'Session 2');
  await person.send("'mine' in globals(), 6 * 7");
  await person.expectText(person.reply(1), '(False, 42)', FIRST_RUN);
  const starts = await person.page.evaluate(() =>
    (performance.getEntriesByName('pytabs:session-started') as PerformanceMark[]).map((m) => (m.detail as { warm: boolean }).warm),
  );
  // Two starts, the second on the spare's Python.
  expect(starts).toHaveLength(2);
  expect(starts[1]).toBe(true);
});

test('a reload brings back variables, imports, definitions and history', async ({ person, host }) => {
  await person.open(host.url);
  await person.send(['import statistics', 'vals = [1, 2, 3, 4]', 'def double(x):', '    return 2 * x', 'm = statistics.mean(vals)', 'm'].join('\n'));
  await person.expectText(person.reply(1), '2.5', FIRST_RUN);
  await person.reload();
  await person.expectText({ role: 'article', name: 'Message 1' }, 'statistics.mean(vals)');
  await person.expectText({ role: 'row', namePrefix: 'm ', within: person.region('Variables') }, '2.5');
  await person.send('double(m), statistics.median(vals)');
  await person.expectText(person.reply(2), '(5.0, 2.5)', FIRST_RUN);
});

test('another page and Back: a page the back/forward cache restores reloads, and the session goes on', async ({ person, host, engineName }) => {
  await person.open(host.url);
  await person.send('kept = 41');
  await person.expectText(person.reply(1), 'Done in', FIRST_RUN);
  // The page notes (in sessionStorage, which outlives a reload) whether the cache restored it.
  await person.page.evaluate(() => {
    (window as { leftAt?: number }).leftAt = 1;
    addEventListener('pageshow', (e) => void ((e as PageTransitionEvent).persisted && sessionStorage.setItem('restored', 'yes')));
  });
  await person.page.goto('about:blank');
  await person.page.back();
  // A page the cache restored keeps its JavaScript (leftAt); one that reloaded, or was loaded anew, has none.
  const shown = () => person.page.evaluate(() => ({ left: (window as { leftAt?: number }).leftAt ?? null, restored: sessionStorage.getItem('restored') }));
  await expect.poll(async () => (await shown()).left, { timeout: 60_000 }).toBeNull();
  // Whether this engine used its cache this time (WebKitGTK did behind the project's headers, not always on the plain host).
  test.info().annotations.push({ type: 'back/forward cache', description: `${engineName}: ${(await shown()).restored ? 'restored, then reloaded' : 'loaded anew'}` });
  await person.untilReady();
  await person.send('kept + 1');
  await person.expectText(person.reply(2), '42', FIRST_RUN);
});

/** Two workbooks of the spreadsheet tests' corpus, made by Debian's openpyxl (tests/unit/referee). */
function refereeCorpus(): { types: Uint8Array; strings: Uint8Array } {
  const dir = mkdtempSync(path.join(tmpdir(), 'pytabs-xlsx-'));
  try {
    const run = spawnSync('/usr/bin/python3', [path.join(import.meta.dirname, '../unit/referee/xlsx_corpus.py'), 'make', dir], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`the referee failed: ${run.stderr}`);
    return { types: readFileSync(path.join(dir, 'types1900.xlsx')), strings: readFileSync(path.join(dir, 'strings.xlsx')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('.xlsx read and written: a workbook in, a workbook out that SheetJS reads back', ANY_HOST, async ({ person, host }) => {
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['item', 'n'], ['pens', 3], ['books', 4]]), 'Data');
  const data = new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
  const corpus = refereeCorpus();
  await person.open(host.url);
  await person.choose('Upload files', [
    { name: 'data.xlsx', data },
    { name: 'types.xlsx', data: corpus.types },
    { name: 'strings.xlsx', data: corpus.strings },
  ]);
  await person.find({ role: 'button', name: 'Preview data.xlsx' });
  await person.find({ role: 'button', name: 'Preview strings.xlsx' });
  await person.send(
    [
      "rows = read_excel('data.xlsx', 'Data')",
      "total = sum(r['n'] for r in rows)",
      "write_excel('out.xlsx', {'Totals': [{'items': len(rows), 'total': total}]})",
      "print('total', total)",
      // A time of day, a duration, an error and rich text after a plain piece, as Excel means them.
      "t = {r['kind']: r['value'] for r in read_excel('types.xlsx', 0)}",
      "s = {r['kind']: r['value'] for r in read_excel('strings.xlsx', 0)}",
      "print(repr(t['time ms']), repr(t['duration hh']), repr(t['error na']), s['plain then rich'])",
    ].join('\n'),
  );
  await person.expectText(person.reply(1), 'total 7', FIRST_RUN);
  await person.expectText(
    person.reply(1),
    "datetime.time(8, 30, 0, 250000) datetime.timedelta(days=10, seconds=54610) ExcelError('#N/A') tvalrval1rval2",
  );
  const out = await person.download(() => person.click({ role: 'button', name: 'Download out.xlsx' }));
  expect(out.name).toBe('out.xlsx');
  const written = XLSX.read(out.data);
  expect(XLSX.utils.sheet_to_json(written.Sheets.Totals)).toEqual([{ items: 2, total: 7 }]);
});

test('a large .xlsx read shows its progress and stops on Stop; the session keeps what it had', ANY_HOST, async ({ person, host }) => {
  test.setTimeout(240_000);
  await person.open(host.url);
  // About 60 MB of sheet XML, written by the session itself: seconds of parsing in any engine.
  await person.send("kept = 42\nwrite_excel('big.xlsx', [[i, f'name {i}', i / 3, f'city {i % 97}'] * 2 for i in range(160_000)])\nprint('written')");
  await person.expectText(person.reply(1), 'written', FIRST_RUN);
  await person.send("rows = read_excel('big.xlsx', 0)");
  await person.expectText(person.reply(2), 'Reading big.xlsx: parsing');
  await person.click({ role: 'button', name: 'Stop' });
  await person.expectText(person.reply(2), 'Stopped after', 60_000);
  await person.send("'rows' in globals(), kept");
  await person.expectText(person.reply(3), '(False, 42)', FIRST_RUN);
});

test('Stop on an endless loop ends the run and keeps the session', async ({ person, host, engineName, hostHeaders }) => {
  await person.open(host.url);
  await person.send('x = 5');
  await person.expectText(person.reply(1), 'Done in', FIRST_RUN);
  await person.send('while True:\n    pass');
  await person.find(person.reply(2));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await person.click({ role: 'button', name: 'Stop' });
  await person.expectText(person.reply(2), 'Stopped after');
  const stopped = (await person.text(person.reply(2)))!;
  // Chromium and Firefox behind COOP/COEP have SharedArrayBuffer, so Python is interrupted in place; elsewhere
  // the session restarts from its last commit (docs/engines.md, "What works where").
  if (INTERRUPTS[`${engineName}-${hostHeaders}`]) expect(stopped).not.toContain('restarted');
  else expect(stopped).toContain('the session restarted from its last saved state');
  expect(stopped).toContain('KeyboardInterrupt');
  await person.send('x + 1');
  await person.expectText(person.reply(3), '6', FIRST_RUN);
  // Settings → This browser names the path that was taken.
  await person.click({ role: 'button', name: 'Settings' });
  const paths = { role: 'region', name: 'This browser' };
  await person.expectText(paths, INTERRUPTS[`${engineName}-${hostHeaders}`] ? 'Stop: interrupts' : 'Stop: restarts from the last saved state');
});

test('the assistant streams, runs its tool call in the session, answers; Stop ends an answer mid-stream', ANY_HOST, async ({ person, host }) => {
  const server = await startMockServer({
    scripts: {
      sum: (_r, ctx) => (ctx.turn === 0 ? toolCalls(runPython("print('sum is', sum(range(10)))", 'call_sum')) : text(`The code printed: ${stdoutOf(ctx.outputs[0])}.`)),
    },
  });
  try {
    await person.open(host.url);
    await person.click({ role: 'button', name: 'Settings' });
    const dialog = { role: 'dialog', name: 'Settings' };
    await person.fill({ role: 'textbox', name: 'Base URL', within: dialog }, server.baseUrl);
    await person.fill({ role: 'textbox', name: 'Model', within: dialog }, 'sum');
    await person.click({ role: 'button', name: 'Save settings', within: dialog });
    await person.expectText({ role: 'status' }, 'Settings saved.');
    await person.expectGone(dialog);
    await person.click({ role: 'radio', name: 'Ask' });
    await person.send('what is the sum of 0 to 9?');
    await person.expectText(person.reply(1), 'The code printed: sum is 45.', FIRST_RUN);
    await person.expectText({ role: 'group', name: 'Code 1', within: person.reply(1) }, 'sum(range(10))');

    // A slow stream, stopped while it comes in: what was shown is kept, the session goes on.
    await person.click({ role: 'button', name: 'Settings' });
    await person.fill({ role: 'textbox', name: 'Model', within: dialog }, 'slow-text');
    await person.click({ role: 'button', name: 'Save settings', within: dialog });
    await person.expectGone(dialog);
    await person.send('think slowly');
    await person.expectText(person.reply(2), 'Thinking');
    await person.click({ role: 'button', name: 'Stop' });
    await person.expectText(person.reply(2), 'Stopped. What the assistant had shown is kept.');
    expect(await person.text(person.reply(2))).not.toContain('for a long time');
    await person.click({ role: 'radio', name: 'Code' });
    await person.send('print(6 * 7)');
    await person.expectText(person.reply(3), '42', FIRST_RUN);
  } finally {
    await server.close();
  }
});

test('Export session, then Import session in a fresh profile: files and history at once, variables once allowed', ANY_HOST, async ({ person, host, newProfile }) => {
  await person.open(host.url);
  await person.choose('Upload files', [{ name: 'data.csv', data: 'x\n1\n2\n3\n' }]);
  await person.find({ role: 'button', name: 'Preview data.csv' });
  await person.send(SUM_CODE);
  await person.expectText(person.reply(1), 'total: 6', FIRST_RUN);
  const exported = await person.download(() => person.click({ role: 'button', name: 'Export session' }));
  expect(exported.name).toBe('Session 1.pytabs.zip');

  const other = new Person(await (await newProfile()).newPage());
  try {
    await other.open(host.url);
    await other.choose('Import session', [{ name: 'hand-in.pytabs.zip', data: exported.data }]);
    await other.expectText(other.region('Files'), 'data.csv');
    await other.expectText(other.reply(1), 'total: 6');
    const held = other.region('Saved variables from a file');
    await other.click({ role: 'button', name: 'Load saved variables', within: held });
    // Loading restarts the session's Python with the held state: a start.
    await other.expectGone(held, FIRST_RUN);
    await other.send('total * 7');
    await other.expectText(other.reply(2), '42', FIRST_RUN);
  } catch (error) {
    console.log(`--- the importing profile's page at the failure:\n${await other.page.evaluate(() => document.body.innerText).catch(String)}\n---`);
    throw error;
  } finally {
    await other.dispose();
  }
});

test('Share makes a link; a fresh profile opens it read-only, runs nothing until Open as a new session and Run all, and asks when it is opened again', ANY_HOST, async ({ person, host, newProfile }) => {
  await person.open(host.url);
  await person.choose('Upload files', [{ name: 'data.csv', data: 'x\n1\n2\n3\n' }]);
  await person.find({ role: 'button', name: 'Preview data.csv' });
  await person.send(SUM_CODE);
  await person.expectText(person.reply(1), 'total: 6', FIRST_RUN);
  await person.click({ role: 'button', name: 'Share' });
  const shareDialog = { role: 'dialog', name: 'Share a link' };
  await person.find({ role: 'textbox', name: 'Link to "Session 1"', within: shareDialog });
  await person.expectText(shareDialog, '1 cell(s) and 1 file(s): data.csv (8 B)');
  const link = await person.page.evaluate(() => (document.getElementById('share-link-text') as HTMLTextAreaElement).value);
  expect(link.startsWith(`${host.url}#/share?v=1&z=`)).toBe(true);

  const other = new Person(await (await newProfile()).newPage());
  try {
    await other.open(link);
    const dialog = { role: 'dialog', name: 'Open a shared session?' };
    await other.expectText(dialog, 'The link carries "Session 1": 1 cell(s) and 1 file(s). Nothing has run');
    await other.expectText({ role: 'region', name: 'Code in the link', within: dialog }, "print('total:', total)");
    const sessions = () => other.page.evaluate(() => (window as unknown as { pytabs: { listSessions(): Promise<unknown[]> } }).pytabs.listSessions().then((l) => l.length));
    expect(await sessions()).toBe(0);
    await other.click({ role: 'button', name: 'Open as a new session', within: dialog });
    await other.expectText(other.region('Files'), 'data.csv');
    await other.expectText(other.reply(1), 'not run here');
    await other.click({ role: 'button', name: 'Run all', within: other.region('Cells from the link') });
    await other.expectText(other.reply(2), 'total: 6', FIRST_RUN);

    await other.open(link);
    await other.expectText(dialog, 'This link already made the session "Session 1" in this browser.');
    await other.click({ role: 'button', name: 'Go to the session it made', within: dialog });
    await other.expectGone(dialog);
    await other.expectText(other.reply(2), 'total: 6');
    expect(await sessions()).toBe(1);
  } catch (error) {
    console.log(`--- the opening profile's page at the failure:\n${await other.page.evaluate(() => document.body.innerText).catch(String)}\n---`);
    throw error;
  } finally {
    await other.dispose();
  }
});

test('offline after the first visit: with the host gone the app opens, runs a new session and reopens the old one', async ({ person, host }) => {
  await person.open(host.url);
  await person.send("kept = 'from the first visit'");
  await person.expectText(person.reply(1), 'Done in', FIRST_RUN);
  await person.untilKeptOffline();
  host.refusing = true;
  await person.reload();
  await person.send('kept.upper()');
  await person.expectText(person.reply(2), "'FROM THE FIRST VISIT'", FIRST_RUN);
  await newSession(person, 'Session 2');
  await person.send('2 ** 10');
  await person.expectText(person.reply(1), '1024', FIRST_RUN);
  expect(host.refusedBeyondStartChecks).toEqual([]);
  await person.click({ role: 'button', name: 'Settings' });
  await person.expectText({ role: 'region', name: 'This browser' }, 'Offline: yes');
});

test('Erase all data on this device leaves no database behind, and a reload is a first visit', async ({ person, host }) => {
  await person.open(host.url);
  await person.send("secret = 'gone after the erase'");
  await person.expectText(person.reply(1), 'Done in', FIRST_RUN);
  await newSession(person, 'Session 2');
  await person.click({ role: 'button', name: 'Settings' });
  await person.click({ role: 'button', name: 'Erase all data on this device', within: { role: 'dialog', name: 'Settings' } });
  await person.click({ role: 'button', name: 'Erase everything', within: { role: 'dialog', name: 'Erase all data on this device?' } });
  await person.expectText({ role: 'alert' }, 'All PyTabs data on this device was erased.');
  // The tab that erases says so once the delete is done, so nothing may be left by then. A
  // worker still starting opens the database without creating it, an upgrade it aborts; WebKit
  // then keeps the name at version 0, with no stores and nothing in them (Firefox and Chromium
  // keep nothing). Such an entry holds no data, and the next visit upgrades it as a new one.
  const databases = await person.page.evaluate(async () =>
    (await indexedDB.databases()).filter((d) => d.name?.startsWith('pytabs') && d.version !== 0).map((d) => `${d.name}:${d.version}`),
  );
  expect(databases).toEqual([]);
  await person.reloadedBy(() => person.click({ role: 'button', name: 'Reload' }));
  await person.find(tab('Session 1'));
  expect(await person.has(tab('Session 2'))).toBe(false);
  await person.send("'secret' in globals()");
  await person.expectText(person.reply(1), 'False', FIRST_RUN);
});

test('a crashed worker (os.abort()) restarts its session, which then runs, stops, checks and hands in', ANY_HOST, async ({ person, host }) => {
  await person.open(host.url);
  // A student's session of a one-check assignment, opened from its file as a student would.
  const file = await person.page.evaluate(assignmentFileInPage, ONE_CHECK);
  await person.choose('Import session', [{ name: 'Crash course.pytabs.zip', data: new Uint8Array(file) }]);
  await person.find({ role: 'heading', name: 'Crash course' });
  const crashTab = tab('Crash course');
  const stop = { role: 'button', name: 'Stop' };

  await person.send('import os\nos.abort()');
  await person.expectText(person.reply(1), 'SessionCrashed', FIRST_RUN);
  // The restarted worker says it is ready, idle, with nothing to stop.
  await person.expectText(crashTab, 'Ready', FIRST_RUN);
  await person.expectDisabled(stop);

  await person.send('answer = 6 * 7\nanswer');
  await person.expectText(person.reply(2), '42', FIRST_RUN);
  await person.expectText(crashTab, 'Ready');
  await person.expectDisabled(stop);

  await person.send('while True:\n    pass');
  await person.expectText(crashTab, 'Running');
  await person.click(stop);
  await person.expectText(person.reply(3), 'Stopped after', FIRST_RUN);
  await person.expectText(crashTab, 'Ready', FIRST_RUN);

  const panel = person.region('Assignment: Crash course');
  await person.click({ role: 'button', name: 'Check my work', within: panel });
  await person.expectText({ role: 'list', name: 'Check results', within: panel }, 'Passed check_answer (1 of 1 points)', FIRST_RUN);
  await person.click({ role: 'button', name: 'Hand in', within: panel });
  const dialog = { role: 'dialog', name: 'Hand in' };
  await person.fill({ role: 'textbox', name: 'Your name', within: dialog }, 'Ada');
  const saved = await person.download(() => person.click({ role: 'button', name: 'Save hand-in', within: dialog }));
  expect(saved.name).toBe('Crash course-Ada.pytabs.zip');
  await person.expectText(crashTab, 'Ready');
});
