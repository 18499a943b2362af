import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import * as XLSX from 'xlsx';
import { FIRST_RUN, openApp, reply, send } from './app';
import { runPython, startMockServer, stdoutOf, text, toolCalls, type Script } from '../mock-openai/server';

// Ask through the UI, by role and name, on the built app with real Pyodide and IndexedDB, against
// the mock OpenAI-compatible server of tests/mock-openai on 127.0.0.1 (never a real key).

const KEY = 'sk-test-e2e-0123456789abcdef';

/** Sets the endpoint in Settings → Assistant, as a person would, and saves with the dialog's one Save. */
async function configure(page: Page, options: { baseUrl: string; model: string; key?: string; remember?: boolean }): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('textbox', { name: 'Base URL', exact: true }).fill(options.baseUrl);
  await dialog.getByRole('textbox', { name: 'Model', exact: true }).fill(options.model);
  if (options.key) await dialog.getByLabel('API key', { exact: true }).fill(options.key);
  const remember = dialog.getByRole('checkbox', { name: 'Remember the key on this device' });
  if (options.remember) await remember.check();
  // A notice of an earlier save may still be on screen (notices last 5 s): once it has gone,
  // this save's is the one. (Counting them raced: the earlier one could go before this one came.)
  const saved = page.getByText('Settings saved.');
  await expect(saved).toHaveCount(0, { timeout: 10_000 });
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(saved).toHaveCount(1);
  await expect(dialog).toBeHidden();
}

function workbook(tags: string[]): Buffer {
  const sheet = XLSX.utils.json_to_sheet(tags.flatMap((tag, i) => [{ id: i * 2, tag }, { id: i * 2 + 1, tag }]));
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'Sheet1');
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

async function attach(page: Page, files: { name: string; buffer: Buffer }[]): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Attach files' }).click();
  await (await chooser).setFiles(files.map((f) => ({ ...f, mimeType: 'application/octet-stream' })));
  for (const f of files) await expect(page.getByRole('list', { name: 'Attached files' })).toContainText(f.name);
}

function tab(page: Page, name: string) {
  return page.getByRole('tab', { name, exact: true });
}

/** Every value in every store of the app's database, as text (bytes decoded), to search for a secret. */
function databaseText(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open('pytabs');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    const latin1 = new TextDecoder('latin1');
    const parts: string[] = [];
    for (const name of Array.from(db.objectStoreNames)) {
      const values = await new Promise<unknown[]>((resolve, reject) => {
        const req = db.transaction(name).objectStore(name).getAll();
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      for (const value of values) {
        parts.push(JSON.stringify(value, (_k, v) => (ArrayBuffer.isView(v) ? latin1.decode(v) : v instanceof ArrayBuffer ? latin1.decode(new Uint8Array(v)) : v)));
        const blobs = Object.values(value as object).filter((v): v is Blob => v instanceof Blob);
        for (const blob of blobs) parts.push(latin1.decode(new Uint8Array(await blob.arrayBuffer())));
      }
    }
    db.close();
    return parts.join('\n');
  });
}

/** Sessions made through the API, listed as tabs after a reload. */
async function sessionsNamed(page: Page, names: string[]): Promise<void> {
  await page.evaluate(async (names) => {
    for (const name of names) await window.pytabs!.createSession(name);
  }, names);
  await page.reload();
  await openApp(page, page.url());
}

