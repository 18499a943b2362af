import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage, CompletionResult, LocalModel } from '../local-model/client';
import { promptTooLong } from '../local-model/worker-api';
import { AssistantError } from './assistant-error';
import { said, SaidError, type Said, type SaidValue } from '../i18n/said';

/** A failure's own words: said when PyTabs wrote it, else as it came. */
function reason(error: unknown): SaidValue {
  if (error instanceof SaidError) return error.said;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The local model as an OpenAI-compatible server, behind the `fetch` the `openai` client is
 * given: the assistant's loop, its errors, retries and stored rounds are the endpoint's, unchanged.
 * Only what that loop sends is answered: GET /models and POST /chat/completions (streamed or not).
 *
 * Small models do not follow tool schemas reliably, so when the request has tools each turn is
 * sampled under a JSON schema (llama.cpp turns it into a grammar): one object naming a tool and
 * its arguments, or "answer" with the text. It parses by construction; an answer's text streams
 * as it is sampled, and a call arrives whole as the stream's tool call.
 */

/** What a turn is sent to: the page's loaded model, and where to tell what was cut to fit it. */
export interface LocalTransport {
  /** The model, loaded on first use; the signal stops a load in progress. */
  model(signal?: AbortSignal): Promise<LocalModel>;
  /** Told, once per request that needed it, what was left out so that the prompt fits the model's context. */
  onCut?(note: Said): void;
  /** The session the requests are for: the model's own turn texts are kept per session. */
  session?: string;
  /** Requests done ahead of a question (the read-ahead): any other request stops them. */
  background?: boolean;
}

/** The turn's JSON when the model answers in words. */
export const ANSWER = 'answer';
/** Tokens kept free for the reply, at most (a quarter of a small context). */
const REPLY_TOKENS = 1024;
/** Attempts to fit a prompt the model refused as too long (each learns the tokens per character). */
const FIT_ATTEMPTS = 3;
/** What replaces a run's output that was left out. */
const LEFT_OUT = '[output left out to fit the model’s context]';

interface RequestBody {
  model?: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  stream?: boolean;
  max_tokens?: number;
}

/** The schema of one turn: a call of one of the tools, or an answer. */
export function turnSchema(tools: ChatCompletionTool[]): Record<string, unknown> {
  const calls = tools.flatMap((tool) => (tool.type === 'function' ? [tool.function] : []));
  const branch = (name: string, args: Record<string, unknown>) => ({
    type: 'object',
    properties: { name: { const: name }, arguments: args },
    required: ['name', 'arguments'],
    additionalProperties: false,
  });
  return {
    anyOf: [
      ...calls.map((call) => branch(call.name, strictParameters(call.parameters as Record<string, unknown> | undefined))),
      branch(ANSWER, strictParameters({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })),
    ],
  };
}

/** A tool's parameters with nothing else allowed, and required strings not empty (an empty call is no call). */
function strictParameters(parameters: Record<string, unknown> = { type: 'object', properties: {} }): Record<string, unknown> {
  const properties = (parameters.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = (parameters.required ?? []) as string[];
  const strict: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    strict[name] = property.type === 'string' && required.includes(name) ? { ...property, minLength: 1 } : property;
  }
  return { type: 'object', properties: strict, required, additionalProperties: false };
}

/** How the model is told the format (it is also held to it while sampling). */
// to the model: part of its system message.
function formatNote(tools: ChatCompletionTool[]): string {
  const names = tools.flatMap((tool) => (tool.type === 'function' ? [tool.function.name] : []));
  return [
    '## How to reply',
    'Reply with one JSON object and nothing else.',
    names.includes('run_python') ? 'To run Python: {"name": "run_python", "arguments": {"code": "<the code>"}}. You then get its output.' : '',
    names.filter((n) => n !== 'run_python').length ? `Other tools, without arguments: ${names.filter((n) => n !== 'run_python').map((n) => `{"name": "${n}", "arguments": {}}`).join(', ')}.` : '',
    'When you know the answer: {"name": "answer", "arguments": {"text": "<your answer in plain words>"}}.',
  ]
    .filter(Boolean)
    .join('\n');
}

function textOf(content: ChatCompletionMessageParam['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content.map((part) => ('text' in part ? part.text : '')).join('');
}

/**
 * The model's turns in the exact text it sampled, by what they say (`turnKey`): the client hands
 * back a call as its name and arguments, which rendered again would differ from the sampled
 * text in spacing, and from that point on the model would read the rest of the prompt again.
 * Keyed by content, so a text found here is only ever a spelling of the same turn.
 */
export class WrittenTurns {
  private readonly texts = new Map<string, string>();

  constructor(private readonly limit = 64) {}

  /** Keeps `text` (JSON sampled under the turn's schema) as the spelling of the turn it parses to. */
  keep(text: string): void {
    const turn = JSON.parse(text) as { name: string; arguments: unknown };
    const key = turnKey(turn.name, JSON.stringify(turn.arguments));
    this.texts.delete(key);
    this.texts.set(key, text);
    if (this.texts.size > this.limit) this.texts.delete(this.texts.keys().next().value as string);
  }

  get(key: string): string | undefined {
    return this.texts.get(key);
  }
}

/** A turn's identity: the tool's name and its arguments as the client carries them (JSON text). */
const turnKey = (name: string, args: string) => `${name}\u0000${args}`;

/**
 * The request's messages as the model's chat template takes them (system, user, assistant): its
 * own earlier turns in the JSON it wrote (`written`, where known), and each tool's output as a
 * user message naming it.
 */
export function chatMessages(messages: ChatCompletionMessageParam[], tools: ChatCompletionTool[], written?: WrittenTurns): ChatMessage[] {
  const names = new Map<string, string>();
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') {
      // The format first: it never changes, so with the fixed start of the context it is read once per model, not once per question.
      out.push({ role: 'system', content: tools.length ? `${formatNote(tools)}\n\n${textOf(message.content)}` : textOf(message.content) });
    } else if (message.role === 'user') {
      out.push({ role: 'user', content: textOf(message.content) });
    } else if (message.role === 'assistant') {
      const calls = (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call] : []));
      for (const call of calls) names.set(call.id, call.function.name);
      const turns = calls.map(
        (call) => written?.get(turnKey(call.function.name, call.function.arguments)) ?? `{"name": ${JSON.stringify(call.function.name)}, "arguments": ${call.function.arguments || '{}'}}`,
      );
      const text = textOf(message.content ?? null);
      if (!turns.length) {
        const answer = { text };
        turns.push(tools.length ? (written?.get(turnKey(ANSWER, JSON.stringify(answer))) ?? JSON.stringify({ name: ANSWER, arguments: answer })) : text);
      }
      out.push({ role: 'assistant', content: turns.join('\n') });
    } else if (message.role === 'tool') {
      // to the model: a tool's output, as the model in this browser reads it.
      out.push({ role: 'user', content: `Output of ${names.get(message.tool_call_id) ?? 'the tool'}:\n${textOf(message.content)}` });
    }
  }
  return out;
}

