import { test, expect, type Page } from '@playwright/test';
import path from 'node:path';
import { FIRST_RUN, openApp, region, reply, send } from './app';
import { StaticHost } from './static-host';
import { runPython, startMockServer, text, toolCalls, type Script } from '../mock-openai/server';

// input(), getpass and sys.stdin as a person meets them, on the built app with real Pyodide:
// the reply shows the prompt and a field named "Input for <session>", Enter sends the line.
// The preview server is cross-origin isolated (the worker waits on shared memory); the plain
// host below has no shared memory, so the service worker relays the lines there.

function field(page: Page, session: string) {
  return page.getByRole('textbox', { name: `Input for ${session}`, exact: true });
}

/** Types a line in the session's input field, which must have the keyboard, and presses Enter. */
async function answer(page: Page, session: string, line: string): Promise<void> {
  const input = field(page, session);
  await expect(input).toBeFocused();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

const LOOP = "total = 0\nfor i in range(10):\n    total += int(input(f'Number {i + 1}? '))\nprint('total', total)";

async function answerLoop(page: Page, session: string, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    // The prompt shows before the field asks for the line.
    await expect(reply(page, 1)).toContainText(`Number ${i}? `, i === 1 ? FIRST_RUN : undefined);
    await answer(page, session, String(i * 10));
    await expect(reply(page, 1)).toContainText(`Number ${i}? ${i * 10}`);
  }
}

test('a loop of ten input() calls is answered through the field, and the transcript reads as in a terminal', async ({ page }) => {
  await openApp(page);
  await send(page, LOOP);
  await answerLoop(page, 'Session 1', 10);
  await expect(reply(page, 1)).toContainText('total 550');
  await expect(reply(page, 1)).toContainText('Done in');
  await expect(field(page, 'Session 1')).toHaveCount(0);
  await expect(region(page, 'Variables').getByRole('row', { name: /^total\b/ })).toContainText('550');
});

test('getpass asks in a masked field and its answer is never shown; sys.stdin reads lines, Ctrl+D ends the input', async ({ page }) => {
  await openApp(page);
  await send(page, "import getpass, sys\nkey = getpass.getpass('API key: ')\nline = sys.stdin.readline()\nrest = sys.stdin.read()\nprint(len(key), repr(line), repr(rest))");
  await expect(reply(page, 1)).toContainText('API key:', FIRST_RUN);
  await expect(field(page, 'Session 1')).toHaveAttribute('type', 'password');
  await answer(page, 'Session 1', 'hunter2-secret');
  await expect(field(page, 'Session 1')).toHaveAttribute('type', 'text');
  await answer(page, 'Session 1', 'plain line');
  await expect(reply(page, 1)).toContainText('plain line');
  await answer(page, 'Session 1', 'more');
  await expect(reply(page, 1)).toContainText('more');
  await expect(field(page, 'Session 1')).toBeFocused();
  await page.keyboard.press('Control+d');
  await expect(reply(page, 1)).toContainText("14 'plain line\\n' 'more\\n'");
  await expect(reply(page, 1)).not.toContainText('hunter2-secret');
});

test('Stop while input() waits ends the run and keeps the session, its unsaved values too (no restart)', async ({ page }) => {
  await openApp(page);
  // A generator cannot be saved: it survives only if the session's Python does.
  await send(page, 'kept = 42\nsteps = (i for i in range(3))');
  await expect(reply(page, 1)).toContainText('Done in', FIRST_RUN);
  await send(page, "name = input('Your name? ')");
  await expect(field(page, 'Session 1')).toBeFocused();
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(reply(page, 2)).toContainText('KeyboardInterrupt');
  await expect(reply(page, 2)).toContainText('Stopped after');
  await expect(field(page, 'Session 1')).toHaveCount(0);
  await send(page, "(kept, type(steps).__name__, 'name' in globals())");
  await expect(reply(page, 3)).toContainText("(42, 'generator', False)");
  await expect(page.getByText('the session restarted')).toHaveCount(0);
});

