import { test, expect, type BrowserContext, type Page } from '@playwright/test';
import { dumpDatabase, FIRST_RUN, firstSessionId, openApp, region, reply, send } from './app';
import { assignmentFileInPage, ONE_CHECK } from './hand-ins';

// Faults, bad input, concurrency and several tabs, in real Chromium. Each test belongs
// to a category; the summary at the end counts what passed, and how much saved data
// any fault lost.

type Category = 'faults survived' | 'bad inputs rejected cleanly' | 'concurrent sessions isolated' | 'tabs kept in step';
const tally = new Map<Category, { passed: number; total: number }>();
let dataLost = 0;

function count(category: Category, passed: boolean, weight = 1): void {
  const entry = tally.get(category) ?? { passed: 0, total: 0 };
  entry.total += weight;
  if (passed) entry.passed += weight;
  tally.set(category, entry);
}

/** A case: its category is counted as passed only if the whole test passed. */
function check(
  category: Category,
  title: string,
  body: (fixtures: { page: Page; context: BrowserContext }) => Promise<void>,
  weight = 1,
): void {
  test(`[${category}] ${title}`, async ({ page, context }) => {
    let ok = false;
    try {
      await body({ page, context });
      ok = true;
    } finally {
      count(category, ok, weight);
    }
  });
}

/** Committed values that should survive: counts each one missing as data lost. */
async function expectSaved(page: Page, sessionId: string, expected: Record<string, string>): Promise<void> {
  const printed = await page.evaluate(
    async ({ id, names }) => {
      let out = '';
      // __import__ keeps the check from binding a name of its own in the session.
      const code = `print(__import__('json').dumps({n: repr(globals().get(n, '<missing>')) for n in ${JSON.stringify(names)}}))`;
      await window.pytabs!.run(id, code, (e) => void (e.type === 'stdout' && (out += e.text)));
      return out;
    },
    { id: sessionId, names: Object.keys(expected) },
  );
  const actual = JSON.parse(printed) as Record<string, string>;
  for (const [name, value] of Object.entries(expected)) if (actual[name] !== value) dataLost++;
  expect(actual).toEqual(expected);
}

test.afterAll(() => {
  const lines = [...tally.entries()].map(([category, { passed, total }]) => `${category} ${passed}/${total}`);
  lines.push(`data lost ${dataLost}`);
  console.log(`\nReliability summary\n${lines.join('\n')}\n`);
});

async function newSession(page: Page, name: string, setup?: string): Promise<string> {
  return page.evaluate(
    async ({ name, setup }) => {
      const s = await window.pytabs!.createSession(name);
      if (setup) {
        const r = await window.pytabs!.run(s.id, setup);
        if (r.status !== 'ok') throw new Error(JSON.stringify(r.error));
      }
      return s.id;
    },
    { name, setup },
  );
}

check('faults survived', 'an interrupt stops an endless loop and keeps what the run had set', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Loop', "saved = 'before'");
  const out = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    const run = api.run(id, "partial = 'set by the stopped run'\nwhile True:\n    pass");
    await new Promise((r) => setTimeout(r, 400));
    const how = await api.stop(id);
    return { how, r: await run, after: await api.run(id, 'partial') };
  }, id);
  expect(out.how).toBe('interrupted');
  expect(out.r.error?.ename).toBe('KeyboardInterrupt');
  expect(out.after.result?.['text/plain']).toBe("'set by the stopped run'");
  await expectSaved(page, id, { saved: "'before'" });
});

check('faults survived', 'without cross-origin isolation a stop restarts from the last commit and names what was not saved', async ({ page }) => {
  // Serve the app without COOP/COEP: no SharedArrayBuffer, so no interrupt buffer.
  await page.route('**/*', async (route) => {
    const response = await route.fetch();
    const headers = response.headers();
    delete headers['cross-origin-opener-policy'];
    delete headers['cross-origin-embedder-policy'];
    await route.fulfill({ response, headers });
  });
  await openApp(page);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  const id = await newSession(page, 'Fallback', 'kept = [1, 2]');
  const out = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    const run = api.run(id, 'lost_a = 1\nfor lost_b in range(10**12):\n    pass');
    await new Promise((r) => setTimeout(r, 400));
    const how = await api.stop(id);
    return { how, r: await run };
  }, id);
  expect(out.how).toBe('restarted');
  expect(out.r.error?.evalue).toContain('restarted from its last saved state');
  expect(out.r.error?.evalue).toContain('Not saved from this run: lost_a, lost_b.');
  await expectSaved(page, id, { kept: '[1, 2]', lost_a: "'<missing>'" });
});

