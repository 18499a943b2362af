import { test, expect } from '@playwright/test';
import { dumpDatabase, firstSessionId, openApp } from './app';

// The session engine through its TypeScript API (window.pytabs), in real Chromium
// with real IndexedDB and real Pyodide workers.

test('seed scenario: same code, two sessions, each sees only its own data.csv', async ({ page }) => {
  await openApp(page);
  const out = await page.evaluate(async () => {
    const api = window.pytabs!;
    const a = await api.createSession('A');
    const b = await api.createSession('B');
    const enc = new TextEncoder();
    await api.writeFile(a.id, 'data.csv', enc.encode('x\n1\n2\n3\n'));
    await api.writeFile(b.id, 'data.csv', enc.encode('x\n10\n20\n'));
    const code = [
      'import csv, os',
      "rows = list(csv.DictReader(open('data.csv')))",
      "total = sum(int(r['x']) for r in rows)",
      'only_here = total',
      'print(os.getcwd(), len(rows))',
      'total',
    ].join('\n');
    const streamed: Record<string, string> = { A: '', B: '' };
    const [ra, rb] = await Promise.all([
      api.run(a.id, code, (e) => e.type === 'stdout' && (streamed.A += e.text)),
      api.run(b.id, code, (e) => e.type === 'stdout' && (streamed.B += e.text)),
    ]);
    const crossA = await api.run(b.id, "del only_here\nonly_here");
    const variablesA = await api.listVariables(a.id);
    return { ra, rb, streamed, crossA, variablesA };
  });
  expect(out.ra.status).toBe('ok');
  expect(out.ra.result?.['text/plain']).toBe('6');
  expect(out.rb.result?.['text/plain']).toBe('30');
  expect(out.streamed.A).toContain(' 3');
  expect(out.streamed.B).toContain(' 2');
  // Deleting B's variable leaves a NameError in B, and A's own value is untouched.
  expect(out.crossA.status).toBe('error');
  expect(out.crossA.error?.ename).toBe('NameError');
  expect(out.variablesA.find((v) => v.name === 'only_here')?.preview).toBe('6');

  const isolated = await page.evaluate(async () => {
    const api = window.pytabs!;
    const all = await api.listSessions();
    const [a, b] = ['A', 'B'].map((name) => all.find((s) => s.name === name)!);
    await api.run(a.id, "secret_a = 'only in A'\nimport json");
    const r = await api.run(b.id, 'secret_a');
    const m = await api.run(b.id, 'json');
    return { r, m };
  });
  expect(isolated.r.error?.ename).toBe('NameError');
  expect(isolated.r.error?.traceback).toContain("name 'secret_a' is not defined");
  expect(isolated.m.error?.ename).toBe('NameError');
});

test('variables, functions, classes and imports survive a reload', async ({ page }) => {
  await openApp(page);
  const id = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Persist');
    const r = await api.run(
      s.id,
      [
        'import math',
        'from collections import Counter',
        'numbers = [1, 2, 3]',
        "info = {'name': 'Ada', 'scores': (9.5, 7)}",
        'def double(v):',
        '    return v * 2',
        'class Point:',
        '    def __init__(self, x, y):',
        '        self.x, self.y = x, y',
        'p = Point(3, 4)',
        "c = Counter('banana')",
      ].join('\n'),
    );
    if (r.status !== 'ok') throw new Error(JSON.stringify(r.error));
    await api.run(s.id, 'numbers.append(4)');
    return s.id;
  });

  await page.reload();
  await openApp(page);
  const after = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    const r = await api.run(id, "(numbers, info, double(21), math.sqrt(p.x**2 + p.y**2), type(p).__name__, c['a'])");
    const vars = await api.listVariables(id);
    const sessions = await api.listSessions();
    return { r, vars, sessions };
  }, id);
  expect(after.r.status).toBe('ok');
  expect(after.r.result?.['text/plain']).toBe("([1, 2, 3, 4], {'name': 'Ada', 'scores': (9.5, 7)}, 42, 5.0, 'Point', 3)");
  const byName = Object.fromEntries(after.vars.map((v) => [v.name, v]));
  expect(byName.numbers.kind).toBe('pickle');
  expect(byName.double.kind).toBe('replay');
  expect(byName.math.kind).toBe('replay');
  expect(byName.p.persisted).toBe(true);
  const persisted = after.sessions.find((s) => s.id === id)!;
  expect(persisted.totalExecutions).toBe(3);
  expect(persisted.variableCount).toBe(Object.keys(byName).length);
});