test('Settings → Assistant: presets, the connection test tells its outcomes apart, the key is stored only when remembered, axe passes', async ({ page }) => {
  const keyed = await startMockServer({ key: KEY });
  const gone = await startMockServer();
  const goneUrl = gone.baseUrl;
  await gone.close();
  try {
    await openApp(page);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await expect(dialog.getByRole('heading', { name: 'Assistant' })).toBeVisible();
    const server = dialog.getByRole('combobox', { name: 'Server' });
    const baseUrl = dialog.getByRole('textbox', { name: 'Base URL', exact: true });
    const status = dialog.getByRole('status');
    const testButton = dialog.getByRole('button', { name: 'Test connection' });
    await server.selectOption({ label: 'Ollama' });
    await expect(baseUrl).toHaveValue('http://localhost:11434/v1');
    await server.selectOption({ label: 'LM Studio' });
    await expect(baseUrl).toHaveValue('http://localhost:1234/v1');
    await server.selectOption({ label: 'llama.cpp server' });
    await expect(baseUrl).toHaveValue('http://localhost:8080/v1');

    await dialog.getByRole('textbox', { name: 'Model', exact: true }).fill('plain');
    await baseUrl.fill(goneUrl);
    await testButton.click();
    await expect(status).toContainText('Not reachable');

    await baseUrl.fill(keyed.baseUrl);
    await testButton.click();
    await expect(status).toContainText('Key refused');

    const keyBox = dialog.getByLabel('API key', { exact: true });
    await expect(keyBox).toHaveAttribute('type', 'password');
    await keyBox.fill(KEY);
    await expect(dialog.getByRole('checkbox', { name: 'Remember the key on this device' })).not.toBeChecked();
    await testButton.click();
    await expect(status).toContainText('Working: plain');
    await dialog.getByRole('textbox', { name: 'Model', exact: true }).fill('no-such-model');
    await testButton.click();
    await expect(status).toContainText('Model not found');
    await dialog.getByRole('textbox', { name: 'Model', exact: true }).fill('plain');
    await testButton.click();
    await expect(status).toContainText('Working: plain');
    expect(keyed.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    // Held in memory only: not in any store.
    expect(await databaseText(page)).not.toContain(KEY);

    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);

    await keyBox.fill(KEY);
    await dialog.getByRole('checkbox', { name: 'Remember the key on this device' }).check();
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByText('Settings saved.')).toBeVisible();
    await expect(dialog).toBeHidden();
    expect(await databaseText(page)).toContain(KEY);

    // Remembered: after a reload the key still works, without being shown.
    await page.reload();
    await openApp(page);
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(dialog.getByLabel('API key', { exact: true })).toHaveValue('');
    await expect(dialog.getByRole('checkbox', { name: 'Remember the key on this device' })).toBeChecked();
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await expect(dialog.getByRole('status')).toContainText('Working: plain');
    await dialog.getByRole('button', { name: 'Forget the key' }).click();
    await expect(page.getByText('The API key was forgotten on this device.')).toBeVisible();
    expect(await databaseText(page)).not.toContain(KEY);
  } finally {
    await keyed.close();
  }
});

// The page is cross-origin isolated (COEP require-corp): the browser refuses the connection test's
// no-cors probe too, and only its "coep" report tells a server that answered from one that is down.
test('Test connection against a server without CORS says the browser blocked it', async ({ page }) => {
  const blocked = await startMockServer({ cors: false });
  try {
    await openApp(page);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('textbox', { name: 'Base URL', exact: true }).fill(blocked.baseUrl);
    await dialog.getByRole('textbox', { name: 'Model', exact: true }).fill('plain');
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await expect(dialog.getByRole('status')).toContainText('Blocked by the browser');
    await expect(dialog.getByRole('status')).toContainText('CORS');
    // The request did reach the server: only the browser stood in the way.
    expect(blocked.requests.length).toBeGreaterThan(0);
  } finally {
    await blocked.close();
  }
});

test('the seed question in two sessions at once: each answers from its own data.xlsx, each request names only its own session, the rounds come back after a reload', async ({ page }) => {
  const server = await startMockServer();
  try {
    await openApp(page);
    await sessionsNamed(page, ['Alpha', 'Beta']);
    await configure(page, { baseUrl: server.baseUrl, model: 'seed' });
    const question = 'what are the unique tags in data.xlsx?';
    const sessions = [
      { name: 'Alpha', tags: ['apple', 'apricot'], marker: 'owner-alpha.txt' },
      { name: 'Beta', tags: ['banana', 'blueberry', 'bilberry'], marker: 'owner-beta.txt' },
    ];
    for (const s of sessions) {
      await tab(page, s.name).click();
      // Ask is the default once an endpoint is set.
      await expect(page.getByRole('radiogroup', { name: 'Message mode' }).getByRole('radio', { name: 'Ask' })).toBeChecked();
      // The empty conversation says what Ask does, not how to write Python.
      await expect(page.getByRole('region', { name: 'Conversation' })).toContainText('Ask a question about your data');
      // So does the empty editor's hint.
      await expect(page.getByRole('textbox', { name: 'Message' })).toContainText('A question in plain words');
      await attach(page, [
        { name: 'data.xlsx', buffer: workbook(s.tags) },
        { name: s.marker, buffer: Buffer.from(`this workspace is ${s.name}`) },
      ]);
      await send(page, question);
    }
    for (const s of sessions) {
      await tab(page, s.name).click();
      const answer = reply(page, 1);
      await expect(answer).toContainText(`The unique tags in data.xlsx are: ${[...s.tags].sort().join(', ')}.`, FIRST_RUN);
      await expect(answer.getByRole('group', { name: 'Code 1' })).toContainText("read_excel('data.xlsx'");
      for (const other of sessions.filter((o) => o !== s)) for (const tag of other.tags) await expect(answer).not.toContainText(tag);
    }

    // Two requests per session (the tool call, then the answer), each naming only its own data.
    const chats = server.chats();
    expect(chats).toHaveLength(4);
    for (const s of sessions) {
      const own = chats.filter((c) => JSON.stringify(c.body).includes(s.marker));
      expect(own).toHaveLength(2);
      for (const c of own) {
        const body = JSON.stringify(c.body);
        for (const other of sessions.filter((o) => o !== s)) {
          expect(body).not.toContain(other.marker);
          for (const tag of other.tags) expect(body).not.toContain(tag);
        }
      }
      const toolOutputs = own.flatMap((c) => c.body!.messages.filter((m) => m.role === 'tool').map((m) => stdoutOf(String(m.content))));
      expect(toolOutputs).toEqual([[...s.tags].sort().join(', ')]);
    }

    await page.reload();
    await openApp(page);
    await tab(page, 'Beta').click();
    const stored = reply(page, 1);
    await expect(stored).toContainText('The unique tags in data.xlsx are: banana, bilberry, blueberry.');
    const card = stored.getByRole('group', { name: 'Code 1' });
    await expect(card).toContainText("read_excel('data.xlsx'");
    await expect(card).toContainText('banana, bilberry, blueberry');
    await expect(card).toContainText('ran');
    await page.getByRole('button', { name: 'What was sent' }).click();
    await expect(page.getByRole('region', { name: 'What was sent with message 1' })).toContainText('owner-beta.txt');
    await expect(page.getByRole('region', { name: 'What was sent with message 1' })).not.toContainText('owner-alpha.txt');
    await expect(stored).toContainText(/Tokens used: \d+/);
  } finally {
    await server.close();
  }
});