check('faults survived', 'code that swallows KeyboardInterrupt is ended by restarting its worker', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Stubborn', 'kept = 42');
  const out = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    const run = api.run(id, 'while True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass');
    await new Promise((r) => setTimeout(r, 400));
    const how = await api.stop(id);
    return { how, r: await run };
  }, id);
  expect(out.how).toBe('restarted');
  expect(out.r.status).toBe('error');
  await expectSaved(page, id, { kept: '42' });
});

check('faults survived', 'the per-run time limit stops a long run with a TimeoutError', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Timeout', 'kept = "yes"');
  const r = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    await api.updateSettings({ runTimeoutSeconds: 1 });
    const r = await api.run(id, 'while True:\n    pass');
    await api.updateSettings({ runTimeoutSeconds: 0 });
    return r;
  }, id);
  expect(r.error?.ename).toBe('TimeoutError');
  expect(r.error?.evalue).toContain('time limit of 1 s');
  await expectSaved(page, id, { kept: "'yes'" });
});

check('faults survived', 'a worker that dies of an uncaught error mid-run restarts from storage and says so', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Crash', "kept = {'a': 1}\ndef helper():\n    return 'defined earlier'");
  const r = await page.evaluate(
    (id) =>
      window.pytabs!.run(
        id,
        "import js, asyncio\nlost = 'never committed'\njs.setTimeout(js.eval(\"() => { throw new Error('boom') }\"), 0)\nawait asyncio.sleep(5)",
      ),
    id,
  );
  expect(r.error?.ename).toBe('SessionCrashed');
  expect(r.error?.evalue).toContain('boom');
  expect(r.error?.evalue).toContain('Not saved from this run: asyncio, js, lost.');
  await expectSaved(page, id, { kept: "{'a': 1}", lost: "'<missing>'" });
  const again = await page.evaluate((id) => window.pytabs!.run(id, 'helper()'), id);
  expect(again.result?.['text/plain']).toBe("'defined earlier'");
});

check('faults survived', 'MemoryError is an ordinary error and the session goes on', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Memory', 'kept = 1');
  const out = await page.evaluate(async (id) => {
    // Far beyond wasm32's 4 GB: CPython refuses the allocation with MemoryError.
    const r = await window.pytabs!.run(id, 'huge = [None] * (10 ** 9)');
    const after = await window.pytabs!.run(id, 'kept + 1');
    return { r, after };
  }, id);
  expect(out.r.error?.ename).toBe('MemoryError');
  expect(out.after.result?.['text/plain']).toBe('2');
});