test('runs that change nothing are counted: read at once, in another tab, and after a reload', async ({ page, context }) => {
  await openApp(page);
  const first = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Counted');
    await api.run(s.id, 'kept = 1');
    for (let i = 0; i < 4; i++) await api.run(s.id, 'kept + 1');
    // The page writes quiet runs' counts after them; a read right after a run still sees them.
    return { id: s.id, now: (await api.getSession(s.id)).totalExecutions, listed: (await api.listSessions()).find((x) => x.id === s.id)!.totalExecutions };
  });
  expect([first.now, first.listed]).toEqual([5, 5]);

  const other = await context.newPage();
  await openApp(other, `/#/s/${first.id}`);
  const countIn = (p: typeof page) => p.evaluate(async (id) => (await window.pytabs!.getSession(id)).totalExecutions, first.id);
  expect(await countIn(other)).toBe(5);
  await page.evaluate(async (id) => {
    for (let i = 0; i < 2; i++) await window.pytabs!.run(id, 'pass');
  }, first.id);
  // The other tab is told, and reads the counts the first one wrote.
  await expect.poll(() => other.evaluate(() => document.body.textContent?.includes('7 executions') ?? false)).toBe(true);
  await other.close();

  await page.reload();
  await openApp(page);
  expect(await countIn(page)).toBe(7);
});

test('clear forgets variables but keeps files; delete leaves nothing in IndexedDB', async ({ page }) => {
  await openApp(page);
  const ids = await page.evaluate(async () => {
    const api = window.pytabs!;
    const keep = await api.createSession('Keep');
    const gone = await api.createSession('Gone');
    for (const s of [keep, gone]) {
      await api.writeFile(s.id, 'notes.txt', new TextEncoder().encode('hello'));
      await api.run(s.id, "x = 41\nopen('out.txt', 'w').write('written by python')");
    }
    await api.setSessionVars(gone.id, { token: 'abc' });
    return { keep: keep.id, gone: gone.id };
  });

  const cleared = await page.evaluate(async ({ keep }) => {
    const api = window.pytabs!;
    await api.clearSession(keep);
    const r = await api.run(keep, 'x');
    const files = (await api.listFiles(keep)).map((f) => f.path).sort();
    const vars = await api.listVariables(keep);
    return { r, files, vars };
  }, ids);
  expect(cleared.r.error?.ename).toBe('NameError');
  expect(cleared.files).toEqual(['notes.txt', 'out.txt']);
  expect(cleared.vars).toEqual([]);

  const before = await dumpDatabase(page);
  expect(before.files.some((k) => k.includes(ids.gone))).toBe(true);
  expect(before.pickles.some((k) => k.includes(ids.gone))).toBe(true);
  await page.evaluate(({ gone }) => window.pytabs!.deleteSession(gone), ids);
  const after = await dumpDatabase(page);
  for (const [store, keys] of Object.entries(after)) {
    expect(keys.filter((k) => k.includes(ids.gone)), `store ${store}`).toEqual([]);
  }
  expect(after.files.some((k) => k.includes(ids.keep))).toBe(true);
  const list = (await page.evaluate(() => window.pytabs!.listSessions())).map((s) => s.id);
  expect(list).toContain(ids.keep);
  expect(list).not.toContain(ids.gone);
});

