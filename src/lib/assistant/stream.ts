import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { said } from '../i18n/said';
import { AssistantError } from './assistant-error';
import { classifyRequestError, classifyStreamError, type ErrorContext } from './errors';

export interface ToolCallRequest {
  id: string;
  name: string;
  /** As the model wrote them: JSON, or not (told back to the model). */
  arguments: string;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /**
   * Of the prompt's tokens, those the server did not read again: it kept their state from an
   * earlier request (`prompt_tokens_details.cached_tokens`; absent when it does not say).
   */
  cachedTokens?: number;
}

/** One reply of the model, joined from its stream. */
export interface ModelTurn {
  text: string;
  toolCalls: ToolCallRequest[];
  finishReason: string | null;
  usage?: TokenUsage;
  /** The model's name as the server reported it. */
  model?: string;
}

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

/**
 * Joins tool-call fragments into calls. The client library's own joiner (`.stream()`) keys calls by
 * `index`, which merges Ollama's parallel calls: those come whole, each with its own id, all at
 * `index: 0`. Here a fragment with an id not seen before starts a call; one without an id goes
 * on the latest call at its index (OpenAI names the id only in a call's first fragment).
 */
export class ToolCallJoiner {
  private readonly calls: ToolCallRequest[] = [];
  private readonly byId = new Map<string, ToolCallRequest>();
  private readonly byIndex = new Map<number, ToolCallRequest>();

  constructor(private readonly makeId: (n: number) => string) {}

  add(delta: ToolCallDelta): void {
    const index = delta.index ?? 0;
    let call = delta.id ? this.byId.get(delta.id) : this.byIndex.get(index);
    if (!call) {
      call = { id: delta.id || this.makeId(this.calls.length), name: '', arguments: '' };
      this.calls.push(call);
      this.byId.set(call.id, call);
    }
    this.byIndex.set(index, call);
    if (delta.function?.name) call.name = delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
  }

  get result(): ToolCallRequest[] {
    return this.calls.map((c) => ({ ...c }));
  }
}

export interface TurnRequest {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  step: number;
}

export interface TurnCallbacks {
  /** Each piece of the model's text, as it arrives. */
  onText(delta: string): void;
}

/**
 * Asks the model once and reads its streamed reply. Failures come out as `AssistantError`, with
 * `shown` telling whether any of its text had been shown (a retry would then repeat it).
 */
export async function streamTurn(
  client: OpenAI,
  request: TurnRequest,
  ctx: ErrorContext,
  callbacks: TurnCallbacks,
  signal?: AbortSignal,
): Promise<ModelTurn> {
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: request.messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools?.length ? { tools: request.tools } : {}),
  };
  let stream: AsyncIterable<ChatCompletionChunk>;
  try {
    stream = await client.chat.completions.create(body, { signal });
  } catch (error) {
    throw new TurnError(classifyRequestError(error, ctx), false);
  }
  const turn: ModelTurn = { text: '', toolCalls: [], finishReason: null };
  const joiner = new ToolCallJoiner((n) => `call_${request.step}_${n}`);
  try {
    for await (const chunk of stream) {
      if (chunk.model) turn.model = chunk.model;
      if (chunk.usage) {
        turn.usage = {
          promptTokens: chunk.usage.prompt_tokens ?? 0,
          completionTokens: chunk.usage.completion_tokens ?? 0,
          totalTokens: chunk.usage.total_tokens ?? 0,
          ...(chunk.usage.prompt_tokens_details?.cached_tokens !== undefined ? { cachedTokens: chunk.usage.prompt_tokens_details.cached_tokens } : {}),
        };
      }
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const content = choice.delta?.content;
      if (content) {
        turn.text += content;
        callbacks.onText(content);
      }
      for (const delta of choice.delta?.tool_calls ?? []) joiner.add(delta);
      if (choice.finish_reason) turn.finishReason = choice.finish_reason;
    }
  } catch (error) {
    throw new TurnError(classifyStreamError(error, ctx), Boolean(turn.text), { ...turn, toolCalls: joiner.result });
  }
  turn.toolCalls = joiner.result;
  if (signal?.aborted) throw new TurnError(new AssistantError('aborted', said('chat_err_stopped')), true, turn);
  if (turn.finishReason === null) {
    // The stream ended cleanly but the model never said it was done: the server closed early.
    throw new TurnError(
      new AssistantError('cut', said('chat_err_closed_early')),
      Boolean(turn.text),
      turn,
    );
  }
  return turn;
}

/** A failed turn: the error, whether any of the reply had been shown, and what had arrived. */
export class TurnError extends Error {
  constructor(
    readonly error: AssistantError,
    readonly shown: boolean,
    readonly partial?: ModelTurn,
  ) {
    super(error.message);
    this.name = 'TurnError';
  }
}