check('faults survived', 'a commit that fails is reported, keeps the previous commit, and the next run saves the change', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Commit', "before = 'committed'");
  /** The session's stored pickles (name → bytes) and file paths, read straight from IndexedDB. */
  const stored = () =>
    page.evaluate(async (id) => {
      const db = await new Promise<IDBDatabase>((resolve) => {
        const req = indexedDB.open('pytabs');
        req.onsuccess = () => resolve(req.result);
      });
      const all = <T,>(store: string) =>
        new Promise<T[]>((resolve) => {
          const req = db.transaction(store).objectStore(store).getAll();
          req.onsuccess = () => resolve((req.result as (T & { sessionId: string })[]).filter((r) => r.sessionId === id));
        });
      const pickles = await all<{ name: string; data: Uint8Array }>('pickles');
      const files = await all<{ path: string }>('files');
      db.close();
      return { pickles: Object.fromEntries(pickles.map((p) => [p.name, Array.from(p.data)])), files: files.map((f) => f.path) };
    }, id);
  /** Takes the session's record out of storage (or puts it back): the worker's next commit then fails for real. */
  const record = (action: 'take' | 'restore') =>
    page.evaluate(
      async ({ id, action }) => {
        const db = await new Promise<IDBDatabase>((resolve) => {
          const req = indexedDB.open('pytabs');
          req.onsuccess = () => resolve(req.result);
        });
        const w = window as unknown as { takenRecord?: unknown };
        await new Promise<void>((resolve) => {
          const tx = db.transaction('sessions', 'readwrite');
          const store = tx.objectStore('sessions');
          if (action === 'restore') store.put(w.takenRecord);
          else store.get(id).onsuccess = (e) => {
            w.takenRecord = (e.target as IDBRequest).result;
            store.delete(id);
          };
          tx.oncomplete = () => resolve();
        });
        db.close();
      },
      { id, action },
    );
  const saved = await stored();

  await record('take');
  const failed = await page.evaluate(
    (id) => window.pytabs!.run(id, "before = 'changed'\nafter = [1, 2]\nopen('late.txt', 'w').write('late')"),
    id,
  );
  expect(failed.status).toBe('ok');
  expect(failed.commitError).toContain('not saved');
  expect(failed.commitError).toContain('previous state is intact');
  // The previous commit, byte for byte: nothing of the failed one got in.
  expect(await stored()).toEqual(saved);

  await record('restore');
  const retried = await page.evaluate((id) => window.pytabs!.run(id, 'pass'), id);
  expect(retried.commitError).toBeUndefined();
  const after = await stored();
  expect(Object.keys(after.pickles).sort()).toEqual(['after', 'before']);
  expect(after.files).toEqual(['late.txt']);

  await page.reload();
  await openApp(page);
  await expectSaved(page, id, { before: "'changed'", after: '[1, 2]' });
  const file = await page.evaluate(async (id) => new TextDecoder().decode(await window.pytabs!.readFile(id, 'late.txt')), id);
  expect(file).toBe('late');
});

const BAD_NAMES = ['../up.txt', '/abs.txt', 'a\\b.txt', 'nul\u0000.txt', 'ctl\u0007.txt', '<script>alert(1)</script>.txt', 'x'.repeat(5000)];

check(
  'bad inputs rejected cleanly',
  'hostile file names are refused with a message and nothing is written',
  async ({ page }) => {
    await openApp(page);
    const id = await newSession(page, 'Names');
    const out = await page.evaluate(
      async ({ id, names }) => {
        const api = window.pytabs!;
        await api.writeFile(id, 'good.txt', new TextEncoder().encode('ok'));
        const messages: string[] = [];
        for (const name of names) {
          try {
            await api.writeFile(id, name, new TextEncoder().encode('bad'));
            messages.push('');
          } catch (e) {
            messages.push((e as Error).message);
          }
        }
        return { messages, files: (await api.listFiles(id)).map((f) => f.path) };
      },
      { id, names: BAD_NAMES },
    );
    for (const message of out.messages) expect(message.length).toBeGreaterThan(10);
    expect(out.files).toEqual(['good.txt']);
  },
  BAD_NAMES.length,
);

check('bad inputs rejected cleanly', 'an empty upload is kept and a 200 MB upload is refused before anything is stored', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Sizes');
  const out = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    await api.writeFile(id, 'empty.txt', new Uint8Array());
    let message = '';
    try {
      await api.writeFile(id, 'huge.bin', new Uint8Array(200 * 1024 * 1024));
    } catch (e) {
      message = (e as Error).message;
    }
    const r = await api.run(id, "len(open('empty.txt').read())");
    return { message, files: (await api.listFiles(id)).map((f) => [f.path, f.size]), r };
  }, id);
  expect(out.message).toContain('is 200 MB; a session holds at most 100 MB');
  expect(out.files).toEqual([['empty.txt', 0]]);
  expect(out.r.result?.['text/plain']).toBe('0');
}, 2);

check('bad inputs rejected cleanly', 'binary data read as text is a clear UnicodeDecodeError', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Binary');
  const r = await page.evaluate(async (id) => {
    await window.pytabs!.writeFile(id, 'blob.bin', new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0x81]));
    return window.pytabs!.run(id, "open('blob.bin').read()");
  }, id);
  expect(r.error?.ename).toBe('UnicodeDecodeError');
  expect(r.error?.traceback).toContain("open('blob.bin').read()");
});

