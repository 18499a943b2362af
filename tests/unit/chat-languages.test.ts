import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/lib/storage/db';
import { SettingsStore } from '../../src/lib/storage/settings';
import type { Round } from '../../src/lib/chat/types';
import { ask } from '../../src/lib/assistant/ask';
import { AssistantEndpoint } from '../../src/lib/assistant/endpoint';
import { setLocale } from '../../src/lib/i18n/catalog';
import { tellText } from '../../src/lib/i18n/text';
import { startMockServer, type MockServer } from '../mock-openai/server';
import { PyodideEngine } from './assistant-engine';

// Issue 43 for the chat and the assistant: a round keeps PyTabs' own texts said, so it reads in
// the language of whoever opens it (rounds kept as English words before still show them); the
// model is told, in its system message, which language to answer in. Real catalogs, real
// IndexedDB (fake-indexeddb), real Pyodide, the official client over HTTP to the mock server.

const KEY = 'sk-test-languages-0123456789';
let engine: PyodideEngine;
let server: MockServer;
let endpoint: AssistantEndpoint;

/** What the reply shows of a kept text, as RoundView and AskReply tell it. */
const saidTexts = (round: Round) =>
  round.events.flatMap((e) => (e.type === 'round_error' || e.type === 'assistant_note' ? [tellText(e.message)] : []));

beforeAll(async () => {
  engine = new PyodideEngine(await openDb('chat-languages-test'));
  server = await startMockServer({ key: KEY });
  await engine.open('main');
  endpoint = await AssistantEndpoint.load(engine.settingsStore);
  await endpoint.update({ baseUrl: server.baseUrl, model: 'plain' });
  await endpoint.setKey(KEY, false);
});

afterEach(() => setLocale('en'));
afterAll(() => server.close());

describe('a kept round in the reader’s language', () => {
  it('PyTabs’ own texts of rounds asked in English read in French after setLocale("fr"), read back from storage; old English stays as it was', async () => {
    const bare = await AssistantEndpoint.load(new SettingsStore(await openDb('chat-languages-bare')));
    await ask(engine, 'main', 'What is in the data?', { endpoint: bare });
    await endpoint.update({ model: 'always-500' });
    await ask(engine, 'main', 'And now?', { endpoint, retry: { baseMs: 5 } });
    await endpoint.update({ model: 'plain' });

    const kept = (await engine.history('main').list<Round>()).slice(-2);
    expect(kept.map(saidTexts)).toEqual([
      ['Set the assistant’s Base URL and Model in Settings → Assistant first.'],
      [
        expect.stringMatching(/^The model endpoint failed \(503\)\. The server said: “Service unavailable” Trying again in \d+ s \(retry 1 of 2\)\.$/),
        expect.stringMatching(/^The model endpoint failed \(503\)\. The server said: “Service unavailable” Trying again in \d+ s \(retry 2 of 2\)\.$/),
        'The model endpoint failed (503). The server said: “Service unavailable” It still failed after 2 retries; wait a moment and ask again.',
      ],
    ]);

    await setLocale('fr');
    const french = kept.map(saidTexts);
    expect(french).toEqual([
      ['Indiquez d’abord l’URL de base et le Modèle de l’assistant dans Réglages → Assistant.'],
      [
        // The server's own words stay as it wrote them.
        expect.stringMatching(/^Le point d’accès du modèle a échoué \(503\)\. Le serveur a répondu : « Service unavailable » Nouvel essai dans \d+ s \(essai 1 sur 2\)\.$/),
        expect.stringMatching(/^Le point d’accès du modèle a échoué \(503\)\. Le serveur a répondu : « Service unavailable » Nouvel essai dans \d+ s \(essai 2 sur 2\)\.$/),
        'Le point d’accès du modèle a échoué (503). Le serveur a répondu : « Service unavailable » Toujours en échec après 2 nouveaux essais ; attendez un moment et redemandez.',
      ],
    ]);
    for (const text of french.flat()) expect(text).not.toMatch(/\b(the|Settings|Trying|failed|retry)\b/);

    // A round kept before texts were said holds English words: they show as they were.
    const old: Round = { ...kept[0], events: [{ type: 'round_error', message: 'The question is empty: type what you want to know.' }] };
    expect(saidTexts(old)).toEqual(['The question is empty: type what you want to know.']);
  });
});

describe('the assistant answers in the person’s language', () => {
  it('the system message names the language PyTabs is shown in, as the endpoint receives it', async () => {
    const systemOf = () => String(server.chats().at(-1)!.body!.messages[0].content);
    expect((await ask(engine, 'main', 'Say hello', { endpoint })).state).toBe('finished');
    expect(server.chats().at(-1)!.body!.messages[0].role).toBe('system');
    expect(systemOf()).toContain('Answer in English, the language the person reads PyTabs in');
    await setLocale('fr');
    expect((await ask(engine, 'main', 'Dis bonjour', { endpoint })).state).toBe('finished');
    expect(systemOf()).toContain('Answer in French (Français), the language the person reads PyTabs in');
    expect(systemOf()).not.toContain('Answer in English');
    await setLocale('zh-CN');
    await ask(engine, 'main', '你好', { endpoint });
    expect(systemOf()).toContain('Answer in Simplified Chinese (简体中文)');
  });
});
