import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { openDb } from '../../src/lib/storage/db';
import { ask } from '../../src/lib/assistant/ask';
import { AssistantEndpoint, LOCAL_BASE_URL, localConnection } from '../../src/lib/assistant/endpoint';
import { AnswerReader, chatMessages, fitMessages, localFetch, turnSchema, type LocalTransport } from '../../src/lib/assistant/local-fetch';
import { tellInEnglish } from '../../src/lib/i18n/said';
import { setLocale } from '../../src/lib/i18n/catalog';
import { TOOLS } from '../../src/lib/assistant/tools';
import type { Round, RoundEvent } from '../../src/lib/chat/types';
import type { ChatMessage, CompletionResult, JsonSchemaFormat, LocalModel, ModelInfo } from '../../src/lib/local-model/client';
import { PromptTooLong } from '../../src/lib/local-model/worker-api';
import { startMockServer, stdoutOf, type MockServer } from '../mock-openai/server';
import { PyodideEngine } from './assistant-engine';

// The model in this browser behind the `fetch` the `openai` client is given (local-fetch.ts).
// wllama needs a browser, so here the model is scripted: it writes the turns the mock server's
// 'split-tool' script streams (a run_python call, then an answer with the output), in the JSON a
// constrained local turn has. A round through it must record what the endpoint path records.
// The real model runs in tests/e2e/local-model.spec.ts.

const INFO: ModelInfo = {
  name: 'scripted',
  architecture: 'qwen2',
  fileBytes: 1,
  nCtx: 2048,
  nCtxTrain: 2048,
  nVocab: 515,
  nLayer: 2,
  nEmbd: 64,
  threads: 1,
  threadsReason: { key: 'rtw_model_one_thread_isolation' },
  backend: 'cpu',
  backendReason: { key: 'rtw_model_cpu_off' },
  build: 'default',
  buildReason: null,
  chatTemplate: true,
  loadMs: 0,
  buffers: { model: 0, kv: 0, compute: 0, output: 0 },
};

/** Writes a turn's JSON in pieces, as sampling delivers it; counts prompt "tokens" as characters / 2. */
class ScriptedModel implements LocalModel {
  readonly info = INFO;
  readonly busy = false;
  readonly unloaded = false;
  readonly prompts: ChatMessage[][] = [];
  /** The text of each turn it wrote, in the order of `prompts`. */
  readonly replies: string[] = [];
  /** Prompts sent for one token after a round: the next question's start, read ahead. */
  readonly readAheads: ChatMessage[][] = [];
  /** When set, a prompt longer than this many tokens is refused as llama.cpp does. */
  contextTokens = Infinity;

  async chat(): Promise<CompletionResult> {
    throw new Error('a turn with tools is sampled under the schema');
  }

  async json(messages: ChatMessage[], format: JsonSchemaFormat, options: { onText?: (text: string) => void; maxTokens?: number; background?: boolean } = {}) {
    const tokens = Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 2);
    if (tokens > this.contextTokens) throw new PromptTooLong(tokens, this.contextTokens);
    // Read ahead in the background, so that any question stops it; a question never is.
    expect(options.background ?? false).toBe(options.maxTokens === 1);
    if (options.maxTokens === 1) {
      this.readAheads.push(messages);
      return { text: '', value: undefined, finish: 'length' as const, completionTokens: 1, pieces: 0, promptTokens: tokens, cachedTokens: 0, promptMs: 1, decodeMs: 1, ms: 2 };
    }
    this.prompts.push(messages);
    expect(format.schema).toEqual(turnSchema(TOOLS));
    // Each question: a run first, then an answer with its output.
    const output = messages.at(-1)?.content.startsWith('Output of run_python:') ? messages.at(-1) : undefined;
    const turn = output
      ? { name: 'answer', arguments: { text: `Answer: ${stdoutOf(output.content.replace(/^Output of run_python:\n/, '')) || '(nothing printed)'}` } }
      : { name: 'run_python', arguments: { code: "total = sum(range(10))\nprint('total is', total)" } };
    // Spaced as a model writes it, not as JSON.stringify would write it again.
    const text = JSON.stringify(turn, null, 1);
    this.replies.push(text);
    for (let i = 0; i < text.length; i += 3) options.onText?.(text.slice(i, i + 3));
    return { text, value: turn, finish: 'stop' as const, completionTokens: text.length, pieces: Math.ceil(text.length / 3), promptTokens: tokens, cachedTokens: 0, promptMs: 1, decodeMs: 1, ms: 2 };
  }

  async unload(): Promise<void> {}
}