test('a path traversal name and an over-limit variable get clear errors and lose nothing', async ({ page }) => {
  await openApp(page);
  const out = await page.evaluate(async () => {
    const api = window.pytabs!;
    await api.updateSettings({ variableLimitBytes: 1024 * 1024 });
    const s = await api.createSession('Limits');
    await api.writeFile(s.id, 'safe.txt', new TextEncoder().encode('safe'));
    await api.run(s.id, "small = 'kept'");
    const errors: string[] = [];
    for (const bad of ['../escape.txt', '/etc/passwd', 'a/../../b', 'x\u0000y']) {
      try {
        await api.writeFile(s.id, bad, new TextEncoder().encode('nope'));
        errors.push('accepted ' + bad);
      } catch (e) {
        errors.push((e as Error).message);
      }
    }
    const big = await api.run(s.id, "big = b'x' * (2 * 1024 * 1024)\nsmall = small + '!'");
    const vars = await api.listVariables(s.id);
    const files = (await api.listFiles(s.id)).map((f) => f.path);
    return { id: s.id, errors, big, vars, files };
  });
  expect(out.errors[0]).toContain('would leave the workspace');
  expect(out.errors[1]).toContain('absolute path');
  expect(out.errors[2]).toContain('would leave the workspace');
  expect(out.errors[3]).toContain('control characters');
  expect(out.big.status).toBe('ok');
  expect(out.big.notPersisted).toEqual([{ name: 'big', reason: expect.stringContaining('per-variable limit') }]);
  const big = out.vars.find((v) => v.name === 'big')!;
  expect(big.persisted).toBe(false);
  expect(out.files).toEqual(['safe.txt']);

  await page.reload();
  await openApp(page);
  const after = await page.evaluate((id) => window.pytabs!.run(id, "(small, 'big' in globals())"), out.id);
  expect(after.result?.['text/plain']).toBe("('kept!', False)");
});

test('session variables reach Python, and a stateless run keeps nothing', async ({ page }) => {
  await openApp(page);
  const out = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Vars');
    await api.setSessionVars(s.id, { region: 'north', limit: '5' });
    const r = await api.run(s.id, "(get_session_var('region'), get_session_var('missing', 'fallback'))");
    const before = (await api.listSessions()).length;
    const stateless = await api.runStateless("import os\nopen('tmp.txt','w').write('x')\nz = 1\nos.listdir('.')");
    const sessions = await api.listSessions();
    return { r, stateless, sessions, before };
  });
  expect(out.r.result?.['text/plain']).toBe("('north', 'fallback')");
  expect(out.stateless.result?.['text/plain']).toBe("['tmp.txt']");
  // The stateless run added no session and stored nothing (no session here has files or variables).
  expect(out.sessions).toHaveLength(out.before);
  const db = await dumpDatabase(page);
  expect(db.sessions).toHaveLength(out.sessions.length);
  expect(db.files).toEqual([]);
  expect(db.variables).toEqual([]);
});

test('errors show the user traceback, stdout streams, and a stop keeps the session usable', async ({ page }) => {
  await openApp(page);
  const out = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Errors');
    await api.run(s.id, 'kept = 7');
    const err = await api.run(s.id, 'def f(n):\n    return 1 / n\n\nf(0)');
    const events: string[] = [];
    const streamed = await api.run(s.id, 'import asyncio\nfor i in range(3):\n    print(i)\n    await asyncio.sleep(0.01)', (e) => {
      if (e.type === 'stdout') events.push(e.text);
    });
    const looping = api.run(s.id, 'in_memory = kept * 2\nwhile True:\n    pass');
    await new Promise((r) => setTimeout(r, 500));
    const how = await api.stop(s.id);
    const stopped = await looping;
    const after = await api.run(s.id, '(kept + 1, in_memory)');
    return { err, events, streamed, how, stopped, after, isolated: crossOriginIsolated };
  });
  expect(out.err.error?.ename).toBe('ZeroDivisionError');
  expect(out.err.error?.traceback).toContain('return 1 / n');
  expect(out.err.error?.traceback).not.toContain('pytabs');
  expect(out.events.join('')).toBe('0\n1\n2\n');
  // The app is served cross-origin isolated, so a stop is a KeyboardInterrupt and the interpreter lives on.
  expect(out.isolated).toBe(true);
  expect(out.how).toBe('interrupted');
  expect(out.stopped.error?.ename).toBe('KeyboardInterrupt');
  expect(out.after.result?.['text/plain']).toBe('(8, 14)');
});