/** Characters of a request's messages, the measure that tokens are estimated from. */
const sizeOf = (messages: ChatMessage[]) => messages.reduce((sum, m) => sum + m.content.length + 16, 0);

/**
 * Cuts a request to fit `budgetChars`: first the session's earlier rounds (oldest first), then
 * the outputs of this round's earlier runs (oldest first, the last one kept), then the end of
 * the system message's lists. Returns the messages and what was left out, in words ('' if nothing).
 */
export function fitMessages(messages: ChatCompletionMessageParam[], tools: ChatCompletionTool[], budgetChars: number, written?: WrittenTurns): { messages: ChatMessage[]; cut: Said | null } {
  const question = messages.findLastIndex((m) => m.role === 'user');
  const kept = [...messages];
  let earlier = 0;
  let outputs = 0;
  const fits = () => sizeOf(chatMessages(kept, tools, written)) <= budgetChars;
  // The earlier rounds sit between the system message and this question.
  let first = kept[0]?.role === 'system' ? 1 : 0;
  let at = question;
  while (!fits() && first < at) {
    kept.splice(first, 1);
    at--;
    earlier++;
  }
  const runs = kept.map((m, i) => (m.role === 'tool' && i > at ? i : -1)).filter((i) => i >= 0);
  for (const i of runs.slice(0, -1)) {
    if (fits()) break;
    kept[i] = { ...(kept[i] as Extract<ChatCompletionMessageParam, { role: 'tool' }>), content: LEFT_OUT };
    outputs++;
  }
  let chat = chatMessages(kept, tools, written);
  let systemCut = false;
  const over = sizeOf(chat) - budgetChars;
  if (over > 0 && chat[0]?.role === 'system') {
    const system = textOf(kept[0].content);
    const room = Math.max(200, system.length - over - 1);
    if (room < system.length) {
      kept[0] = { role: 'system', content: `${system.slice(0, room)}…` };
      chat = chatMessages(kept, tools, written);
      systemCut = true;
    }
  }
  const parts = [
    earlier ? said('chat_cut_earlier', { count: earlier }) : null,
    outputs ? said('chat_cut_outputs', { count: outputs }) : null,
    systemCut ? said('chat_cut_system') : null,
  ].filter((part) => part !== null);
  if (!parts.length) return { messages: chat, cut: null };
  const cut: Said = { key: `chat_cut_parts_${parts.length as 1 | 2 | 3}`, params: Object.fromEntries(parts.map((part, i) => [`p${i + 1}`, part])) };
  return { messages: chat, cut };
}