/** An endpoint whose connection is the local adapter over `model` (the page's would load a kept file). */
function localEndpoint(base: AssistantEndpoint, model: LocalModel, notes: string[] = []): AssistantEndpoint {
  const transport: LocalTransport = { model: async () => model, onCut: (note) => notes.push(tellInEnglish(note)) };
  // What ask() uses of an endpoint: its settings, whether it is set up, its connection (for a session, maybe in the background).
  const connection = (options: { session?: string; background?: boolean } = {}) => localConnection('scripted', { ...transport, session: options.session, background: options.background });
  return { settings: base.settings, configured: true, connection } as unknown as AssistantEndpoint;
}

/** What a person and the stored round see of a round, without timings and token counts. */
function shape(round: Round) {
  return round.events
    // `turns`: kept for a small model's next question only (memory.ts).
    .filter((e) => !['usage', 'context_sent', 'round_start', 'round_end', 'turns'].includes(e.type))
    .map((e: RoundEvent) => {
      const { ...copy } = e as Record<string, unknown>;
      delete copy.durationMs;
      delete copy.at;
      if (e.type === 'tool_result' || e.type === 'code_card') delete copy.callId;
      return copy;
    });
}

let server: MockServer;
let engine: PyodideEngine;
let endpoint: AssistantEndpoint;

beforeAll(async () => {
  const db = await openDb('local-fetch-test');
  engine = new PyodideEngine(db);
  server = await startMockServer();
  await engine.open('endpoint');
  await engine.open('local');
  endpoint = await AssistantEndpoint.load(engine.settingsStore);
  await endpoint.update({ baseUrl: server.baseUrl, model: 'split-tool' });
});

afterAll(() => server.close());

