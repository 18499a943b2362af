import { describe, expect, it } from 'vitest';
import { buildContext, estimateTokens } from '../../src/lib/assistant/context';
import { buildMemory, buildVerbatimMemory } from '../../src/lib/assistant/memory';
import { ToolCallJoiner } from '../../src/lib/assistant/stream';
import { APIError } from 'openai';
import { AssistantError } from '../../src/lib/assistant/assistant-error';
import { classifyRequestError, parseRetryAfter } from '../../src/lib/assistant/errors';
import { retryDelay, DEFAULT_RETRY } from '../../src/lib/assistant/retry';
import { scrubSecret } from '../../src/lib/assistant/endpoint';
import { guardedFetch, OriginRefusedError } from '../../src/lib/assistant/guarded-fetch';
import { corsFix, presetFor } from '../../src/lib/assistant/presets';
import { said, tellInEnglish } from '../../src/lib/i18n/said';
import { newRound } from '../../src/lib/chat/round';
import type { Round } from '../../src/lib/chat/types';

describe('context', () => {
  it('stays within its token budget however much the session holds, and says what it left out', () => {
    const files = Array.from({ length: 500 }, (_, i) => ({ path: `reports/region-${i}/data-${i}.xlsx`, size: 1000 + i, modifiedAt: 0 }));
    const variables = Array.from({ length: 300 }, (_, i) => ({
      name: `frame_${i}`,
      type: 'pandas.DataFrame',
      sizeBytes: 20_000,
      preview: `DataFrame 120×3: tag (object), n (int64), when (datetime64[ns]) ${'x'.repeat(200)}`,
      persisted: true,
      kind: 'pickle' as const,
    }));
    const sessionVars = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`key${i}`, 'v'.repeat(100)]));
    const text = buildContext({ files, variables, sessionVars, packageIndexUrl: '' }, 'tools', 2000);
    expect(estimateTokens(text)).toBeLessThanOrEqual(2000);
    expect(text).toMatch(/- … and \d+ more \(call list_files\)/);
    expect(text).toMatch(/- … and \d+ more \(call list_variables\)/);
    expect(text).toContain('reports/region-0/data-0.xlsx (1000 B)');
    expect(text).toContain('frame_0: pandas.DataFrame, 20 KB — DataFrame 120×3: tag (object)');
    expect(text).toContain('## Session variables (100)');
  });

  it('names the builtins, the package index and what the environment lacks', () => {
    const text = buildContext({ files: [], variables: [], sessionVars: {}, packageIndexUrl: 'https://school.example/pyodide/' }, 'fenced', 2000);
    for (const name of ['read_excel(', 'write_excel(', 'get_session_var(', 'display(']) expect(text).toContain(name);
    expect(text).toContain('https://school.example/pyodide/');
    expect(text).toContain('No network from code');
    expect(text).toContain('```python block');
  });
});