test('Stop ends a streaming answer and a run under way; the session stays usable', async ({ page }) => {
  const scripts: Record<string, Script> = {
    'busy-loop': (_r, ctx) => (ctx.turn === 0 ? toolCalls(runPython("print('loop started', flush=True)\nwhile True:\n    pass", 'call_busy')) : text('Unreachable.')),
  };
  const server = await startMockServer({ scripts });
  try {
    await openApp(page);
    await configure(page, { baseUrl: server.baseUrl, model: 'slow-text' });
    // The session's Python first, so the stream is what runs when Stop is pressed.
    await page.getByRole('radio', { name: 'Code' }).check();
    await expect(page.getByRole('region', { name: 'Conversation' })).toContainText('Write Python and press Send.');
    await expect(page.getByRole('textbox', { name: 'Message' })).toContainText('Python code, or Markdown');
    await send(page, 'print(1)');
    await expect(reply(page, 1)).toContainText('1', FIRST_RUN);
    await page.getByRole('radio', { name: 'Ask' }).check();

    await send(page, 'think slowly');
    await expect(reply(page, 2)).toContainText('Thinking');
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(reply(page, 2)).toContainText('Stopped. What the assistant had shown is kept.');
    await expect(reply(page, 2)).toContainText('Stopped after');
    await expect(reply(page, 2)).not.toContainText('for a long time.');

    await configure(page, { baseUrl: server.baseUrl, model: 'busy-loop' });
    await send(page, 'loop forever');
    const card = reply(page, 3).getByRole('group', { name: 'Code 1' });
    await expect(card).toContainText('loop started');
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(reply(page, 3)).toContainText('Stopped. What the assistant had shown is kept.');
    await expect(reply(page, 3)).toContainText('Stopped after');
    expect(server.chats().filter((c) => c.body?.model === 'busy-loop')).toHaveLength(1);

    await page.getByRole('radio', { name: 'Code' }).check();
    await send(page, 'print(6 * 7)');
    await expect(reply(page, 4)).toContainText('42');
    // The choice of mode is the session's, kept across a reload.
    await page.reload();
    await openApp(page);
    await expect(page.getByRole('radio', { name: 'Code' })).toBeChecked();
    await expect(reply(page, 3)).toContainText('Stopped. What the assistant had shown is kept.');
  } finally {
    await server.close();
  }
});