describe('the local model behind the endpoint interface', () => {
  it('records the same round as an endpoint streaming the same turns: code card, run in the session, output back, answer', async () => {
    const viaEndpoint = await ask(engine, 'endpoint', 'Add up 0..9', { endpoint, autoRun: true });
    const model = new ScriptedModel();
    const streamed: string[] = [];
    const viaLocal = await ask(engine, 'local', 'Add up 0..9', {
      endpoint: localEndpoint(endpoint, model),
      autoRun: true,
      onEvent: (e) => e.type === 'assistant_text' && streamed.push(e.text),
    });
    expect(viaEndpoint.state).toBe('finished');
    expect(viaLocal.state).toBe('finished');
    expect(shape(viaLocal)).toEqual(shape(viaEndpoint));
    expect(shape(viaLocal).find((e) => e.type === 'assistant_text')).toMatchObject({ text: 'Answer: total is 45' });
    // The answer streamed out of its JSON in pieces, not at the end.
    expect(streamed.length).toBeGreaterThan(3);
    expect(streamed.join('')).toBe('Answer: total is 45');
    // The run's output was in the model's second prompt, as the endpoint's second request had it.
    expect(model.prompts).toHaveLength(2);
    expect(model.prompts[1].at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('total is 45') });
    expect(model.prompts[1].at(-2)?.content).toContain('"name": "run_python"');
    // A short system message, the same in every request (the format, then the fixed head); the
    // session's files and variables come with the question.
    const system = model.prompts[0][0].content;
    expect(system.length).toBeLessThan(1200);
    expect(model.prompts[1][0].content).toBe(system);
    expect(system).toMatch(/^## How to reply\n/);
    expect(system).not.toContain('## Workspace files');
    expect(model.prompts[0][1]).toMatchObject({ role: 'user', content: expect.stringMatching(/^## Workspace files[^]*## Variables[^]*\n\n## Question\nAdd up 0\.\.9$/) });
    // The code ran in the local session, not the other.
    expect((await engine.listVariables('local')).map((v) => v.name)).toContain('total');
  });

  it('each prompt is the last one and its reply, word for word, with only what is new after it: across turns, rounds, and another session’s rounds in between', async () => {
    const model = new ScriptedModel();
    const chatML = (messages: ChatMessage[]) => messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
    const asked = (session: string, question: string) => ask(engine, session, question, { endpoint: localEndpoint(endpoint, model), autoRun: true });
    await engine.open('follow');
    await engine.open('neighbour');
    const sessionOf: string[] = [];
    // After each round, the next question's start is read ahead (one token asked for).
    const aheadOf = new Map<string, ChatMessage[]>();
    const track = async (session: string, question: string) => {
      const before = model.prompts.length;
      const ahead = aheadOf.get(session);
      expect((await asked(session, question)).state).toBe('finished');
      for (let i = before; i < model.prompts.length; i++) sessionOf[i] = session;
      // What was read ahead is where this question's prompt starts, up to the question itself.
      if (ahead) expect(chatML(model.prompts[before]).startsWith(chatML(ahead).replace(/<\|im_end\|>\n<\|im_start\|>assistant\n$/, ''))).toBe(true);
      const aheads = model.readAheads.length;
      await vi.waitFor(() => expect(model.readAheads.length).toBe(aheads + 1));
      aheadOf.set(session, model.readAheads.at(-1)!);
      expect(model.readAheads.at(-1)!.at(-1)?.content).toMatch(/\n\n## Question\n$/);
    };
    await track('follow', 'Add up 0..9');
    // Its code made a variable: the next question's state differs, and nothing before it does.
    expect((await engine.listVariables('follow')).map((v) => v.name)).toContain('total');
    await track('neighbour', 'What is in the neighbour session?');
    await track('follow', 'And what is it doubled?');
    await track('follow', 'And halved?');
    const follow = sessionOf.flatMap((session, i) => (session === 'follow' ? [i] : []));
    expect(follow).toHaveLength(6);
    for (const [k, i] of follow.slice(1).entries()) {
      const last = follow[k];
      const prompt = chatML(model.prompts[i]);
      const before = chatML(model.prompts[last]) + model.replies[last];
      // Where they part, if they do (the test's message then says where).
      let same = 0;
      while (same < before.length && prompt[same] === before[same]) same++;
      expect(prompt.slice(Math.max(0, same - 80), Math.min(same + 80, before.length))).toBe(before.slice(Math.max(0, same - 80), same + 80));
      // What is new: the end of the reply's turn and the tool's output, or the next question.
      const added = prompt.slice(chatML(model.prompts[last]).length + model.replies[last].length);
      expect(added.length).toBeLessThan(700);
    }
    // The other session's text never reaches this one's prompts, nor this one's the other's.
    for (const i of follow) expect(chatML(model.prompts[i])).not.toContain('neighbour');
    const neighbour = model.prompts.findIndex((_, i) => sessionOf[i] === 'neighbour');
    expect(chatML(model.prompts[neighbour])).not.toContain('Add up 0..9');
  });

  it('its fixed prefix is one per language: after a change of language a question starts with that language’s system message, never the prefix read ahead in the other', async () => {
    const model = new ScriptedModel();
    const chatML = (messages: ChatMessage[]) => messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('');
    await engine.open('languages');
    const asked = async (question: string) => {
      const before = model.prompts.length;
      const aheads = model.readAheads.length;
      expect((await ask(engine, 'languages', question, { endpoint: localEndpoint(endpoint, model), autoRun: true })).state).toBe('finished');
      await vi.waitFor(() => expect(model.readAheads.length).toBe(aheads + 1));
      return { first: model.prompts[before], ahead: model.readAheads.at(-1)! };
    };
    try {
      const english = await asked('Add up 0..9');
      expect(english.first[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Answer in English') });
      expect(english.ahead[0].content).toBe(english.first[0].content);

      await setLocale('fr');
      const french = await asked('Et le double ?');
      expect(french.first[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Answer in French (Français)') });
      expect(french.first[0].content).not.toContain('Answer in English');
      // The English prefix the model read ahead is not where the French question starts.
      expect(chatML(french.first).startsWith(chatML(english.ahead.slice(0, -1)))).toBe(false);
      expect(french.ahead[0].content).toBe(french.first[0].content);

      // Another French question reuses the French prefix, read ahead word for word.
      const again = await asked('Et la moitié ?');
      expect(chatML(again.first).startsWith(chatML(french.ahead.slice(0, -1)))).toBe(true);

      await setLocale('en');
      const back = await asked('And in English?');
      expect(back.first[0].content).toBe(english.first[0].content);
    } finally {
      await setLocale('en');
    }
  });

  it('fits a prompt the model refused as too long, and the round says what was left out', async () => {
    const model = new ScriptedModel();
    const notes: string[] = [];
    // Earlier rounds in this session make the prompt long.
    for (let i = 0; i < 3; i++) await ask(engine, 'local', `Question ${i}: ${'tell me about the data '.repeat(40)}`, { endpoint: localEndpoint(endpoint, model), autoRun: true });
    model.contextTokens = 900;
    const round = await ask(engine, 'local', 'Add up 0..9', { endpoint: localEndpoint(endpoint, model, notes), autoRun: true });
    expect(round.state).toBe('finished');
    expect(notes[0]).toMatch(/^To fit the model’s context of 900 tokens, left out earlier messages of this session \(\d+\)/);
    const last = model.prompts.at(-1)!;
    expect(last.reduce((n, m) => n + m.content.length, 0) / 2).toBeLessThanOrEqual(900);
    expect(last.some((m) => m.content.includes('Question 0'))).toBe(false);
  });
});

describe('room for the reply', () => {
  it('fits each prompt with room for its reply, from the tokens llama.cpp counted in the last one, before anything is refused', async () => {
    const model = new ScriptedModel();
    Object.assign(model, { info: { ...INFO, nCtx: 1000 } });
    const fetchLocal = localFetch({ model: async () => model });
    const body = (extra: number) => ({
      model: 'scripted',
      tools: TOOLS,
      messages: [
        { role: 'system', content: 'You are the assistant.' },
        { role: 'user', content: `Earlier question ${'x'.repeat(500)}` },
        { role: 'assistant', content: 'Earlier answer' },
        { role: 'user', content: `Sum it ${'y'.repeat(extra)}` },
      ],
    });
    await fetchLocal(`${LOCAL_BASE_URL}/chat/completions`, { method: 'POST', body: JSON.stringify(body(600)) });
    // About 900 tokens would leave the reply under its quarter of the context: the earlier round goes.
    await fetchLocal(`${LOCAL_BASE_URL}/chat/completions`, { method: 'POST', body: JSON.stringify(body(1000)) });
    const last = model.prompts.at(-1)!;
    expect(last.some((m) => m.content.startsWith('Earlier question'))).toBe(false);
    expect(last.reduce((n, m) => n + m.content.length, 0) / 2).toBeLessThanOrEqual(750);
  });
});

describe('its parts', () => {
  it('a turn is a call of one of the tools or an answer, nothing else', () => {
    const schema = turnSchema(TOOLS) as { anyOf: { properties: { name: { const: string }; arguments: Record<string, unknown> } }[] };
    expect(schema.anyOf.map((b) => b.properties.name.const)).toEqual(['run_python', 'list_variables', 'list_files', 'answer']);
    expect(schema.anyOf[0].properties.arguments).toEqual({
      type: 'object',
      properties: { code: { type: 'string', description: 'The Python code to run.', minLength: 1 } },
      required: ['code'],
      additionalProperties: false,
    });
    expect(schema.anyOf[1].properties.arguments).toMatchObject({ properties: {}, additionalProperties: false });
  });

  it('the model sees its own calls in its JSON, and outputs as user messages naming the tool', () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are the assistant.' },
      { role: 'user', content: 'Earlier question' },
      { role: 'assistant', content: 'Earlier answer' },
      { role: 'user', content: 'Sum it' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run_python', arguments: '{"code":"print(1)"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'stdout:\n1' },
    ];
    const chat = chatMessages(messages, TOOLS);
    expect(chat.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(chat[0].content).toMatch(/^## How to reply\n[^]*\n\nYou are the assistant\.$/);
    expect(JSON.parse(chat[2].content)).toEqual({ name: 'answer', arguments: { text: 'Earlier answer' } });
    expect(JSON.parse(chat[4].content)).toEqual({ name: 'run_python', arguments: { code: 'print(1)' } });
    expect(chat[5].content).toBe('Output of run_python:\nstdout:\n1');
    // Without tools, plain chat.
    expect(chatMessages(messages.slice(0, 3), [])[0].content).toBe('You are the assistant.');

    // Fitting: earlier rounds go first, then older outputs; the question and the last output stay.
    const long: ChatCompletionMessageParam[] = [
      ...messages.slice(0, 4),
      { role: 'assistant', content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name: 'run_python', arguments: '{"code":"x"}' } }] },
      { role: 'tool', tool_call_id: 'c0', content: 'o'.repeat(2000) },
      ...messages.slice(4),
    ];
    const whole = chatMessages(long, TOOLS).reduce((n, m) => n + m.content.length + 16, 0);
    expect(fitMessages(long, TOOLS, whole).cut).toBeNull();
    const fitted = fitMessages(long, TOOLS, whole - 500);
    expect(tellInEnglish(fitted.cut!)).toBe('earlier messages of this session (2) and the output of earlier runs (1)');
    expect(fitted.messages.map((m) => m.content)).toContain('Output of run_python:\n[output left out to fit the model’s context]');
    expect(fitted.messages.at(-1)?.content).toBe('Output of run_python:\nstdout:\n1');
    expect(fitted.messages[1].content).toBe('Sum it');
  });

  it('reads an answer out of its JSON while it streams, escapes split across pieces included', () => {
    const text = JSON.stringify({ name: 'answer', arguments: { text: 'Line one\n"quoted" \u00e9 done' } }, null, 2);
    for (const size of [1, 2, 5, 50]) {
      const reader = new AnswerReader();
      let out = '';
      for (let i = 0; i < text.length; i += size) out += reader.add(text.slice(i, i + size));
      expect(out).toBe('Line one\n"quoted" é done');
    }
    const call = new AnswerReader();
    expect(call.add('{"name": "run_python", "arguments": {"code": "print(1)"}}')).toBe('');
  });

  it('answers the client’s model list, and refuses what it does not serve', async () => {
    const fetchLocal = localFetch({ model: async () => new ScriptedModel() });
    const listed = await (await fetchLocal(`${LOCAL_BASE_URL}/models`)).json();
    expect(listed.data.map((m: { id: string }) => m.id)).toEqual(['scripted']);
    const other = await fetchLocal(`${LOCAL_BASE_URL}/embeddings`, { method: 'POST', body: '{}' });
    expect(other.status).toBe(404);
    expect((await other.json()).error.message).toContain('chat completions only');
  });
});