describe('memory', () => {
  const round = (seq: number, kind: 'ask' | undefined, message: string, reply: string): Round => {
    const r = newRound('s', seq, message, []);
    if (kind) r.kind = kind;
    r.state = 'finished';
    r.events = kind ? [{ type: 'assistant_text', step: 0, text: reply }] : [{ type: 'stdout', block: 0, text: reply }];
    return r;
  };

  it('keeps the newest rounds that fit, oldest first, as user/assistant pairs', () => {
    const rounds = [round(1, 'ask', 'first question', 'first answer'), round(2, undefined, 'x = 1', 'printed'), round(3, 'ask', 'third', 'third answer')];
    const all = buildMemory(rounds, 1000);
    expect(all.map((m) => m.content)).toEqual([
      'first question',
      'first answer',
      'I ran this code in the session myself:\n```python\nx = 1\n```',
      'What it gave:\nprinted:\nprinted',
      'third',
      'third answer',
    ]);
    expect(buildMemory(rounds, 5).map((m) => m.content)).toEqual(['third', 'third answer']);
    expect(buildMemory(rounds, 1)).toEqual([]);
  });

  it('for a small model: rounds word for word as sent, and when they outgrow the budget the oldest go down to half of it at once', () => {
    // A round of 100 characters: its question with the state (40), a call (22), the output (18), the answer (20).
    const asked = (seq: number): Round => {
      const r = round(seq, 'ask', `q${seq}`, 'answer');
      r.events.push({
        type: 'turns',
        messages: [
          { role: 'user', content: `## Variables\n(none)\n\n## Question\nq${seq}`.padEnd(40, '.') },
          { role: 'assistant', content: null, tool_calls: [{ id: `c${seq}`, type: 'function', function: { name: 'run_python', arguments: '{"code":"1"}' } }] },
          { role: 'tool', tool_call_id: `c${seq}`, content: 'o'.repeat(18) },
          { role: 'assistant', content: 'a'.repeat(20) },
        ],
      });
      return r;
    };
    const rounds = Array.from({ length: 9 }, (_, i) => asked(i + 1));
    expect(buildVerbatimMemory(rounds.slice(0, 1), 100)).toEqual((rounds[0].events[1] as { messages: unknown[] }).messages);
    // 400 characters of room: rounds 1-4 fit; the 5th makes the oldest go down to 200 (rounds 4-5);
    // they stay the start until the room is full again.
    const firstOf = (n: number) => (buildVerbatimMemory(rounds.slice(0, n), 100)[0].content as string).match(/q\d/)?.[0];
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map(firstOf)).toEqual(['q1', 'q1', 'q1', 'q1', 'q4', 'q4', 'q4', 'q7', 'q7']);
    // Each memory is the last one and the round after it, until the start moves.
    const six = buildVerbatimMemory(rounds.slice(0, 6), 100);
    expect(buildVerbatimMemory(rounds.slice(0, 7), 100).slice(0, six.length)).toEqual(six);
    // A round stopped or failed, or without its turns, is its short exchange.
    const stopped = asked(10);
    stopped.state = 'stopped';
    expect(buildVerbatimMemory([stopped], 100).map((m) => m.content)).toEqual(['q10', 'answer\n(stopped)']);
  });
});

describe('tool call joining', () => {
  it('joins OpenAI fragments by index and keeps Ollama calls that share index 0 apart by id', () => {
    const openai = new ToolCallJoiner((n) => `gen_${n}`);
    openai.add({ index: 0, id: 'a', type: 'function', function: { name: 'run_python', arguments: '{"co' } });
    openai.add({ index: 1, id: 'b', type: 'function', function: { name: 'list_files', arguments: '' } });
    openai.add({ index: 0, function: { arguments: 'de": "1"}' } });
    openai.add({ index: 1, function: { arguments: '{}' } });
    expect(openai.result).toEqual([
      { id: 'a', name: 'run_python', arguments: '{"code": "1"}' },
      { id: 'b', name: 'list_files', arguments: '{}' },
    ]);
    const ollama = new ToolCallJoiner((n) => `gen_${n}`);
    ollama.add({ index: 0, id: 'one', function: { name: 'run_python', arguments: '{"code":"1"}' } });
    ollama.add({ index: 0, id: 'two', function: { name: 'run_python', arguments: '{"code":"2"}' } });
    expect(ollama.result.map((c) => [c.id, c.arguments])).toEqual([
      ['one', '{"code":"1"}'],
      ['two', '{"code":"2"}'],
    ]);
    const anonymous = new ToolCallJoiner((n) => `gen_${n}`);
    anonymous.add({ index: 0, function: { name: 'list_files', arguments: '{}' } });
    expect(anonymous.result[0].id).toBe('gen_0');
  });
});

describe('retries', () => {
  it('reads retry-after in seconds, as a date and in milliseconds', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '3' }))).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4000)).toBe(6000);
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });

  it('retries 429 and 5xx at most twice, honouring the server, else backing off; never anything else', () => {
    const limited = new AssistantError('rate_limited', said('chat_err_stopped'), 429, 1500);
    expect([1, 2, 3].map((n) => retryDelay(limited, n, DEFAULT_RETRY))).toEqual([1500, 1500, null]);
    const server = new AssistantError('server', said('chat_err_stopped'), 502);
    expect([1, 2].map((n) => retryDelay(server, n, DEFAULT_RETRY))).toEqual([1000, 2000]);
    expect(retryDelay(new AssistantError('rate_limited', said('chat_err_stopped'), 429, 10 * 60_000), 1, DEFAULT_RETRY)).toBeNull();
    for (const kind of ['key_refused', 'quota', 'forbidden', 'cut', 'malformed'] as const) expect(retryDelay(new AssistantError(kind, said('chat_err_stopped')), 1, DEFAULT_RETRY)).toBeNull();
  });
});