test('two sessions wait for input at once; answered in the other order, each gets its own line', async ({ page }) => {
  await openApp(page);
  await send(page, "a = input('Line for one? ')\nprint('one got', a)");
  await expect(field(page, 'Session 1')).toBeVisible(FIRST_RUN);
  await page.getByRole('button', { name: 'New session' }).click();
  await expect(page.getByRole('tab', { name: 'Session 2' })).toHaveAttribute('aria-selected', 'true');
  await send(page, "b = input('Line for two? ')\nprint('two got', b)");
  await expect(field(page, 'Session 2')).toBeVisible(FIRST_RUN);
  // Session 1 still waits; the second answers first.
  await answer(page, 'Session 2', 'second');
  await expect(reply(page, 1)).toContainText('two got second');
  await page.getByRole('tab', { name: 'Session 1' }).click();
  await expect(reply(page, 1)).toContainText('Line for one? ');
  await answer(page, 'Session 1', 'first');
  await expect(reply(page, 1)).toContainText('one got first');
  await expect(region(page, 'Variables').getByRole('row', { name: /^a\b/ })).toContainText('first');
  await page.getByRole('tab', { name: 'Session 2' }).click();
  await expect(region(page, 'Variables').getByRole('row', { name: /^b\b/ })).toContainText('second');
  await expect(reply(page, 1)).not.toContainText('first');
});

test('code the assistant runs gets a clear error from input(), and the model is told it', async ({ page }) => {
  const scripts: Record<string, Script> = {
    asks: (_r, ctx) =>
      ctx.turn === 0
        ? toolCalls(runPython("name = input('Your name? ')", 'call_input'))
        : text(ctx.outputs.at(-1)?.includes('input() is not available in code the assistant runs') ? 'I was told nobody can answer.' : 'I was not told.'),
  };
  const server = await startMockServer({ scripts });
  try {
    await openApp(page);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('textbox', { name: 'Base URL', exact: true }).fill(server.baseUrl);
    await dialog.getByRole('textbox', { name: 'Model', exact: true }).fill('asks');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await expect(dialog).toBeHidden();
    await send(page, 'ask my name');
    await expect(reply(page, 1)).toContainText('I was told nobody can answer.', FIRST_RUN);
    await expect(reply(page, 1)).toContainText('EOFError');
    await expect(field(page, 'Session 1')).toHaveCount(0);
  } finally {
    await server.close();
  }
});

test('window.pytabs answers a waiting run by session and request id; the time limit does not count the wait', async ({ page }) => {
  await openApp(page);
  const outcome = await page.evaluate(async () => {
    const api = window.pytabs!;
    await api.updateSettings({ runTimeoutSeconds: 2 });
    const s = await api.createSession('By API');
    const heard: (string | null)[] = [];
    const unsubscribe = api.subscribeInput((id, request) => id === s.id && heard.push(request ? (request.password ? 'password' : 'line') : null));
    const run = api.run(s.id, "a = input('First? ')\nb = input('Second? ')\na + b");
    const waiting = async () => {
      while (!api.pendingInput(s.id)) await new Promise((resolve) => setTimeout(resolve, 50));
      return api.pendingInput(s.id)!;
    };
    const first = await waiting();
    let wrongId = '';
    try {
      api.answerInput(s.id, 'not-the-request', 'x');
    } catch (error) {
      wrongId = String(error);
    }
    // Longer than the run's time limit: a person thinking is not a runaway run.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    api.answerInput(s.id, first.id, 'py');
    const second = await waiting();
    api.answerInput(s.id, second.id, 'tabs');
    const result = await run;
    unsubscribe();
    await api.updateSettings({ runTimeoutSeconds: 0 });
    return { value: result.result?.['text/plain'], error: result.error?.ename, ids: first.id !== second.id, wrongId, heard, after: api.pendingInput(s.id) };
  });
  expect(outcome).toEqual({
    value: "'pytabs'",
    error: undefined,
    ids: true,
    wrongId: expect.stringContaining('no longer waiting'),
    heard: ['line', null, 'line', null],
    after: null,
  });
});

