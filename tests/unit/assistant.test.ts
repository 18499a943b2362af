import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { openDb, type PyTabsDB } from '../../src/lib/storage/db';
import { RoundHistory } from '../../src/lib/storage/session-store';
import { SettingsStore } from '../../src/lib/storage/settings';
import { sendMessage } from '../../src/lib/chat/send';
import type { Round, RoundEvent } from '../../src/lib/chat/types';
import type { Text } from '../../src/lib/i18n/text';
import { tellInEnglish } from '../../src/lib/i18n/said';
import { ask, type AskOptions } from '../../src/lib/assistant/ask';
import { AssistantEndpoint } from '../../src/lib/assistant/endpoint';
import { OriginRefusedError } from '../../src/lib/assistant/guarded-fetch';
import { testConnection } from '../../src/lib/assistant/connection';
import { roundUsage } from '../../src/lib/assistant/usage';
import type { CodeCard } from '../../src/lib/assistant/events';
import { readSessionPrefs, writeSessionPrefs } from '../../src/lib/storage/assistant-settings';
import { deleteSessionData } from '../../src/lib/storage/sessions';
import { startMockServer, type MockServer, type RecordedRequest } from '../mock-openai/server';
import { PyodideEngine } from './assistant-engine';
import { ask as askFromLib, sendMessage as sendFromLib } from '../../src/lib';

// The tool loop end to end: the official client over real HTTP to the mock server, and every
// code run on real Pyodide through the worker's session logic (tests/unit/assistant-engine.ts).

const KEY = 'sk-test-0123456789abcdefghij';
let db: PyTabsDB;
let engine: PyodideEngine;
let server: MockServer;
let endpoint: AssistantEndpoint;

function xlsx(rows: unknown[][]): Uint8Array {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Sheet1');
  return new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
}

const textOf = (round: Round) =>
  round.events
    .filter((e) => e.type === 'assistant_text')
    .map((e) => e.text)
    .join('');
const cardsOf = (round: Round) => round.events.filter((e): e is CodeCard => e.type === 'code_card');
/** A text the round keeps said, in English (the tests' language). */
const english = (text: Text) => (typeof text === 'string' ? text : tellInEnglish(text));
const notesOf = (round: Round, kind?: string) =>
  round.events.flatMap((e) => (e.type === 'assistant_note' && (!kind || e.kind === kind) ? [{ ...e, message: english(e.message) }] : []));