describe('the key', () => {
  it('is scrubbed from text, with any bearer token', () => {
    expect(scrubSecret('bad key sk-abc123 and Bearer sk-abc123, Bearer other-token', 'sk-abc123')).toBe('bad key [API key hidden] and Bearer [hidden], Bearer [hidden]');
  });

  it('goes only to its own origin, replaces what the client put there, with no cookies, referrer or redirects', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const base = (async (url: string, init: RequestInit) => {
      seen.push({ url, init });
      return new Response('{}');
    }) as typeof fetch;
    let keyOrigin = 'https://api.example';
    const send = guardedFetch('https://api.example', () => 'sk-secret', () => keyOrigin, base);
    await send('https://api.example/v1/models', { headers: { Authorization: 'Bearer placeholder', 'X-Other': '1' } });
    const headers = new Headers(seen[0].init.headers);
    expect(headers.get('authorization')).toBe('Bearer sk-secret');
    expect(headers.get('x-other')).toBe('1');
    expect(seen[0].init).toMatchObject({ credentials: 'omit', referrerPolicy: 'no-referrer', redirect: 'error' });
    await expect(send('https://evil.example/v1/models')).rejects.toBeInstanceOf(OriginRefusedError);
    await expect(send('http://api.example/v1/models')).rejects.toBeInstanceOf(OriginRefusedError);
    expect(seen).toHaveLength(1);
    keyOrigin = 'https://other.example';
    await send('https://api.example/v1/models', { headers: { Authorization: 'Bearer placeholder' } });
    expect(new Headers(seen[1].init.headers).get('authorization')).toBeNull();
  });
});

describe('presets', () => {
  it('knows each server and its CORS switch', () => {
    expect(presetFor('http://localhost:11434/v1')).toBe('ollama');
    expect(presetFor('http://127.0.0.1:1234/v1')).toBe('lmstudio');
    expect(presetFor('http://localhost:8080/v1')).toBe('llamacpp');
    expect(presetFor('https://api.openai.com/v1')).toBe('openai');
    expect(presetFor('https://llm.school.example/v1')).toBe('custom');
    expect(tellInEnglish(corsFix('http://localhost:11434/v1', 'https://pytabs.example'))).toMatch(/OLLAMA_ORIGINS=https:\/\/pytabs\.example ollama serve.*Local Network Access/);
    expect(tellInEnglish(corsFix('http://localhost:1234/v1', 'http://localhost:4173'))).toBe('Switch on CORS in LM Studio: lms server start --cors (or Developer → Settings → Enable CORS).');
  });
});

describe('error messages', () => {
  const ctx = { origin: 'http://localhost:11434', model: 'llama3', scrub: (t: string) => t };
  const http = (status: number, body: object) => APIError.generate(status, body, undefined, new Headers());

  it('tells a missing model from a wrong Base URL', () => {
    const missing = classifyRequestError(http(404, { error: { message: 'model "llama3" not found, try pulling it first' } }), ctx);
    expect(missing.kind).toBe('model_not_found');
    expect(missing.message).toContain('no model named “llama3”');
    const path = classifyRequestError(http(404, { error: { message: '404 page not found' } }), ctx);
    expect(path.kind).toBe('not_found');
    expect(path.message).toContain('check the Base URL, which usually ends in /v1');
  });

  it('says what to fix for a refused key and an empty account, and keeps the server’s words out of a 401', () => {
    const refused = classifyRequestError(http(401, { error: { message: 'Incorrect API key provided: sk-abc' } }), ctx);
    expect(refused.kind).toBe('key_refused');
    expect(refused.message).not.toContain('sk-abc');
    expect(classifyRequestError(http(429, { error: { code: 'insufficient_quota', message: 'quota' } }), ctx).kind).toBe('quota');
    expect(classifyRequestError(http(400, { error: { message: 'gemma does not support tools' } }), ctx).kind).toBe('tools_unsupported');
  });
});