test('an answered line is an input event of the run, not stdout; the reply and its stored history still read as a terminal', async ({ page }) => {
  await openApp(page);
  const heard = await page.evaluate(async () => {
    const api = window.pytabs!;
    const s = await api.createSession('Events');
    const events: { type: string; text?: string; prompt?: string; request?: string }[] = [];
    const run = api.run(s.id, "a = int(input('First? '))\nb = int(input('Second? '))\nprint('sum', a + b)", (e) => events.push(e as (typeof events)[number]));
    const ids: string[] = [];
    for (const line of ['2', '40']) {
      while (!api.pendingInput(s.id)) await new Promise((resolve) => setTimeout(resolve, 50));
      const request = api.pendingInput(s.id)!;
      ids.push(request.id);
      api.answerInput(s.id, request.id, line);
      while (api.pendingInput(s.id)?.id === request.id) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await run;
    await api.deleteSession(s.id);
    return { events, ids };
  });
  expect(heard.events.filter((e) => e.type === 'stdout').map((e) => e.text).join('')).toBe('First? Second? sum 42\n');
  expect(heard.events.filter((e) => e.type === 'input')).toEqual([
    { type: 'input', request: heard.ids[0], prompt: 'First? ', text: '2' },
    { type: 'input', request: heard.ids[1], prompt: 'Second? ', text: '40' },
  ]);

  await send(page, "name = input('Your name? ')\nprint('Hello,', name)");
  await expect(reply(page, 1)).toContainText('Your name?', FIRST_RUN);
  await answer(page, 'Session 1', 'Ada');
  await expect(reply(page, 1)).toContainText('Done in');
  const terminal = reply(page, 1).locator('pre.stream');
  await expect(terminal).toHaveText('Your name? Ada\nHello, Ada\n');
  // What was typed is marked apart from what the program printed, in the stored history too.
  await page.reload();
  await expect(reply(page, 1).locator('pre.stream')).toHaveText('Your name? Ada\nHello, Ada\n');
  await expect(reply(page, 1).locator('pre.stream .typed')).toHaveText('Ada\n');
  const stored = await page.evaluate(async () => {
    const api = window.pytabs!;
    const [session] = (await api.listSessions()).filter((s) => s.name === 'Session 1');
    const rounds = (await api.history(session.id).list()) as unknown as { events: { type: string; text?: string }[] }[];
    return rounds[0].events.filter((e) => e.type === 'stdout' || e.type === 'input').map((e) => [e.type, e.text]);
  });
  expect(stored).toEqual([
    ['stdout', 'Your name? '],
    ['input', 'Ada'],
    ['stdout', 'Hello, Ada\n'],
  ]);
});

test.describe('on a plain host (no shared memory)', () => {
  let host: StaticHost;
  test.beforeEach(async () => {
    host = await new StaticHost(path.resolve('dist'), '/sub/app/', 'plain').start();
  });
  test.afterEach(async () => {
    await host.close();
  });

  test('the service worker relays the lines from the first visit, Stop keeps the session; from the second visit the page has shared memory', async ({ page }) => {
    await page.goto(host.url);
    await expect.poll(() => page.evaluate(() => Boolean(window.pytabs))).toBe(true);
    expect(await page.evaluate(() => typeof SharedArrayBuffer)).toBe('undefined');
    await page.getByRole('button', { name: 'Settings' }).click();
    const lines = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'This browser' }).getByRole('listitem');
    await expect(lines.filter({ hasText: /^input\(\): / })).toHaveText('input(): waits for you (service worker)');
    await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();

    await send(page, LOOP);
    await answerLoop(page, 'Session 1', 10);
    await expect(reply(page, 1)).toContainText('total 550', FIRST_RUN);
    // The lines went through the service worker, never to the host.
    expect(host.served.filter((s) => s.path.includes('__pytabs'))).toEqual([]);

    await send(page, "kept = 'still here'\nagain = input('Again? ')");
    await expect(field(page, 'Session 1')).toBeFocused();
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect(reply(page, 2)).toContainText('KeyboardInterrupt');
    await send(page, 'kept');
    await expect(reply(page, 3)).toContainText("'still here'");
    await expect(page.getByText('the session restarted')).toHaveCount(0);

    await page.reload();
    await expect.poll(() => page.evaluate(() => Boolean(window.pytabs))).toBe(true);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(lines.filter({ hasText: /^input\(\): / })).toHaveText('input(): waits for you (shared memory)');
  });

  test('without a service worker and without shared memory input() says why it cannot wait, and nothing else breaks', async ({ page }) => {
    // As in a Firefox private window on a plain host.
    await page.addInitScript(() => void delete (Navigator.prototype as { serviceWorker?: unknown }).serviceWorker);
    await page.goto(host.url);
    await expect.poll(() => page.evaluate(() => Boolean(window.pytabs))).toBe(true);
    await send(page, "try:\n    input('Name? ')\nexcept EOFError as e:\n    print('EOFError:', e)\nprint('after', 6 * 7)");
    await expect(reply(page, 1)).toContainText('EOFError: input() cannot wait for you in this window: it has no shared memory and no service worker', FIRST_RUN);
    await expect(reply(page, 1)).toContainText('after 42');
    await expect(field(page, 'Session 1')).toHaveCount(0);
    await page.getByRole('button', { name: 'Settings' }).click();
    const lines = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'This browser' }).getByRole('listitem');
    await expect(lines.filter({ hasText: /^input\(\): / })).toHaveText(/^input\(\): no: this window has no shared memory and no service worker/);
  });
});