const errorOf = (round: Round) => {
  const error = round.events.find((e) => e.type === 'round_error');
  return error?.type === 'round_error' ? english(error.message) : '';
};
const toolMessages = (request: RecordedRequest) => (request.body?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

async function askWith(model: string, question = 'Go', options: AskOptions = {}, sessionId = 'main') {
  await endpoint.update({ model });
  const before = server.chats().length;
  const events: RoundEvent[] = [];
  const round = await ask(engine, sessionId, question, { endpoint, retry: { baseMs: 5 }, onEvent: (e) => events.push({ ...e }), ...options });
  return { round, events, requests: server.chats().slice(before) };
}

beforeAll(async () => {
  db = await openDb('assistant-test');
  engine = new PyodideEngine(db);
  server = await startMockServer({ key: KEY });
  await engine.open('main');
  endpoint = await AssistantEndpoint.load(engine.settingsStore);
  await endpoint.update({ baseUrl: server.baseUrl, model: 'plain' });
  await endpoint.setKey(KEY, false);
});

afterAll(() => server.close());

describe('ask: the scenarios', () => {
  it('streams plain text into one merged event, records what was sent and the usage, and stores the round', async () => {
    const { round, events } = await askWith('plain', 'Say hello');
    expect(round.kind).toBe('ask');
    expect(round.state).toBe('finished');
    expect(textOf(round)).toBe('Hello from the mock model. It has no code to run.');
    // Many deltas arrived; the stored round holds them as one event.
    expect(events.filter((e) => e.type === 'assistant_text').length).toBeGreaterThan(3);
    expect(round.events.filter((e) => e.type === 'assistant_text')).toHaveLength(1);
    const sent = round.events.find((e) => e.type === 'context_sent');
    expect(sent?.type === 'context_sent' && sent.messages.at(-1)).toEqual({ role: 'user', content: 'Say hello' });
    expect(sent?.type === 'context_sent' && sent.messages[0].content).toContain('read_excel(path');
    expect(sent?.type === 'context_sent' && sent.tools).toEqual(['run_python', 'list_variables', 'list_files']);
    expect(roundUsage(round)?.totalTokens).toBeGreaterThan(0);
    // This server does not say which prompt tokens it kept from before: no figure is made up.
    expect(roundUsage(round)?.cachedTokens).toBeUndefined();
    const stored = (await new RoundHistory(db, 'main').list<Round>()).find((r) => r.id === round.id)!;
    expect(stored.kind).toBe('ask');
    expect(textOf(stored as Round)).toBe(textOf(round));
  });

  it('sums the prompt tokens a server kept from before, where it said so', () => {
    const usage = (promptTokens: number, cachedTokens?: number) => ({ type: 'usage' as const, step: 0, promptTokens, completionTokens: 1, totalTokens: promptTokens + 1, ...(cachedTokens === undefined ? {} : { cachedTokens }) });
    const round = { events: [usage(900, 860), usage(950, 930), usage(10)] } as unknown as Round;
    expect(roundUsage(round)).toEqual({ promptTokens: 1860, completionTokens: 3, totalTokens: 1863, cachedTokens: 1790 });
  });

  it('is exported from src/lib beside sendMessage, loading the client on first use', async () => {
    expect(typeof sendFromLib).toBe('function');
    await endpoint.update({ model: 'plain' });
    const round = await askFromLib(engine, 'main', 'Through the library', { endpoint });
    expect(round.kind).toBe('ask');
    expect(textOf(round)).toBe('Hello from the mock model. It has no code to run.');
  });

  it('runs a tool call split over many chunks in the session, feeds back the output and answers', async () => {
    const { round, requests } = await askWith('split-tool', 'Add up 0..9');
    const [card] = cardsOf(round);
    expect(card).toMatchObject({ callId: 'call_split', source: 'tool', status: 'ran' });
    expect(round.events.some((e) => e.type === 'stdout' && e.text.includes('total is 45'))).toBe(true);
    expect(toolMessages(requests[1])[0]).toContain('total is 45');
    expect(textOf(round)).toBe('Answer: total is 45');
    // The run went through the session: its variable is kept like a typed one.
    expect((await engine.listVariables('main')).find((v) => v.name === 'total')?.preview).toBe('45');
  });

  it('handles two tool calls in one reply, in order', async () => {
    const { round, requests } = await askWith('two-tools');
    expect(round.events.filter((e) => e.type === 'tool_result').map((e) => e.type === 'tool_result' && e.name)).toEqual(['run_python', 'list_files']);
    expect(requests[1].body?.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['call_a', 'call_b']);
    expect(textOf(round)).toContain('Ran: first call.');
  });

  it('keeps Ollama-style parallel calls apart (all index 0, distinct ids)', async () => {
    const { round } = await askWith('ollama-parallel');
    expect(cardsOf(round).map((c) => [c.callId, c.code, c.status])).toEqual([
      ['call_one', "print('one')", 'ran'],
      ['call_two', "print('two')", 'ran'],
    ]);
    expect(textOf(round)).toBe('Both ran: one and two');
  });

  it('runs a fenced python block from a model that does not call tools', async () => {
    const { round, requests } = await askWith('fenced');
    expect(cardsOf(round)).toMatchObject([{ source: 'fenced', status: 'ran', code: "values = [3, 4, 5]\nprint('sum', sum(values))" }]);
    expect(notesOf(round, 'no_tools')).toHaveLength(1);
    expect(String(requests[1].body?.messages.at(-1)?.content)).toMatch(/^Output of your code:[\s\S]*sum 12/);
    expect(textOf(round)).toContain('The sum is 12.');
  });

  it('asks again without tools when the server refuses them, and runs the fenced block', async () => {
    const { round, requests } = await askWith('no-tools');
    expect(requests.map((r) => Boolean(r.body?.tools?.length))).toEqual([true, false, false]);
    expect(notesOf(round, 'no_tools')).toHaveLength(1);
    expect(round.events.filter((e) => e.type === 'context_sent')).toHaveLength(2);
    expect(textOf(round)).toMatch(/Answer: fenced 42$/);
  });

  it('feeds an error back, and the model fixes its code', async () => {
    const { round, requests } = await askWith('error-fix');
    expect(round.events.find((e) => e.type === 'exec_error')).toMatchObject({ error: { ename: 'NameError' } });
    expect(toolMessages(requests[1])[0]).toMatch(/The code failed: NameError[\s\S]*traceback \(last lines\)/);
    expect(textOf(round)).toBe('Answer: fixed 42');
    expect(round.state).toBe('finished');
  });

  it('tells the model when its tool arguments are not JSON', async () => {
    const { round, requests } = await askWith('bad-args');
    expect(notesOf(round, 'bad_arguments')).toHaveLength(1);
    expect(toolMessages(requests[1])[0]).toMatch(/not valid JSON/);
    expect(textOf(round)).toBe('Answer: now as json');
  });

  it('lists variables for the model', async () => {
    const { round } = await askWith('variables-tool');
    expect(textOf(round)).toMatch(/total: int, .* — 45/);
  });
});

describe('ask: errors and retries', () => {
  it('refuses a key with 401 without retrying, and the message holds no key', async () => {
    await endpoint.setKey('sk-wrong-key-that-must-not-show', false);
    try {
      const { round, requests } = await askWith('plain');
      expect(requests).toHaveLength(1);
      expect(round.state).toBe('failed');
      expect(errorOf(round)).toMatch(/refused the API key \(401\)/);
      expect(JSON.stringify(round)).not.toContain('sk-wrong-key-that-must-not-show');
    } finally {
      await endpoint.setKey(KEY, false);
    }
  });

  it('scrubs the key from an error text that quotes it', async () => {
    const { round } = await askWith('echo-key');
    expect(errorOf(round)).toContain('[API key hidden]');
    expect(JSON.stringify(round)).not.toContain(KEY);
  });

  it('does not retry insufficient_quota and says what to fix', async () => {
    const { round, requests } = await askWith('insufficient-quota');
    expect(requests).toHaveLength(1);
    expect(errorOf(round)).toMatch(/no quota left/);
  });

  it('retries a 429 after its retry-after, and a 500, then answers', async () => {
    const limited = await askWith('rate-limit');
    expect(limited.requests).toHaveLength(2);
    expect(notesOf(limited.round, 'retry')[0]).toMatchObject({ message: expect.stringContaining('Trying again in 1 s (retry 1 of 2)') });
    expect(textOf(limited.round)).toBe('Answered after waiting.');
    const flaky = await askWith('flaky');
    expect(flaky.requests).toHaveLength(2);
    expect(textOf(flaky.round)).toBe('Answered after a server error.');
  });

  it('gives up on 5xx after two retries', async () => {
    const { round, requests } = await askWith('always-500');
    expect(requests).toHaveLength(3);
    expect(errorOf(round)).toMatch(/failed \(503\)[\s\S]*after 2 retries/);
  });

  it('keeps the text of a stream cut midway, says so, and does not retry after text was shown', async () => {
    const { round, requests } = await askWith('cut');
    expect(requests).toHaveLength(1);
    expect(textOf(round)).toBe('The answer is f');
    expect(errorOf(round)).toMatch(/broke off before its reply was complete/);
    expect(round.state).toBe('failed');
    const clean = await askWith('cut-clean');
    expect(errorOf(clean.round)).toMatch(/closed before its reply was complete/);
  });

  it('says when the stream is malformed or the reply hit its length limit', async () => {
    expect(errorOf((await askWith('malformed')).round)).toMatch(/not a valid Chat Completions stream/);
    const long = await askWith('length');
    expect(errorOf(long.round)).toMatch(/finish_reason: length/);
    expect(textOf(long.round)).toContain('until the token limit');
  });
});

describe('ask: limits, approvals and stop', () => {
  it('runs at most maxRuns times', async () => {
    await endpoint.update({ maxRuns: 3 });
    try {
      const { round } = await askWith('run-forever');
      expect(round.events.filter((e) => e.type === 'code_start')).toHaveLength(3);
      expect(notesOf(round, 'limit')[0]).toMatchObject({ message: expect.stringContaining('at most 3 times') });
    } finally {
      await endpoint.update({ maxRuns: 8 });
    }
  });

  it('stops after 3 failed runs in a row, and after the same error twice', async () => {
    const failing = await askWith('fail-forever');
    expect(failing.round.events.filter((e) => e.type === 'code_start')).toHaveLength(3);
    expect(notesOf(failing.round, 'limit')[0]).toMatchObject({ message: expect.stringContaining('3 failed attempts in a row') });
    const same = await askWith('same-error');
    expect(same.round.events.filter((e) => e.type === 'code_start')).toHaveLength(2);
    expect(notesOf(same.round, 'limit')[0]).toMatchObject({ message: expect.stringContaining('same error came back 2 times') });
  });

  it('turning auto-run off during a round holds its next code card for approval', async () => {
    await endpoint.update({ maxRuns: 3 });
    try {
      let auto = true;
      const asked: number[] = [];
      const { round } = await askWith('run-forever', 'Go', {
        autoRun: () => auto,
        approve: async (card) => {
          asked.push(card.block);
          return { action: 'run' };
        },
        // The person unticks auto-run once the first card has run.
        onEvent: (event) => {
          if (event.type === 'code_start') auto = false;
        },
      });
      const cards = cardsOf(round);
      expect(cards).toHaveLength(3);
      expect(asked).toEqual([cards[1].block, cards[2].block]);
      await expect(ask(engine, 'main', 'Go', { endpoint, autoRun: () => true })).rejects.toThrow('needs an approve callback');
    } finally {
      await endpoint.update({ maxRuns: 8 });
    }
  });

  it('asks for approval when code does not run automatically: edit runs the edited code, skip is told to the model', async () => {
    await writeSessionPrefs(engine.settingsStore, 'main', { autoRun: false });
    try {
      const seen: string[] = [];
      const edited = await askWith('split-tool', 'Go', {
        approve: async (card) => {
          seen.push(card.status);
          return { action: 'edit', code: "print('edited by hand')" };
        },
      });
      expect(seen).toEqual(['proposed']);
      const [card] = cardsOf(edited.round);
      expect(card).toMatchObject({ status: 'ran', code: "print('edited by hand')", proposed: expect.stringContaining('sum(range(10))') });
      expect(edited.events.filter((e) => e.type === 'code_card').map((e) => e.type === 'code_card' && e.status)).toEqual(['proposed', 'edited', 'ran']);
      expect(toolMessages(edited.requests[1])[0]).toMatch(/edited your code[\s\S]*edited by hand/);
      expect(textOf(edited.round)).toBe('Answer: edited by hand');

      const skipped = await askWith('split-tool', 'Go', { approve: async () => ({ action: 'skip', reason: 'not now' }) });
      expect(cardsOf(skipped.round)[0].status).toBe('skipped');
      expect(skipped.round.events.some((e) => e.type === 'code_start')).toBe(false);
      expect(toolMessages(skipped.requests[1])[0]).toMatch(/chose not to run this code\. They said: not now/);
      await expect(ask(engine, 'main', 'Go', { endpoint })).rejects.toThrow('needs an approve callback');
    } finally {
      await writeSessionPrefs(engine.settingsStore, 'main', { autoRun: true });
    }
    expect((await readSessionPrefs(engine.settingsStore, 'main')).autoRun).toBe(true);
  });

  it('stops mid-stream: the text so far is kept and the round says it was stopped', async () => {
    const controller = new AbortController();
    const { round } = await askWith('slow-text', 'Go', {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'assistant_text') controller.abort();
      },
    });
    expect(round.state).toBe('stopped');
    expect(textOf(round).length).toBeGreaterThan(0);
    expect(textOf(round).length).toBeLessThan('Thinking slowly about your question, word by word, for a long time.'.length);
    expect(notesOf(round, 'stopped')).toHaveLength(1);
    expect((await new RoundHistory(db, 'main').list<Round>()).find((r) => r.id === round.id)?.state).toBe('stopped');
  });

  it('stops a run in flight through the engine, and the session goes on', async () => {
    // Pyodide runs in this test's own thread, so Stop cannot land while Python loops (the
    // browser's worker can: the end-to-end suite covers that). It lands here once the run is
    // handed to the engine and before Python starts, the same path through ask and engine.stop.
    const controller = new AbortController();
    const { round, requests } = await askWith('long-run', 'Go', {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'code_start') queueMicrotask(() => controller.abort());
      },
    });
    expect(round.state).toBe('stopped');
    expect(round.events.find((e) => e.type === 'exec_error')).toMatchObject({ error: { ename: 'KeyboardInterrupt' } });
    expect(round.events.some((e) => e.type === 'stdout' && e.text.includes('not stopped'))).toBe(false);
    expect(cardsOf(round)[0].status).toBe('ran');
    expect(notesOf(round, 'stopped')).toHaveLength(1);
    expect(requests).toHaveLength(1);
    expect((await engine.run('main', "'alive'")).result?.['text/plain']).toBe("'alive'");
  });

  it('fails clearly when no endpoint is set', async () => {
    const bare = await AssistantEndpoint.load(new SettingsStore(await openDb('assistant-test-bare')));
    const round = await ask(engine, 'main', 'Go', { endpoint: bare });
    expect(round.state).toBe('failed');
    expect(errorOf(round)).toMatch(/Base URL and Model/);
    const empty = await ask(engine, 'main', '  ', { endpoint });
    expect(errorOf(empty)).toMatch(/The question is empty/);
  });
});