test('with auto-run off, Run, Edit and Skip decide each code card, and the model hears of the skip; axe passes on the round', async ({ page }) => {
  const scripts: Record<string, Script> = {
    approvals: (_r, ctx) => {
      if (ctx.turn < 3) return toolCalls(runPython(`print('proposal ${ctx.turn + 1}')`, `call_${ctx.turn}`));
      return text(`**Heard**: ${ctx.outputs.map((o) => o.replace(/\n/g, ' ')).join(' | ')}`);
    },
  };
  const server = await startMockServer({ scripts });
  try {
    await openApp(page);
    await configure(page, { baseUrl: server.baseUrl, model: 'approvals' });
    const autoRun = page.getByRole('checkbox', { name: "Run the assistant's code automatically" });
    await expect(autoRun).toBeChecked();
    await autoRun.uncheck();
    await send(page, 'propose three things');
    const round = reply(page, 1);

    const first = round.getByRole('group', { name: 'Code 1' });
    await expect(first).toContainText('waiting for you', FIRST_RUN);
    await first.getByRole('button', { name: 'Run' }).click();
    await expect(first).toContainText('proposal 1\n');

    const second = round.getByRole('group', { name: 'Code 2' });
    await expect(second).toContainText('waiting for you');
    await second.getByRole('button', { name: 'Edit' }).click();
    await second.getByRole('textbox', { name: 'Code to run' }).fill("print('edited by me')");
    await second.getByRole('button', { name: 'Run' }).click();
    await expect(second).toContainText('edited by me');
    await expect(second).toContainText("print('proposal 2')");

    const third = round.getByRole('group', { name: 'Code 3' });
    await expect(third).toContainText('waiting for you');
    await third.getByRole('button', { name: 'Skip' }).click();
    await expect(third).toContainText('skipped');
    await expect(round.getByRole('strong').filter({ hasText: 'Heard' })).toBeVisible();

    const last = server.chats().at(-1)!.body!.messages;
    const told = last.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(told).toHaveLength(3);
    expect(told[0]).toContain('proposal 1');
    expect(told[1]).toContain('edited by me');
    expect(told[2]).toContain('The person chose not to run this code.');

    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);

    await page.reload();
    await openApp(page);
    await expect(page.getByRole('checkbox', { name: "Run the assistant's code automatically" })).not.toBeChecked();
    await expect(reply(page, 1).getByRole('group', { name: 'Code 3' })).toContainText('skipped');
  } finally {
    await server.close();
  }
});

test('the key goes only to the endpoint: Python fetching another origin and a Markdown image of another origin carry no Authorization', async ({ page }) => {
  const other = await startMockServer();
  const scripts: Record<string, Script> = {
    leak: (_r, ctx) =>
      ctx.turn === 0
        ? toolCalls(runPython(`from js import fetch\nr = await fetch('${other.origin}/from-python')\nprint('fetched', r.status)`, 'call_fetch'))
        : text(`Done: ${stdoutOf(ctx.outputs.at(-1) ?? '')}.\n\n![tracking chart](${other.origin}/pixel.png)\n\n[a link](${other.origin}/link)`),
  };
  const server = await startMockServer({ key: KEY, scripts });
  try {
    await openApp(page);
    await configure(page, { baseUrl: server.baseUrl, model: 'leak', key: KEY });
    await send(page, 'fetch something');
    const round = reply(page, 1);
    await expect(round).toContainText('Done: fetched 404.', FIRST_RUN);
    await expect(round).toContainText('[image not loaded: tracking chart]');
    await expect(round.getByRole('img')).toHaveCount(0);
    await expect(round.getByRole('link', { name: 'a link' })).toHaveAttribute('rel', 'noopener noreferrer');

    expect(server.chats().length).toBe(2);
    for (const c of server.chats()) expect(c.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(other.requests.map((r) => r.path)).toContain('/from-python');
    expect(other.requests.map((r) => r.path)).not.toContain('/pixel.png');
    for (const r of other.requests) {
      expect(r.headers.authorization).toBeUndefined();
      expect(JSON.stringify(r.headers)).not.toContain(KEY);
    }
    // Not remembered: the key is in no store, also not in the round.
    expect(await databaseText(page)).not.toContain(KEY);
  } finally {
    await server.close();
    await other.close();
  }
});

test('window.pytabs.ask answers with the files given, reports events, and stores the round', async ({ page }) => {
  const server = await startMockServer();
  try {
    await openApp(page);
    await configure(page, { baseUrl: server.baseUrl, model: 'seed' });
    const out = await page.evaluate(async (bytes) => {
      const api = window.pytabs!;
      const { id } = await api.createSession('From the API');
      const types = new Set<string>();
      const round = await api.ask(id, 'what are the unique tags in data.xlsx?', {
        files: [{ name: 'data.xlsx', data: new Uint8Array(bytes) }],
        onEvent: (event) => types.add(event.type),
      });
      const stored = await api.history(id).list<{ sessionId: string; seq: number; kind?: string }>();
      const answer = round.events.filter((e) => e.type === 'assistant_text').map((e) => (e as { text: string }).text).join('');
      return { state: round.state, kind: stored[0]?.kind, answer, types: [...types] };
    }, [...workbook(['kiwi', 'lime'])]);
    expect(out.state).toBe('finished');
    expect(out.kind).toBe('ask');
    expect(out.answer).toBe('The unique tags in data.xlsx are: kiwi, lime.');
    expect(out.types).toEqual(expect.arrayContaining(['context_sent', 'code_card', 'stdout', 'tool_result', 'assistant_text', 'round_end']));
  } finally {
    await server.close();
  }
});
