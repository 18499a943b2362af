/**
 * A mock OpenAI-compatible server for the assistant's tests: Node http on 127.0.0.1 and a random
 * port, CORS as a browser wants it (preflight reflecting the requested headers, the origin
 * reflected), and scripted replies streamed in the real Chat Completions SSE format. The script is
 * chosen by the request's `model`, and a script sees the whole request, so that two sessions
 * asking at once get replies built from their own requests. Every request is recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-case header names, as Node gives them. */
  headers: Record<string, string>;
  /** The parsed JSON body, when there was one. */
  body?: ChatRequest;
}

export interface ChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { type: string; function: { name: string } }[];
  max_tokens?: number;
}

/** One streamed chunk's choice delta (the mock adds id, model, index and the envelope). */
export interface Delta {
  role?: 'assistant';
  content?: string;
  tool_calls?: { index: number; id?: string; type?: 'function'; function?: { name?: string; arguments?: string } }[];
}

export type Reply =
  | {
      kind: 'stream';
      deltas: Delta[];
      finish: 'stop' | 'tool_calls' | 'length' | null;
      /** Break the connection after this many deltas (a stream cut midway). */
      cutAfter?: number;
      /** Send this instead of a JSON chunk after the deltas (a malformed stream). */
      garbage?: string;
      /** Wait this long between deltas (for a Stop mid-stream). */
      delayMs?: number;
    }
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> };

export interface ScriptContext {
  /** The model's replies so far to the current question (assistant messages after it). */
  turn: number;
  /** How many times this model was asked at this turn by this server (counts retries). */
  attempt: number;
  /** The tool results and code outputs the model was given, latest last. */
  outputs: string[];
  /** The question: the last user message that is not a code output. */
  question: string;
  /** The request's headers (lower-case names). */
  headers: Record<string, string>;
}

export type Script = (request: ChatRequest, ctx: ScriptContext) => Reply;

export interface MockServerOptions {
  /** When set, chat and model requests need `Authorization: Bearer <key>`; others get 401. */
  key?: string;
  /** Answer CORS (default true); false makes every browser request fail as a CORS refusal. */
  cors?: boolean;
  /** Extra scripts by model name, beside SCRIPTS. */
  scripts?: Record<string, Script>;
}

export interface MockServer {
  /** The base URL to configure: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  origin: string;
  requests: RecordedRequest[];
  /** Chat requests only (POST /v1/chat/completions). */
  chats(): RecordedRequest[];
  close(): Promise<void>;
}

/** Splits a string into pieces of `size` characters: how a server streams arguments. */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

export function text(answer: string, finish: 'stop' | 'length' = 'stop'): Reply {
  return { kind: 'stream', deltas: pieces(answer, 7).map((content) => ({ content })), finish };
}

/** One run_python call whose arguments arrive in many small fragments (OpenAI style). */
export function runPython(code: string, id = 'call_run', index = 0, size = 5): Delta[] {
  const args = JSON.stringify({ code });
  return [
    { tool_calls: [{ index, id, type: 'function', function: { name: 'run_python', arguments: '' } }] },
    ...pieces(args, size).map((part) => ({ tool_calls: [{ index, function: { arguments: part } }] })),
  ];
}

export function toolCalls(deltas: Delta[]): Reply {
  return { kind: 'stream', deltas, finish: 'tool_calls' };
}

/** The stdout part of a run summary given back to the model. */
export function stdoutOf(output: string): string {
  const match = /stdout:\n([\s\S]*?)(\n\n|$)/.exec(output);
  return match ? match[1].trim() : '';
}

const answerWith = (ctx: ScriptContext) => text(`Answer: ${stdoutOf(ctx.outputs.at(-1) ?? '') || '(nothing printed)'}`);