const encoder = new TextEncoder();

/** Reads the text of an "answer" turn out of its JSON while it is still being sampled. */
export class AnswerReader {
  private raw = '';
  private at = -1;
  private done = false;
  private pendingEscape = '';

  /** Adds sampled text; returns the answer's newly known characters ('' while it is not an answer or not yet known). */
  add(piece: string): string {
    this.raw += piece;
    if (this.done) return '';
    if (this.at < 0) {
      const start = /^\s*\{\s*"name"\s*:\s*"answer"\s*,\s*"arguments"\s*:\s*\{\s*"text"\s*:\s*"/.exec(this.raw);
      if (!start) return '';
      this.at = start[0].length;
    }
    let out = '';
    let text = this.pendingEscape + this.raw.slice(this.at);
    this.at = this.raw.length;
    this.pendingEscape = '';
    while (text.length) {
      const c = text[0];
      if (c === '"') {
        this.done = true;
        break;
      }
      if (c !== '\\') {
        out += c;
        text = text.slice(1);
        continue;
      }
      // An escape: decoded whole, or kept until the rest of it arrives.
      const escape = /^\\(["\\/bfnrt]|u[0-9a-fA-F]{4})/.exec(text);
      if (!escape) {
        this.pendingEscape = text;
        break;
      }
      out += JSON.parse(`"${escape[0]}"`) as string;
      text = text.slice(escape[0].length);
    }
    return out;
  }
}

interface ChunkDelta {
  role?: 'assistant';
  content?: string;
  tool_calls?: { index: number; id: string; type: 'function'; function: { name: string; arguments: string } }[];
}

let calls = 0;

/**
 * Per loaded model and per session, the text of the turns it wrote: it lives as long as the
 * model, and so as the model's state of that text; a connection is made per question, so this
 * outlives it. It answers only with a spelling of a turn the caller already has (WrittenTurns),
 * never with other text, and a session's turns are never looked up for another.
 */
const writtenBy = new WeakMap<LocalModel, Map<string, WrittenTurns>>();

/** The session's kept turn texts for `model`. */
function writtenFor(model: LocalModel, session: string): WrittenTurns {
  let sessions = writtenBy.get(model);
  if (!sessions) writtenBy.set(model, (sessions = new Map()));
  let written = sessions.get(session);
  if (!written) sessions.set(session, (written = new WrittenTurns()));
  return written;
}

/** The `fetch` that answers the `openai` client from the local model. */
export function localFetch(transport: LocalTransport): typeof fetch {
  /** Learned from llama.cpp's own counts when it refused a prompt: tokens per character, and the context it has. */
  const measured = new WeakMap<LocalModel, { tokensPerChar: number; contextTokens: number }>();

  async function complete(body: RequestBody, signal: AbortSignal | undefined, send: (delta: ChunkDelta, finish?: string) => void): Promise<CompletionResult> {
    const model = await loaded(signal);
    const tools = body.tools ?? [];
    const written = writtenFor(model, transport.session ?? '');
    const background = transport.background;
    for (let attempt = 1; ; attempt++) {
      const known = measured.get(model);
      const context = known?.contextTokens ?? model.info.nCtx;
      const reply = Math.min(body.max_tokens ?? REPLY_TOKENS, REPLY_TOKENS, Math.floor(context / 4));
      const budget = known ? Math.floor((context - reply) / known.tokensPerChar) : Infinity;
      const { messages, cut } = fitMessages(body.messages, tools, budget, written);
      if (cut) transport.onCut?.(said('chat_note_context_cut', { tokens: context, parts: cut }));
      // llama.cpp counts every prompt it reads: the next request is fitted with room for its reply
      // (a prompt that fits but leaves none would be cut off as soon as the reply starts).
      const learn = <T extends CompletionResult>(result: T): T => {
        const tokens = result.promptTokens + result.cachedTokens;
        if (tokens > 0) measured.set(model, { tokensPerChar: (tokens / sizeOf(messages)) * 1.05, contextTokens: context });
        return result;
      };
      try {
        if (!tools.length) return learn(await model.chat(messages, { maxTokens: reply, signal, background, onText: (text) => send({ content: text }) }));
        const reader = new AnswerReader();
        const result = learn(await model.json(messages, { name: 'turn', schema: turnSchema(tools) }, { maxTokens: reply, signal, background, onText: (text) => {
          const shown = reader.add(text);
          if (shown) send({ content: shown });
        } }));
        if (result.finish === 'stop') {
          written.keep(result.text);
          const turn = result.value as { name: string; arguments: unknown };
          if (turn.name !== ANSWER) {
            send({ tool_calls: [{ index: 0, id: `call_local_${++calls}`, type: 'function', function: { name: turn.name, arguments: JSON.stringify(turn.arguments) } }] });
          }
        }
        return result;
      } catch (error) {
        const tooLong = promptTooLong(error);
        if (!tooLong || attempt >= FIT_ATTEMPTS) {
          if (tooLong) throw new AssistantError('local_model', said('chat_err_local_too_long', { tokens: tooLong.contextTokens }));
          if (error instanceof AssistantError || signal?.aborted) throw error;
          throw new AssistantError('local_model', said('chat_err_local_failed', { error: reason(error) }));
        }
        // llama.cpp counted the prompt it refused: estimate with that, and a little to spare.
        measured.set(model, { tokensPerChar: (tooLong.promptTokens / sizeOf(messages)) * 1.05, contextTokens: tooLong.contextTokens });
      }
    }
  }

  /** The model, or why it could not be had, in the person's words. */
  async function loaded(signal?: AbortSignal): Promise<LocalModel> {
    try {
      return await transport.model(signal);
    } catch (error) {
      if (signal?.aborted || error instanceof AssistantError) throw error;
      throw new AssistantError('local_model', said('chat_err_local_load', { error: reason(error) }));
    }
  }

  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const signal = init?.signal ?? undefined;
    if (url.pathname.endsWith('/models') && (init?.method ?? 'GET') === 'GET') {
      const model = await loaded(signal);
      return Response.json({ object: 'list', data: [{ id: model.info.name || 'local model', object: 'model', created: 0, owned_by: 'this browser' }] });
    }
    if (!url.pathname.endsWith('/chat/completions') || init?.method !== 'POST') {
      // internal: the openai client asks only for /models and /chat/completions; another path is a fault of the code.
      return Response.json({ error: { message: `The model in this browser answers chat completions only, not ${url.pathname}.`, type: 'invalid_request_error' } }, { status: 404 });
    }
    const body = JSON.parse(String(init.body)) as RequestBody;
    const id = `chatcmpl-local-${Date.now()}`;
    const chunk = (name: string, delta: ChunkDelta, finish: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: name,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const finishOf = (result: CompletionResult, called: boolean) => (result.finish === 'length' ? 'length' : called ? 'tool_calls' : 'stop');
    // llama.cpp counts the prompt tokens it read; those it kept from the last request come on top.
    const usage = (result: CompletionResult) => ({
      prompt_tokens: result.promptTokens + result.cachedTokens,
      completion_tokens: result.completionTokens,
      total_tokens: result.promptTokens + result.cachedTokens + result.completionTokens,
      prompt_tokens_details: { cached_tokens: result.cachedTokens },
    });

    if (!body.stream) {
      let text = '';
      let call: ChunkDelta['tool_calls'];
      const result = await complete(body, signal, (delta) => {
        text += delta.content ?? '';
        call = delta.tool_calls ?? call;
      });
      const model = await loaded(signal);
      const message = { role: 'assistant', content: text || null, ...(call ? { tool_calls: call.map(({ index: _, ...c }) => c) } : {}) };
      return Response.json({
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: model.info.name,
        choices: [{ index: 0, message, finish_reason: finishOf(result, Boolean(call)) }],
        usage: usage(result),
      });
    }

    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        const write = (value: unknown) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(value)}\n\n`));
        try {
          const model = await loaded(signal);
          const name = model.info.name;
          write(chunk(name, { role: 'assistant', content: '' }));
          let called = false;
          const result = await complete(body, signal, (delta) => {
            called ||= Boolean(delta.tool_calls);
            write(chunk(name, delta));
          });
          // internal: an AbortError is told by its name (chat_err_stopped), never by this message.
          if (result.finish === 'stopped' || signal?.aborted) throw new DOMException('The answer was stopped.', 'AbortError');
          write(chunk(name, {}, finishOf(result, called)));
          write({ ...chunk(name, {}), choices: [], usage: usage(result) });
          controller.enqueue(encoder.encode('data: [DONE]\n\n'));
          controller.close();
        } catch (error) {
          controller.error(error);
        }
      },
    });
    return new Response(stream, { headers: { 'Content-Type': 'text/event-stream' } });
  };
}