describe('ask: two sessions, memory and the key', () => {
  const tags = { alice: ['apple', 'avocado', 'apricot'], bob: ['banana', 'blueberry'] };

  beforeAll(async () => {
    await engine.open('alice', { owner: 'alice-owner' });
    await engine.open('bob', { owner: 'bob-owner' });
  });

  it('answers two sessions asking at once, each from its own data, and each request names only its own', async () => {
    await endpoint.update({ model: 'seed' });
    const before = server.chats().length;
    const q = 'What are the unique tags in data.xlsx?';
    const file = (name: keyof typeof tags) => ({ name: 'data.xlsx', data: xlsx([['tag', 'n'], ...tags[name].flatMap((t, i) => [[t, i], [t, i + 1]])]) });
    const [a, b] = await Promise.all([
      ask(engine, 'alice', q, { endpoint, files: [file('alice')] }),
      ask(engine, 'bob', q, { endpoint, files: [file('bob')] }),
    ]);
    expect(textOf(a)).toBe(`The unique tags in data.xlsx are: ${[...tags.alice].sort().join(', ')}.`);
    expect(textOf(b)).toBe(`The unique tags in data.xlsx are: ${[...tags.bob].sort().join(', ')}.`);
    const requests = server.chats().slice(before);
    expect(requests).toHaveLength(4);
    for (const r of requests) {
      const body = JSON.stringify(r.body);
      const mine = body.includes('alice-owner') ? 'alice' : 'bob';
      const other = mine === 'alice' ? 'bob' : 'alice';
      expect(body).toContain(`${mine}-owner`);
      expect(body).not.toContain(`${other}-owner`);
      for (const t of tags[other]) expect(body).not.toContain(t);
    }
  });

  it('sends the session’s own earlier rounds as memory, trimmed to the budget, never another session’s', async () => {
    await sendMessage(engine, 'alice', "print('typed by alice')");
    const { requests } = await askWith('plain', 'And now?', {}, 'alice');
    const messages = requests[0].body!.messages;
    const all = JSON.stringify(messages);
    expect(all).toContain('What are the unique tags in data.xlsx?');
    expect(all).toContain("print('typed by alice')");
    expect(messages.find((m) => m.role === 'assistant' && String(m.content).startsWith('What it gave'))?.content).toBe('What it gave:\nprinted:\ntyped by alice');
    expect(all).not.toContain('bob-owner');
    for (const t of tags.bob) expect(all).not.toContain(t);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);

    await endpoint.update({ memoryTokens: 25 });
    try {
      const trimmed = (await askWith('plain', 'Once more', {}, 'alice')).requests[0].body!.messages;
      // Only the newest earlier round fits 25 tokens (100 characters): the question just before.
      expect(trimmed.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
      expect(trimmed[1].content).toBe('And now?');
    } finally {
      await endpoint.update({ memoryTokens: 1500 });
    }
  });

  it('keeps the key out of rounds and storage unless remembered, and remembers it only for its origin', async () => {
    const everything = async () => JSON.stringify([await db.getAll('settings'), await db.getAll('rounds')]);
    expect(await everything()).not.toContain(KEY);
    await endpoint.setKey(KEY, true);
    expect(await everything()).toContain(KEY);
    const again = await AssistantEndpoint.load(engine.settingsStore);
    expect(again.hasKey && again.remembered).toBe(true);
    await endpoint.setKey(KEY, false);
    expect(await everything()).not.toContain(KEY);
  });

  it('refuses any other origin, and forgets the key when the Base URL moves to another origin', async () => {
    const other = await startMockServer();
    try {
      const connection = endpoint.connection();
      await expect(connection.fetch(`${other.baseUrl}/models`)).rejects.toBeInstanceOf(OriginRefusedError);
      expect(other.requests).toHaveLength(0);

      await endpoint.setKey(KEY, true);
      await endpoint.update({ baseUrl: other.baseUrl, model: 'plain' });
      expect(endpoint.hasKey).toBe(false);
      expect(JSON.stringify(await db.getAll('settings'))).not.toContain(KEY);
      const round = await ask(engine, 'main', 'Hello?', { endpoint });
      expect(textOf(round)).toContain('Hello from the mock model');
      expect(other.requests.length).toBeGreaterThan(0);
      expect(other.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
      // The key's own server still sees it once it is given again for that origin.
      await endpoint.update({ baseUrl: server.baseUrl });
      await endpoint.setKey(KEY, false);
      expect((await askWith('plain')).requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      await other.close();
    }
  });

  it('sends no cookies or referrer, and the page’s headers CORS will ask about', async () => {
    const { requests } = await askWith('plain');
    expect(requests[0].headers.referer).toBeUndefined();
    expect(requests[0].headers.cookie).toBeUndefined();
    expect(Object.keys(requests[0].headers).some((h) => h.startsWith('x-stainless-'))).toBe(true);
  });

  it('forgets a session’s assistant choices with the session', async () => {
    await writeSessionPrefs(engine.settingsStore, 'bob', { mode: 'ask', autoRun: false });
    await deleteSessionData(db, 'bob');
    expect(await readSessionPrefs(engine.settingsStore, 'bob')).toEqual({ autoRun: true });
  });
});

describe('testConnection', () => {
  it('tells working, model not found, key refused and unreachable apart', async () => {
    await endpoint.update({ baseUrl: server.baseUrl, model: 'seed' });
    await endpoint.setKey(KEY, false);
    expect(await testConnection(endpoint)).toMatchObject({ status: 'ok', model: 'seed' });
    await endpoint.update({ model: 'gpt-nothing' });
    const missing = await testConnection(endpoint);
    expect(missing.status).toBe('model_not_found');
    expect(missing.models).toContain('seed');
    expect(missing.message).toMatch(/no model named “gpt-nothing”\. It has: plain, .*, and \d+ more\./);
    await endpoint.setKey('sk-bad-key-for-the-test', false);
    const refused = await testConnection(endpoint);
    expect(refused.status).toBe('key_refused');
    expect(refused.message).not.toContain('sk-bad-key-for-the-test');

    const closed = await startMockServer();
    const { baseUrl } = closed;
    await closed.close();
    await endpoint.update({ baseUrl, model: 'seed' });
    const down = await testConnection(endpoint, { pageOrigin: 'https://pytabs.example' });
    expect(down.status).toBe('unreachable');
    expect(down.message).toMatch(/Nothing answered at http:\/\/127\.0\.0\.1:\d+\..*Local Network Access/);
    await endpoint.update({ baseUrl: server.baseUrl });
    await endpoint.setKey(KEY, false);
  });
});