/** The scripted scenarios, by model name. */
export const SCRIPTS: Record<string, Script> = {
  plain: () => text('Hello from the mock model. It has no code to run.'),
  'split-tool': (_r, ctx) =>
    ctx.turn === 0 ? toolCalls(runPython("total = sum(range(10))\nprint('total is', total)", 'call_split', 0, 3)) : answerWith(ctx),
  'two-tools': (_r, ctx) => {
    if (ctx.turn > 0) return text(`Ran: ${stdoutOf(ctx.outputs[0] ?? '')}. Files: ${(ctx.outputs[1] ?? '').replace(/\n/g, '; ')}.`);
    // Two calls in one reply, as OpenAI streams them: all of index 0's fragments, then index 1's.
    return toolCalls([
      ...runPython("print('first call')", 'call_a', 0),
      { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'list_files', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
    ]);
  },
  fenced: (_r, ctx) =>
    ctx.turn === 0
      ? text("I will compute it.\n\n```python\nvalues = [3, 4, 5]\nprint('sum', sum(values))\n```\n")
      : text(`The sum is ${stdoutOf(ctx.outputs.at(-1) ?? '').replace('sum ', '')}.`),
  'error-fix': (_r, ctx) => {
    if (ctx.turn === 0) return toolCalls(runPython("print(undefined_name + 1)", 'call_bad'));
    if (ctx.turn === 1) return toolCalls(runPython("fixed = 41 + 1\nprint('fixed', fixed)", 'call_fix'));
    return answerWith(ctx);
  },
  'bad-args': (_r, ctx) => {
    if (ctx.turn === 0) {
      return toolCalls([{ tool_calls: [{ index: 0, id: 'call_raw', type: 'function', function: { name: 'run_python', arguments: "print('not json')" } }] }]);
    }
    if (ctx.turn === 1) return toolCalls(runPython("print('now as json')", 'call_json'));
    return answerWith(ctx);
  },
  length: () => text('This reply goes on and on until the token limit cuts it', 'length'),
  'rate-limit': (_r, ctx) =>
    ctx.attempt === 1
      ? { kind: 'json', status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } } }
      : text('Answered after waiting.'),
  'insufficient-quota': () => ({
    kind: 'json',
    status: 429,
    body: { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', code: 'insufficient_quota' } },
  }),
  flaky: (_r, ctx) =>
    ctx.attempt === 1 ? { kind: 'json', status: 500, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error' } } } : text('Answered after a server error.'),
  'always-500': () => ({ kind: 'json', status: 503, body: { error: { message: 'Service unavailable', type: 'server_error' } } }),
  cut: () => ({ kind: 'stream', deltas: pieces('The answer is forty', 5).map((content) => ({ content })), finish: 'stop', cutAfter: 3 }),
  'cut-clean': () => ({ kind: 'stream', deltas: [{ content: 'Half an ans' }], finish: null }),
  malformed: () => ({ kind: 'stream', deltas: [{ content: 'Start' }], finish: 'stop', garbage: '{"choices": [ this is not json' }),
  'ollama-parallel': (_r, ctx) => {
    if (ctx.turn > 0) return text(`Both ran: ${ctx.outputs.map(stdoutOf).join(' and ')}`);
    // Whole calls, each with its own id, all at index 0 (some Ollama versions).
    const whole = (id: string, code: string): Delta => ({
      tool_calls: [{ index: 0, id, type: 'function', function: { name: 'run_python', arguments: JSON.stringify({ code }) } }],
    });
    return toolCalls([whole('call_one', "print('one')"), whole('call_two', "print('two')")]);
  },
  'no-tools': (request, ctx) => {
    if (request.tools?.length) return { kind: 'json', status: 400, body: { error: { message: 'registry.ollama.ai/library/tiny:1b does not support tools', type: 'api_error' } } };
    return ctx.turn === 0 ? text("```python\nprint('fenced', 6 * 7)\n```") : answerWith(ctx);
  },
  'fail-forever': (_r, ctx) => toolCalls(runPython(`raise ValueError('attempt ${ctx.turn}')`, `call_${ctx.turn}`)),
  'same-error': (_r, ctx) => toolCalls(runPython(`print(1 / 0)  # try ${ctx.turn}`, `call_${ctx.turn}`)),
  'run-forever': (_r, ctx) => toolCalls(runPython(`print('run ${ctx.turn}')`, `call_${ctx.turn}`)),
  'slow-text': () => ({ kind: 'stream', deltas: pieces('Thinking slowly about your question, word by word, for a long time.', 4).map((content) => ({ content })), finish: 'stop', delayMs: 400 }),
  /** Busy for 20 s unless stopped. */
  'long-run': (_r, ctx) =>
    ctx.turn === 0 ? toolCalls(runPython("import time\nt0 = time.time()\nwhile time.time() - t0 < 20:\n    pass\nprint('not stopped')", 'call_loop')) : text('Unreachable.'),
  'variables-tool': (_r, ctx) =>
    ctx.turn === 0
      ? toolCalls([{ tool_calls: [{ index: 0, id: 'call_vars', type: 'function', function: { name: 'list_variables', arguments: '' } }] }])
      : text(`Variables: ${ctx.outputs.at(-1)}`),
  /** A server that quotes the credentials it got in an error (the client must hide them). */
  'echo-key': (_r, ctx) => ({
    kind: 'json',
    status: 400,
    body: { error: { message: `Request with key ${(ctx.headers.authorization ?? '').replace(/^Bearer /, '')} is not allowed here`, type: 'invalid_request_error' } },
  }),
  /** The seed question: the code reads data.xlsx and prints its unique tags; the answer repeats them. */
  seed: (_r, ctx) =>
    ctx.turn === 0
      ? toolCalls(
          runPython(
            "rows = read_excel('data.xlsx', sheet_name=0)\ntags = sorted({r['tag'] for r in rows})\nprint(', '.join(tags))",
            'call_seed',
          ),
        )
      : text(`The unique tags in data.xlsx are: ${stdoutOf(ctx.outputs.at(-1) ?? '')}.`),
};

const OUTPUT_PREFIX = 'Output of your code:';

function contextOf(request: ChatRequest, headers: Record<string, string>, attempts: Map<string, number>): ScriptContext {
  const messages = request.messages ?? [];
  let q = messages.length - 1;
  while (q >= 0 && !(messages[q].role === 'user' && !String(messages[q].content ?? '').startsWith(OUTPUT_PREFIX))) q--;
  const after = messages.slice(q + 1);
  const turn = after.filter((m) => m.role === 'assistant').length;
  const outputs = after
    .filter((m) => m.role === 'tool' || (m.role === 'user' && String(m.content).startsWith(OUTPUT_PREFIX)))
    .map((m) => String(m.content ?? '').replace(OUTPUT_PREFIX, '').trim());
  const key = `${request.model}#${turn}#${String(messages[q]?.content ?? '')}`;
  const attempt = (attempts.get(key) ?? 0) + 1;
  attempts.set(key, attempt);
  return { turn, attempt, outputs, question: String(messages[q]?.content ?? ''), headers };
}

function estimate(request: ChatRequest): number {
  return Math.ceil(JSON.stringify(request.messages ?? []).length / 4);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const scripts = { ...SCRIPTS, ...options.scripts };
  const requests: RecordedRequest[] = [];
  const attempts = new Map<string, number>();
  const cors = options.cors ?? true;
  let serial = 0;

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0];
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
    let body: ChatRequest | undefined;
    try {
      body = raw ? (JSON.parse(raw) as ChatRequest) : undefined;
    } catch {
      body = undefined;
    }
    requests.push({ method: req.method ?? 'GET', path, headers, body });

    if (cors) {
      res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', 'retry-after, retry-after-ms, x-request-id');
    }
    if (req.method === 'OPTIONS') {
      if (cors) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
        res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? '');
        if (req.headers['access-control-request-private-network']) res.setHeader('Access-Control-Allow-Private-Network', 'true');
        res.setHeader('Access-Control-Max-Age', '0');
      }
      res.writeHead(204).end();
      return;
    }
    const json = (status: number, value: unknown, extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...extra }).end(JSON.stringify(value));
    };
    if (options.key && headers.authorization !== `Bearer ${options.key}`) {
      // Like some real servers, this one echoes the key it was sent: the client must never show it.
      const sent = headers.authorization?.replace(/^Bearer /, '') ?? '';
      return json(401, { error: { message: `Incorrect API key provided: ${sent}.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return json(200, { object: 'list', data: Object.keys(scripts).map((id) => ({ id, object: 'model', created: 0, owned_by: 'mock' })) });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions' || !body) return json(404, { error: { message: `No route ${req.method} ${path}`, type: 'invalid_request_error' } });
    const script = scripts[body.model];
    if (!script) return json(404, { error: { message: `The model \`${body.model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found' } });

    const reply = script(body, contextOf(body, headers, attempts));
    if (reply.kind === 'json') return json(reply.status, reply.body, reply.headers);
    const id = `chatcmpl-mock-${++serial}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (choices: unknown[], extra: object = {}) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra })}\n\n`;
    if (!body.stream) {
      const content = reply.deltas.map((d) => d.content ?? '').join('');
      return json(200, {
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: reply.finish ?? 'stop', logprobs: null }],
        usage: { prompt_tokens: estimate(body), completion_tokens: 1, total_tokens: estimate(body) + 1 },
      });
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    // Each write is flushed before the next step, so a cut comes after what was sent, as on a real network.
    const send = (data: string) => new Promise<void>((resolve) => res.write(data, () => resolve()));
    await send(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]));
    let sent = 0;
    for (const delta of reply.deltas) {
      if (reply.delayMs) await sleep(reply.delayMs);
      if (res.destroyed) return;
      if (reply.cutAfter !== undefined && sent >= reply.cutAfter) {
        res.socket?.destroy();
        return;
      }
      await send(chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]));
      sent++;
    }
    if (reply.garbage) {
      res.write(`data: ${reply.garbage}\n\n`);
      res.end();
      return;
    }
    if (reply.finish === null) {
      res.end();
      return;
    }
    res.write(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: reply.finish }]));
    if (body.stream_options?.include_usage) {
      const completion = reply.deltas.reduce((n, d) => n + Math.ceil((d.content?.length ?? 0) / 4) + (d.tool_calls ? 5 : 0), 0);
      res.write(chunk([], { usage: { prompt_tokens: estimate(body), completion_tokens: completion, total_tokens: estimate(body) + completion } }));
    }
    res.write('data: [DONE]\n\n');
    res.end();
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    requests,
    chats: () => requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