test('a stop that Python took gets a second grace to end; a run that swallows every interrupt is restarted', async ({ page }) => {
  await openApp(page);
  const out = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Slow to stop');
    await api.run(s.id, 'kept = 7');
    // Takes the interrupt at once, then works 4.5 s (past the 3 s grace) before the run ends.
    const tidy = ['import time', 'try:', '    while True:', '        pass', 'except KeyboardInterrupt:', '    t = time.time()', '    while time.time() - t < 4.5:', '        pass', '    tidied = kept * 3'].join('\n');
    const slow = api.run(s.id, tidy);
    await new Promise((r) => setTimeout(r, 500));
    const first = { how: await api.stop(s.id), result: await slow };
    const after = await api.run(s.id, 'tidied');
    // Catches every interrupt: only a restart ends it.
    const stubborn = api.run(s.id, 'while True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass');
    await new Promise((r) => setTimeout(r, 500));
    const second = { how: await api.stop(s.id), result: await stubborn };
    const kept = await api.run(s.id, '(kept, tidied)');
    const stops = performance.getEntriesByName('pytabs:stop').map((m) => (m as PerformanceMark).detail as { settled: boolean; taken: boolean });
    return { first, after, second, kept, stops };
  });
  // The first run ended on its own after the interrupt, and committed what its handler bound.
  expect(out.first.how).toBe('interrupted');
  expect(out.first.result.status).toBe('ok');
  expect(out.after.result?.['text/plain']).toBe('21');
  // The second never ended: after two graces the session restarted from its last commit.
  expect(out.second.how).toBe('restarted');
  expect(out.second.result.error?.evalue).toContain('the session restarted from its last saved state');
  expect(out.kept.result?.['text/plain']).toBe('(7, 21)');
  expect(out.stops).toEqual([
    expect.objectContaining({ settled: true, taken: true }),
    expect.objectContaining({ settled: false, taken: true }),
  ]);
});

test('a start reports what it fetches and restores, step by step, and nothing once it is done', async ({ page }) => {
  await openApp(page);
  const ids = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Progress');
    const r = await api.run(s.id, 'import json\nkept = [1, 2]');
    if (r.status !== 'ok') throw new Error(JSON.stringify(r.error));
    const other = (await api.listSessions()).find((x) => x.id !== s.id)!;
    return { id: s.id, other: other.id };
  });
  // The page keeps the start snapshot in idle time after its first start; a reload before that
  // is a first visit again, whose start may boot plainly (the wasm came from a cache, which
  // says nothing of the link).
  await expect.poll(() => page.evaluate(async () => (await (await caches.open('pytabs-start-snapshot')).keys()).length)).toBe(1);
  // The app opens the other session after the reload, so this one starts only when asked.
  await page.reload();
  await openApp(page, `/#/s/${ids.other}`);
  const seen = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    const steps: string[] = [];
    let determinate = false;
    const stop = api.subscribeProgress((sessionId, step) => {
      if (sessionId !== id || !step) return;
      steps.push(step.text);
      if (step.total && step.loaded !== undefined && step.loaded <= step.total) determinate = true;
    });
    const report = await api.startSession(id);
    stop();
    return { steps, determinate, after: api.startProgress(id), wasm: report.wasm, snapshot: report.snapshot };
  }, ids.id);
  // The worker instantiated the wasm the page compiled when it opened, and restored the snapshot.
  expect([seen.wasm, seen.snapshot]).toEqual(['page', 'used']);
  // Pyodide's own downloads are named as they come, with their sizes.
  expect(seen.steps.some((t) => /^Fetch(ing|ed) python_stdlib\.zip: [\d.]+ [KM]B/.test(t))).toBe(true);
  expect(seen.determinate).toBe(true);
  expect(seen.steps).toContain("Reading this session's files and variables from storage");
  expect(seen.steps).toContain('Restoring 1 variable and 1 import or definition');
  const restoring = seen.steps.indexOf('Restoring 1 variable and 1 import or definition');
  expect(restoring).toBe(seen.steps.length - 1);
  expect(seen.after).toBeNull();
});

