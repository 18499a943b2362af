import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI, { AuthenticationError, InternalServerError, NotFoundError, RateLimitError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { startMockServer, type MockServer } from '../mock-openai/server';

// The mock server must speak the protocol as real servers do: the official client (which
// rejects, e.g., a stream whose first delta has no role) reads each scenario here, in Node.

const question = (model: string, extra: object = {}) => ({
  model,
  messages: [{ role: 'user' as const, content: 'What is in the data?' }],
  ...extra,
});

let server: MockServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startMockServer({ key: 'sk-mock-test-key' });
  client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-mock-test-key', maxRetries: 0 });
});

afterAll(() => server.close());

async function chunksOf(model: string, extra: object = {}): Promise<ChatCompletionChunk[]> {
  const stream = await client.chat.completions.create({ ...question(model, extra), stream: true });
  const out: ChatCompletionChunk[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe('mock OpenAI server, read by the official client', () => {
  it('streams plain text with the role first, a finish reason and usage when asked', async () => {
    const stream = client.chat.completions.stream({ ...question('plain'), stream_options: { include_usage: true } });
    const done = await stream.finalChatCompletion();
    expect(done.choices[0].message.content).toBe('Hello from the mock model. It has no code to run.');
    expect(done.choices[0].finish_reason).toBe('stop');
    expect(done.usage?.total_tokens).toBeGreaterThan(0);
    const chunks = await chunksOf('plain', { stream_options: { include_usage: true } });
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.at(-1)!.choices).toEqual([]);
  });

  it('joins a tool call split over many fragments', async () => {
    const chunks = await chunksOf('split-tool', { tools: [] });
    expect(chunks.filter((c) => c.choices[0]?.delta.tool_calls).length).toBeGreaterThan(10);
    const done = await client.chat.completions.stream(question('split-tool')).finalChatCompletion();
    const call = done.choices[0].message.tool_calls![0];
    expect(call.type === 'function' && call.function.name).toBe('run_python');
    expect(call.type === 'function' && JSON.parse(call.function.arguments).code).toContain('sum(range(10))');
    expect(done.choices[0].finish_reason).toBe('tool_calls');
  });

  it('sends two tool calls in one reply at indexes 0 and 1', async () => {
    const done = await client.chat.completions.stream(question('two-tools')).finalChatCompletion();
    const calls = done.choices[0].message.tool_calls!;
    expect(calls.map((c) => c.id)).toEqual(['call_a', 'call_b']);
    expect(calls.map((c) => c.type === 'function' && c.function.name)).toEqual(['run_python', 'list_files']);
  });

  it('sends Ollama-style parallel calls whole, all at index 0 with distinct ids', async () => {
    const chunks = await chunksOf('ollama-parallel');
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas.map((d) => [d.index, d.id])).toEqual([
      [0, 'call_one'],
      [0, 'call_two'],
    ]);
  });

  it('answers with a fenced python block, a length finish, and text after a tool result', async () => {
    const fenced = await client.chat.completions.stream(question('fenced')).finalChatCompletion();
    expect(fenced.choices[0].message.content).toMatch(/```python\n[\s\S]*print\('sum'/);
    const long = await chunksOf('length');
    expect(long.at(-1)!.choices[0].finish_reason).toBe('length');
    const after = await client.chat.completions.create({
      model: 'error-fix',
      messages: [
        { role: 'user', content: 'Go' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_bad', type: 'function', function: { name: 'run_python', arguments: '{"code":"x"}' } }] },
        { role: 'tool', tool_call_id: 'call_bad', content: 'The code failed: NameError' },
      ],
      stream: false,
    });
    expect(after.choices[0].message.content).toBe('');
  });

  it('refuses a wrong key with 401, echoing it as some servers do', async () => {
    const wrong = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-wrong-key-123', maxRetries: 0 });
    const error = await wrong.chat.completions.create({ ...question('plain'), stream: true }).catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toContain('sk-wrong-key-123');
  });

  it('limits with 429 and retry-after, then answers; fails with 500, then answers', async () => {
    const limited = await client.chat.completions.create({ ...question('rate-limit'), stream: true }).catch((e) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await chunksOf('rate-limit')).map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Answered after waiting.');
    const failed = await client.chat.completions.create({ ...question('flaky'), stream: true }).catch((e) => e);
    expect(failed).toBeInstanceOf(InternalServerError);
    expect((await chunksOf('flaky')).map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Answered after a server error.');
    const quota = await client.chat.completions.create({ ...question('insufficient-quota'), stream: true }).catch((e) => e);
    expect(quota.code).toBe('insufficient_quota');
  });

  it('cuts a stream midway, ends one without finishing, and sends malformed JSON', async () => {
    const got: string[] = [];
    const cut = await (async () => {
      for await (const c of await client.chat.completions.create({ ...question('cut'), stream: true })) got.push(c.choices[0]?.delta.content ?? '');
    })().catch((e) => e);
    expect(cut).toBeInstanceOf(Error);
    expect(got.join('')).toBe('The answer is f');
    const clean = await chunksOf('cut-clean');
    expect(clean.some((c) => c.choices[0]?.finish_reason)).toBe(false);
    const malformed = await chunksOf('malformed').catch((e) => e);
    expect(malformed).toBeInstanceOf(SyntaxError);
  });

  it('lists its models, and says when one does not exist', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('seed');
    const missing = await client.chat.completions.create({ ...question('no-such-model'), stream: true }).catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
  });

  it('answers a CORS preflight, reflecting the origin and the requested headers', async () => {
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:4173', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,x-stainless-os' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:4173');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization,content-type,x-stainless-os');
  });

  it('records every request with its headers and body', async () => {
    const before = server.chats().length;
    await chunksOf('plain');
    const last = server.chats().at(-1)!;
    expect(server.chats().length).toBe(before + 1);
    expect(last.headers.authorization).toBe('Bearer sk-mock-test-key');
    expect(last.headers['x-stainless-lang']).toBe('js');
    expect(last.body?.messages[0].content).toBe('What is in the data?');
  });
});
