/**
 * The one interface between the page and the local model's worker (workers/model.worker.ts).
 * Both sides import these types, so a mismatch is a compile error.
 */
import type { Said } from '../i18n/said';

/** Where the GGUF file comes from: a file the person picked, or an address on this app's origin. */
export type ModelSource = { kind: 'blob'; blob: Blob } | { kind: 'url'; url: string };

export interface LoadOptions {
  /** Tokens of context the model is loaded with (its KV cache); the model's own limit caps it. */
  nCtx?: number;
  /** Makes sampling repeatable (tests, the bench). */
  seed?: number;
  /**
   * WebGPU: 'auto' (the default) where the browser gives a hardware GPU; 'always' also on a
   * software one (SwiftShader: for tests, slower than the CPU); 'never' the CPU.
   */
  gpu?: 'auto' | 'always' | 'never';
  /** At most this many threads (the bench compares 1 and 2); the page's own limit still applies. */
  maxThreads?: number;
}

/** Loading's steps: fetching an address (bytes of total, 0 when unknown), then reading the file into llama.cpp. */
export interface LoadProgress {
  phase: 'download' | 'load';
  loaded: number;
  total: number;
}

export interface ModelInfo {
  /** `general.name` of the file, or '' */
  name: string;
  /** `general.architecture` of the file. */
  architecture: string;
  fileBytes: number;
  /** Context the model was loaded with, in tokens. */
  nCtx: number;
  nCtxTrain: number;
  nVocab: number;
  nLayer: number;
  nEmbd: number;
  /** llama.cpp's threads for this model. */
  threads: number;
  /** Why that many, said for Settings. */
  threadsReason: Said;
  /** Where the model computes: WebGPU, or the CPU (llama.cpp's wasm). */
  backend: 'webgpu' | 'cpu';
  /** Why there, said for Settings. */
  backendReason: Said;
  /** llama.cpp's build: the default (JSPI and Memory64), or the compatible one where those are missing (Safari, WebKit). */
  build: 'default' | 'compatible';
  /** Why the compatible build, said for Settings (null for the default). */
  buildReason: Said | null;
  /** Whether the file has a chat template (without one, chat turns cannot be rendered). */
  chatTemplate: boolean;
  /** From the call to load until the model could answer. */
  loadMs: number;
  /** llama.cpp's own buffers as it reported them, in bytes (0 where it said nothing): the weights, the KV cache, the graph's scratch, the logits. */
  buffers: { model: number; kv: number; compute: number; output: number };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface GenerateOptions {
  maxTokens?: number;
  temperature?: number;
  /** Generates `maxTokens` whatever the model says: for measuring decoding (the bench, tests), not for answers. */
  ignoreEnd?: boolean;
}

/** How a completion ended: the model's end, the token limit, or a stop. */
export type FinishReason = 'stop' | 'length' | 'stopped';

export interface CompletionResult {
  text: string;
  finish: FinishReason;
  /** Tokens generated, as llama.cpp counted them (0 when it sent no figures: a stop before the end). */
  completionTokens: number;
  /** Pieces of text the stream delivered. */
  pieces: number;
  /** Prompt tokens read for this request (those reused from the last one are in `cachedTokens`). */
  promptTokens: number;
  /** Prompt tokens whose state was reused from the last request (llama.cpp's prompt cache). */
  cachedTokens: number;
  /** llama.cpp's time reading the prompt and generating, in milliseconds. */
  promptMs: number;
  decodeMs: number;
  /** From the request until its end, as the worker saw it. */
  ms: number;
}

/** A JSON schema for a constrained answer (the model can only sample text that matches it). */
export interface JsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
}

export interface ModelWorkerApi {
  /** Loads the model; one per worker (the page makes a new worker for another). */
  load(source: ModelSource, options: LoadOptions, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo>;
  /** Streams a chat answer, rendered with the file's chat template, to `onText`; `request` names it for `stop`. */
  chat(request: number, messages: ChatMessage[], options: GenerateOptions, onText?: (text: string) => void): Promise<CompletionResult>;
  /** A chat answer constrained to the schema while sampling: its text parses as JSON of that schema unless cut by the limit. */
  json(request: number, messages: ChatMessage[], format: JsonSchemaFormat, options: GenerateOptions, onText?: (text: string) => void): Promise<CompletionResult>;
  /** Frees the model and ends wllama's worker and llama.cpp's threads (the page then ends this worker). */
  exit(): Promise<void>;
  /** Ends a request early; its promise resolves with `finish: 'stopped'` and the text so far. */
  stop(request: number): void;
  /** Answers at once: the page asks while a call is under way, to tell a worker that has stopped answering. */
  alive(): boolean;
}

/** wllama's worker said nothing for a long while during a load: stuck (the page tries once more, in a new worker). */
export class LoadStalled extends Error {
  constructor() {
    // internal: only its name crosses to the page, which tells a second stall in the reader's words (client.ts).
    super('The model’s runtime stopped answering while the model loaded.');
    this.name = 'LoadStalled';
  }
}

/**
 * A request whose prompt does not fit the model's context: llama.cpp counted its tokens, so the
 * caller can cut it to fit. Crosses the worker's boundary as an Error (Comlink keeps name and
 * message), so the figures are in the message and read back by `promptTooLong`.
 */
export class PromptTooLong extends Error {
  constructor(
    readonly promptTokens: number,
    readonly contextTokens: number,
  ) {
    // internal: promptTooLong reads the figures back from it; the person reads chat_err_local_too_long.
    super(`The prompt is ${promptTokens} tokens, and the model's context holds ${contextTokens}.`);
    this.name = 'PromptTooLong';
  }
}

/** The figures of a PromptTooLong error, after it crossed from the worker (or null for any other error). */
export function promptTooLong(error: unknown): PromptTooLong | null {
  if (!(error instanceof Error) || error.name !== 'PromptTooLong') return null;
  const figures = /^The prompt is (\d+) tokens, and the model's context holds (\d+)\.$/.exec(error.message);
  return figures ? new PromptTooLong(Number(figures[1]), Number(figures[2])) : null;
}