test('a session starts on the spare worker, which loaded Python while the page was idle; a new spare waits for the next', async ({ page }) => {
  await openApp(page);
  // The app opens its first session; once it has started, a spare is made.
  const first = await firstSessionId(page);
  await page.evaluate((id) => window.pytabs!.startSession(id), first);
  /** A worker that loaded Python as the spare, before any session was given to it. */
  const warmed = (w: import('@playwright/test').Worker) => w.evaluate(() => performance.getEntriesByName('pytabs:warm').length > 0).catch(() => false);
  const spares = async () => {
    const flags = await Promise.all(page.workers().map(async (w) => ({ w, warm: await warmed(w) })));
    return flags.filter((f) => f.warm).map((f) => f.w);
  };
  await expect.poll(async () => (await spares()).length, { timeout: 30_000 }).toBe(1);
  const [spare] = await spares();
  // It fetched Pyodide's module script and loaded Python's standard library, which a start would otherwise do.
  const fetched = await spare!.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()));
  expect(fetched).toEqual(expect.arrayContaining(['pyodide.asm.mjs.gz', 'python_stdlib.zip']));
  // From its own copy of the start snapshot: the page sends the start no other.
  expect(await spare!.evaluate(() => performance.getEntriesByName('pytabs:snapshot-prepared').length)).toBe(1);

  const started = (id: string) =>
    page.evaluate(async (id) => {
      const marks = performance.getEntriesByName('pytabs:session-started') as PerformanceMark[];
      return marks.map((m) => m.detail as { sessionId: string; snapshot?: string; warm: boolean }).find((d) => d.sessionId === id);
    }, id);
  const second = await page.evaluate(() => window.pytabs!.createSession('On the spare'));
  // The run marks the worker it ran in, so the test can tell which worker took the session.
  const answer = await page.evaluate(
    (id) => window.pytabs!.run(id, "import js\njs.globalThis.pytabsServes = 'second'\nwho = 'second'\n(who, 'x' in globals())"),
    second.id,
  );
  expect(answer.status).toBe('ok');
  expect(await started(second.id)).toMatchObject({ snapshot: 'used', warm: true });
  expect(await spare!.evaluate(() => (globalThis as { pytabsServes?: string }).pytabsServes)).toBe('second');

  // Another spare takes its place, and loads Python in its turn; a session on it has its own names and its own random seed.
  await expect.poll(async () => (await spares()).filter((w) => w !== spare).length, { timeout: 30_000 }).toBe(1);
  const [next] = (await spares()).filter((w) => w !== spare);
  const third = await page.evaluate(() => window.pytabs!.createSession('On the next spare'));
  const other = await page.evaluate((id) => window.pytabs!.run(id, "'who' in globals()"), third.id);
  expect(await started(third.id)).toMatchObject({ warm: true });
  // Made once the page held Pyodide's files (core-files.ts): it loaded Python and started its session without fetching any of them.
  const fetchedNext = await next!.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()));
  expect(fetchedNext.filter((name) => /^(pyodide\.asm\.mjs(\.gz)?|python_stdlib\.zip|pyodide-lock\.json)$/.test(name ?? ''))).toEqual([]);
  expect(answer.result?.['text/plain']).toBe("('second', False)");
  expect(other.result?.['text/plain']).toBe('False');
  // Python loaded ahead is reseeded for its session: two sessions do not draw the same numbers.
  const draws = await page.evaluate(
    (ids) => Promise.all(ids.map(async (id) => (await window.pytabs!.run(id, 'import random\nrandom.random()')).result?.['text/plain'])),
    [second.id, third.id],
  );
  expect(draws[0]).toMatch(/^0\.\d+$/);
  expect(draws[1]).toMatch(/^0\.\d+$/);
  expect(draws[0]).not.toBe(draws[1]);
});