check('bad inputs rejected cleanly', 'a corrupt pickle in storage is reported and the other variables still load', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Corrupt', "good = 'fine'\nbad = [1, 2, 3]\nalso_good = 7");
  await page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve) => {
      const req = indexedDB.open('pytabs');
      req.onsuccess = () => resolve(req.result);
    });
    await new Promise<void>((resolve) => {
      const tx = db.transaction('pickles', 'readwrite');
      tx.objectStore('pickles').put({ sessionId: id, name: 'bad', data: new Uint8Array([0x80, 0x05, 0x99, 0x00]) });
      tx.oncomplete = () => resolve();
    });
    db.close();
  }, id);
  await page.reload();
  await openApp(page);
  const out = await page.evaluate(async (id) => {
    const report = await window.pytabs!.startSession(id);
    return report;
  }, id);
  expect(out.failed).toEqual([{ name: 'bad', reason: expect.stringContaining('could not be loaded') }]);
  await expectSaved(page, id, { good: "'fine'", also_good: '7' });
});

check('bad inputs rejected cleanly', 'a database from a newer schema gives a clear message and is left untouched', async ({ page }) => {
  await openApp(page);
  await newSession(page, 'Keep me');
  const before = await dumpDatabase(page);
  const message = await page.evaluate(async () => {
    window.pytabs!.dispose();
    await new Promise<void>((resolve) => {
      const req = indexedDB.open('pytabs', 99);
      req.onupgradeneeded = () => req.result.createObjectStore('from-the-future');
      req.onsuccess = () => {
        req.result.close();
        resolve();
      };
    });
    try {
      await (window.pytabs!.constructor as unknown as { open(): Promise<unknown> }).open();
      return 'opened';
    } catch (e) {
      return (e as Error).message;
    }
  });
  expect(message).toContain('newer version of PyTabs');
  expect(message).toContain('nothing was changed');
  const db = await dumpDatabase(page);
  expect(db.sessions).toEqual(before.sessions);
});

check('bad inputs rejected cleanly', 'session names and variables with markup or bad values are refused or kept as text', async ({ page }) => {
  await openApp(page);
  const out = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('<img src=x onerror="window.__pwned=1">');
    const errors: string[] = [];
    for (const bad of ['', ' '.repeat(3), 'x'.repeat(101), 'line\nbreak']) {
      try {
        await api.renameSession(s.id, bad);
      } catch (e) {
        errors.push((e as Error).message);
      }
    }
    try {
      await api.setSessionVars(s.id, { ['k'.repeat(101)]: 'v' });
    } catch (e) {
      errors.push((e as Error).message);
    }
    await api.setSessionVars(s.id, { html: '<script>window.__pwned=2</script>' });
    const r = await api.run(s.id, "get_session_var('html')");
    return { errors, name: (await api.getSession(s.id)).name, r, pwned: (window as unknown as { __pwned?: number }).__pwned ?? 0 };
  });
  expect(out.errors).toHaveLength(5);
  expect(out.name).toBe('<img src=x onerror="window.__pwned=1">');
  expect(out.r.result?.['text/plain']).toBe("'<script>window.__pwned=2</script>'");
  await expect(page.getByText('<img src=x onerror="window.__pwned=1">').first()).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? 0)).toBe(0);
}, 6);

check('bad inputs rejected cleanly', 'a run that prints 10 MB and a million lines completes and streams everything', async ({ page }) => {
  await openApp(page);
  const id = await newSession(page, 'Flood');
  const out = await page.evaluate(async (id) => {
    let chars = 0;
    let events = 0;
    const a = await window.pytabs!.run(id, "print('x' * (10 * 1024 * 1024))", (e) => {
      if (e.type === 'stdout') {
        chars += e.text.length;
        events++;
      }
    });
    let lines = 0;
    const b = await window.pytabs!.run(id, 'for i in range(1_000_000):\n    print(i)', (e) => {
      if (e.type === 'stdout') lines += e.text.split('\n').length - 1;
    });
    return { a: a.status, b: b.status, chars, events, lines };
  }, id);
  expect([out.a, out.b]).toEqual(['ok', 'ok']);
  expect(out.chars).toBe(10 * 1024 * 1024 + 1);
  // Chunked, not one event per write.
  expect(out.events).toBeLessThan(2000);
  expect(out.lines).toBe(1_000_000);
}, 2);