test('on a slow machine (CPU 4x slower), starts that take the spare while it loads Python each hold their own session, also after a reload', async ({ page }) => {
  test.setTimeout(240_000);
  await openApp(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const first = await firstSessionId(page);
  await page.evaluate((id) => window.pytabs!.startSession(id), first);
  // The page has asked the spare to load Python; two sessions start before it is done: one takes it mid-load, one a worker of its own.
  await page.waitForFunction(() => performance.getEntriesByName('pytabs:spare-boot').length > 0, null, { timeout: 60_000 });
  const out = await page.evaluate(async () => {
    const api = window.pytabs!;
    const [a, b] = await Promise.all([api.createSession('A'), api.createSession('B')]);
    const code = (name: string) => `import random\nmine = '${name}'\nseen = 'other' in globals()\nother = '${name}'\n(mine, seen, random.random())`;
    const runs = await Promise.all([api.run(a.id, code('A')), api.run(b.id, code('B'))]);
    const marks = (performance.getEntriesByName('pytabs:session-started') as PerformanceMark[]).map((m) => m.detail as { sessionId: string; warm: boolean });
    return { ids: [a.id, b.id], texts: runs.map((r) => r.result?.['text/plain'] ?? `${r.status} ${r.error?.evalue}`), warm: [a.id, b.id].map((id) => marks.find((m) => m.sessionId === id)?.warm) };
  });
  // One of the two started on the spare's Python as it loaded, the other loaded its own.
  expect(out.warm.sort()).toEqual([false, true]);
  const [textA, textB] = out.texts;
  expect(textA).toMatch(/^\('A', False, 0\.\d+\)$/);
  expect(textB).toMatch(/^\('B', False, 0\.\d+\)$/);
  expect(textA!.split(', ')[2]).not.toBe(textB!.split(', ')[2]);

  await openApp(page, page.url());
  const back = await page.evaluate(
    (ids) => Promise.all(ids.map(async (id) => (await window.pytabs!.run(id, '(mine, other)')).result?.['text/plain'])),
    out.ids,
  );
  expect(back).toEqual(["('A', 'A')", "('B', 'B')"]);
});

test('a spare loaded for another package index is not used: the start loads Python for its own', async ({ page }) => {
  await openApp(page);
  const first = await firstSessionId(page);
  await page.evaluate((id) => window.pytabs!.startSession(id), first);
  const warm = () =>
    Promise.all(page.workers().map((w) => w.evaluate(() => performance.getEntriesByName('pytabs:warm').length > 0).catch(() => false)));
  await expect.poll(async () => (await warm()).filter(Boolean).length, { timeout: 30_000 }).toBe(1);
  // The index changes after the spare loaded Python for the old one.
  const index = new URL('/no-index-here/', page.url()).href;
  const report = await page.evaluate(async (index) => {
    const api = window.pytabs!;
    await api.updateSettings({ packageIndexUrl: index });
    const s = await api.createSession('Another index');
    const r = await api.run(s.id, '6 * 7');
    const marks = performance.getEntriesByName('pytabs:session-started') as PerformanceMark[];
    return { answer: r.result?.['text/plain'], detail: marks.map((m) => m.detail as { sessionId: string; warm: boolean }).find((d) => d.sessionId === s.id) };
  }, index);
  expect(report.answer).toBe('42');
  expect(report.detail?.warm).toBe(false);
});