check(
  'concurrent sessions isolated',
  'eight sessions run the same code at once on their own data',
  async ({ page }) => {
    test.setTimeout(240_000);
    await openApp(page);
    const out = await page.evaluate(async () => {
      const api = window.pytabs!;
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const s = await api.createSession(`Load ${i}`);
        await api.writeFile(s.id, 'data.csv', new TextEncoder().encode(`v\n${Array.from({ length: i + 1 }, (_, k) => (i + 1) * 100 + k).join('\n')}\n`));
        ids.push(s.id);
      }
      const code = [
        'import csv, os, sys',
        "values = [int(r['v']) for r in csv.DictReader(open('data.csv'))]",
        "mine = get_session_var('who')",
        "open('result.txt', 'w').write(str(sum(values)))",
        "import importlib; sys.modules.setdefault('marker', type(sys)('marker')).owner = mine",
        "(len(values), sum(values), os.getcwd(), sorted(k for k in globals() if not k.startswith('_')), sys.modules['marker'].owner)",
      ].join('\n');
      await Promise.all(ids.map((id, i) => api.setSessionVars(id, { who: `session-${i}` })));
      const results = await Promise.all(ids.map((id) => api.run(id, code)));
      const files = await Promise.all(ids.map(async (id) => new TextDecoder().decode(await api.readFile(id, 'result.txt'))));
      return { results: results.map((r) => r.result?.['text/plain'] ?? JSON.stringify(r.error)), files };
    });
    out.results.forEach((text, i) => {
      const n = i + 1;
      const sum = Array.from({ length: n }, (_, k) => n * 100 + k).reduce((a, b) => a + b, 0);
      expect(text).toBe(`(${n}, ${sum}, '/home/pyodide/workspace', ['csv', 'importlib', 'mine', 'os', 'sys', 'values'], 'session-${i}')`);
      expect(out.files[i]).toBe(String(sum));
    });
  },
  8,
);

check('tabs kept in step', 'a second tab sees the session read-only, can take it over, and the first keeps what it saved', async ({ page, context }) => {
  await openApp(page);
  const id = await newSession(page, 'Shared', "owner = 'first tab'");
  const second = await context.newPage();
  await openApp(second);
  const blocked = await second.evaluate(async (id) => {
    const api = window.pytabs!;
    const sessions = (await api.listSessions()).map((s) => s.name);
    let message = '';
    try {
      await api.run(id, "owner = 'second tab'");
    } catch (e) {
      message = (e as Error).message;
    }
    return { sessions, message, ownership: api.ownership(id) };
  }, id);
  expect(blocked.sessions).toContain('Shared');
  expect(blocked.message).toContain('open in another tab');
  expect(blocked.ownership).toBe('elsewhere');

  // The first tab is mid-run when the second takes over: the first stops, its earlier commit stays.
  const pending = page.evaluate((id) => window.pytabs!.run(id, 'import asyncio\nawait asyncio.sleep(30)'), id);
  await page.waitForTimeout(300);
  const after = await second.evaluate(async (id) => {
    const api = window.pytabs!;
    await api.takeOver(id);
    const r = await api.run(id, "was = owner\nowner = 'second tab'\nwas");
    return { r, ownership: api.ownership(id) };
  }, id);
  const firstResult = await pending;
  expect(firstResult.error?.ename).toBe('SessionTakenOver');
  expect(after.ownership).toBe('owned');
  expect(after.r.result?.['text/plain']).toBe("'first tab'");
  expect(await page.evaluate((id) => window.pytabs!.ownership(id), id)).toBe('elsewhere');

  // A session created in one tab shows up in the other's list.
  await second.evaluate(() => window.pytabs!.createSession('Made in tab two'));
  await expect
    .poll(() => page.evaluate(async () => (await window.pytabs!.listSessions()).map((s) => s.name)))
    .toContain('Made in tab two');
}, 3);

check('tabs kept in step', 'calls made at once in a tab that does not hold the session yet all claim it, also right after a reload', async ({ page, context }) => {
  await openApp(page);
  const other = await context.newPage();
  await openApp(other);
  const id = await newSession(other, 'Handed over', 'kept = 41');
  await other.close();
  // Three calls at once, none of which finds the lock held yet: none may call the session "elsewhere".
  const results = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    const outcomes = await Promise.allSettled([
      api.writeFile(id, 'note.txt', new TextEncoder().encode('hello')),
      api.setSessionVars(id, { who: 'this tab' }),
      api.run(id, 'kept += 1').then((r) => r.status),
    ]);
    return outcomes.map((o) => (o.status === 'fulfilled' ? (o.value ?? 'ok') : (o.reason as Error).message));
  }, id);
  expect(results).toEqual(['ok', 'ok', 'ok']);
  await page.reload();
  await openApp(page, `/#/s/${id}`);
  const afterReload = await page.evaluate(async (id) => {
    const api = window.pytabs!;
    const [a, b] = await Promise.all([api.run(id, 'kept'), api.run(id, 'kept * 2')]);
    return [a.result?.['text/plain'], b.result?.['text/plain'], api.ownership(id)];
  }, id);
  expect(afterReload).toEqual(['42', '84', 'owned']);
  await expectSaved(page, id, { kept: '42' });
});

check('tabs kept in step', 'in the UI a second tab shows the session read-only with a Take over button, and taking over flips the first', async ({ page, context }) => {
  await openApp(page);
  await expect(page.getByRole('tablist', { name: 'Sessions' })).toBeVisible();
  const id = await firstSessionId(page);
  await page.evaluate((id) => window.pytabs!.run(id, "shared = 'from the first tab'"), id);
  const second = await context.newPage();
  await openApp(second, `/#/s/${id}`);
  const takeOver = second.getByRole('button', { name: 'Take over' });
  await expect(takeOver).toBeVisible();
  await expect(second.getByRole('status').filter({ hasText: 'open in another tab' })).toBeVisible();
  await takeOver.click();
  await expect(takeOver).toBeHidden();
  await expect(page.getByRole('button', { name: 'Take over' })).toBeVisible();
  const r = await second.evaluate((id) => window.pytabs!.run(id, 'shared'), id);
  expect(r.result?.['text/plain']).toBe("'from the first tab'");
});

check('faults survived', 'a crashed worker (os.abort()) restarts its session, which then runs, stops, checks and hands in', async ({ page }) => {
  test.setTimeout(240_000);
  await openApp(page);
  // A student's session of a one-check assignment, opened from its file as a student would.
  const file = await page.evaluate(assignmentFileInPage, ONE_CHECK);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Import session' }).click();
  await (await chooser).setFiles([{ name: 'Crash course.pytabs.zip', mimeType: 'application/zip', buffer: Buffer.from(file) }]);
  const tab = page.getByRole('tab', { name: 'Crash course' });
  await expect(tab).toHaveAttribute('aria-selected', 'true');

  await send(page, 'import os\nos.abort()');
  await expect(reply(page, 1).getByRole('group', { name: 'Error' })).toContainText('SessionCrashed', FIRST_RUN);
  // The restarted worker says it is ready, idle, with nothing to stop.
  await expect(tab).toHaveAccessibleDescription('Ready', FIRST_RUN);
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();

  await send(page, 'answer = 6 * 7\nanswer');
  await expect(reply(page, 2)).toContainText('42', FIRST_RUN);
  await expect(tab).toHaveAccessibleDescription('Ready');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();

  await send(page, 'while True:\n    pass');
  await expect(tab).toHaveAccessibleDescription('Running');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 3)).toContainText('Stopped after', { timeout: 30_000 });
  await expect(tab).toHaveAccessibleDescription('Ready');

  const panel = region(page, 'Assignment: Crash course');
  await panel.getByRole('button', { name: 'Check my work' }).click();
  await expect(panel.getByRole('list', { name: 'Check results' }).getByRole('listitem')).toHaveText([/^Passed check_answer \(1 of 1 points\)/]);
  await panel.getByRole('button', { name: 'Hand in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Hand in' });
  await dialog.getByRole('textbox', { name: 'Your name' }).fill('Ada');
  const download = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Save hand-in' }).click();
  expect((await download).suggestedFilename()).toBe('Crash course-Ada.pytabs.zip');
  await expect(tab).toHaveAccessibleDescription('Ready');
});
