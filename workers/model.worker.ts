import * as Comlink from 'comlink';
import { CacheManager, Wllama, type ChatCompletionChunk, type ChatCompletionParams, type WllamaLogger } from '@wllama/wllama';
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';
// The compatible build (no JSPI, no Memory64: Safari, WebKit), served from this origin like the
// default one. Its worker script goes in as text, as wllama starts it from a Blob.
import compatWasmUrl from '@wllama/wllama-compat/wasm/wllama.wasm?url';
import compatWorkerCode from '@wllama/wllama-compat/wasm/wllama.js?raw';
import { hasJspi, hasMemory64, webGpu } from '../src/lib/capabilities';
import { countedResponse, fileNameOf } from '../src/lib/fetch-progress';
import { knowEnglish } from '../src/lib/i18n/catalog';
import { carrySaidErrors } from '../src/lib/i18n/crossing';
import {
  chat_gguf_count,
  chat_gguf_cut,
  chat_gguf_header_cut,
  chat_gguf_not,
  chat_gguf_type,
  chat_gguf_version,
  chat_model_empty,
  chat_model_fetch_failed,
  chat_model_web_page,
  w3_model_answer_failed,
  w3_model_architecture,
  w3_model_gpu_no_room,
  w3_model_no_memory,
  w3_model_none_loaded,
  w3_model_other_site,
  w3_model_refused,
  w3_model_worker_busy,
} from '../src/lib/i18n/paraglide/messages/en.js';
import { said, SaidError, type Said } from '../src/lib/i18n/said';
import { readGgufBlobHeader, truncation, GgufError } from '../src/lib/local-model/gguf';
import { LoadStalled, PromptTooLong } from '../src/lib/local-model/worker-api';
import type { CompletionResult, FinishReason, GenerateOptions, LoadOptions, LoadProgress, ModelInfo, ModelSource, ModelWorkerApi } from '../src/lib/local-model/worker-api';

// This worker's refusals (SaidError, GgufError) cross to the page with their said text, which the
// page tells in the reader's language; their message, for logs, is worded in English by these
// messages by name, as this worker bundles no catalog.
knowEnglish({
  chat_gguf_count,
  chat_gguf_cut,
  chat_gguf_header_cut,
  chat_gguf_not,
  chat_gguf_type,
  chat_gguf_version,
  chat_model_empty,
  chat_model_fetch_failed,
  chat_model_web_page,
  w3_model_answer_failed,
  w3_model_architecture,
  w3_model_gpu_no_room,
  w3_model_no_memory,
  w3_model_none_loaded,
  w3_model_other_site,
  w3_model_refused,
  w3_model_worker_busy,
});
carrySaidErrors();

// The local model's worker: llama.cpp (wllama) is driven from here, never from the page, and
// wllama runs the wasm in a worker of its own that it starts from this one (its threads are
// workers of that one). Terminating this worker ends them all and gives their memory back.

/** A cap on threads, so that a machine with many cores keeps some for the sessions' Python. */
const MAX_THREADS = 4;
/** Tokens of context when the caller names none: room for a short system prompt, a question, code and its output. */
const DEFAULT_CONTEXT = 4096;

/** llama.cpp's own log lines, the last few: its reasons for refusing a file are only there. */
const nativeLog: string[] = [];
const remember = (...args: unknown[]) => {
  nativeLog.push(args.map((arg) => (typeof arg === 'object' && arg ? JSON.stringify(arg) : String(arg))).join(' '));
  if (nativeLog.length > 200) nativeLog.shift();
};
/** The last error llama.cpp answered a request with, as it sent it (wllama keeps only its message). */
interface LlamaError {
  type?: string;
  n_prompt_tokens?: number;
  n_ctx?: number;
}
let lastError: LlamaError | null = null;
/**
 * When wllama's worker last said anything (every line it logs comes through the logger): a load
 * that hears nothing for LOAD_QUIET_MS is stuck. Firefox once in a while never got a word from
 * it, while this worker kept answering.
 */
let heard = 0;
const LOAD_QUIET_MS = 45_000;
/** A log level's writer that also notes the word from wllama's worker. */
const listening =
  (write: (...args: unknown[]) => void) =>
  (...args: unknown[]) => {
    heard = performance.now();
    write(...args);
  };
const logger: WllamaLogger = {
  // llama.cpp's INFO lines come here: only its buffer sizes are kept (see bufferSizes).
  debug: listening((...args) => {
    if (args.some((arg) => typeof arg === 'string' && arg.includes(' buffer size = '))) remember(...args);
  }),
  log: listening(remember),
  warn: listening(remember),
  error: listening((...args) => {
    const detail = args.find((arg) => typeof arg === 'object' && arg !== null);
    if (detail) lastError = detail as LlamaError;
    remember(...args);
  }),
};

let wllama: Wllama | null = null;

type StorageBackend = NonNullable<ConstructorParameters<typeof CacheManager>[0]>[number];

/** A storage backend that keeps nothing: wllama downloads nothing here (see loadModel). */
class NoStorage implements StorageBackend {
  isSupported(): boolean {
    return true;
  }
  async read(): Promise<Blob | null> {
    return null;
  }
  async write(): Promise<void> {
    // internal: never reached, as wllama is handed a Blob and downloads nothing.
    throw new Error('PyTabs keeps model files itself; wllama is not asked to download.');
  }
  async getSize(): Promise<number> {
    return -1;
  }
  async list(): Promise<{ key: string; size: number }[]> {
    return [];
  }
  async delete(): Promise<void> {}
}
const requests = new Map<number, AbortController>();

function threadPlan(cap = MAX_THREADS): { threads: number; reason: Said } {
  const cores = navigator.hardwareConcurrency || 1;
  if (!self.crossOriginIsolated) {
    return { threads: 1, reason: said('rtw_model_one_thread_isolation') };
  }
  // WebKitGTK: cross-origin isolated, and still no SharedArrayBuffer.
  if (typeof SharedArrayBuffer === 'undefined') {
    return { threads: 1, reason: said('rtw_model_one_thread_memory') };
  }
  const limit = Math.max(1, Math.min(cap, MAX_THREADS));
  const threads = Math.min(cores, limit);
  return { threads, reason: said(cores > limit ? 'rtw_model_threads_capped' : 'rtw_model_threads', { threads, cores }) };
}

/**
 * Whether the model computes on WebGPU, and why (browser-paths.ts's modelLine says the same in
 * Settings → This browser). A software adapter (SwiftShader, where a machine has no GPU for the
 * browser) is slower than the CPU path, so 'auto' leaves it.
 */
async function gpuPlan(mode: LoadOptions['gpu'] = 'auto'): Promise<{ gpu: boolean; reason: Said; name: string }> {
  if (mode === 'never') return { gpu: false, reason: said('rtw_model_cpu_off'), name: '' };
  const { kind, name, f16 } = await webGpu();
  if (kind === 'none') return { gpu: false, reason: said('rtw_model_cpu_no_gpu'), name };
  if (kind === 'software' && mode === 'auto') return { gpu: false, reason: said('rtw_model_cpu_software', { name }), name };
  // llama.cpp's WebGPU backend asks for 16-bit floats in its shaders, and without them takes no GPU.
  if (!f16) return { gpu: false, reason: said('rtw_model_cpu_no_f16', { name }), name };
  return { gpu: true, reason: said('rtw_model_gpu', { name }), name };
}

/** What the default build needs (capabilities.ts finds each); without either, the compatible build runs (slower). */
function missingFeatures(): string[] {
  return [hasJspi() ? '' : 'WebAssembly JSPI', hasMemory64() ? '' : 'WebAssembly Memory64'].filter(Boolean);
}

/** Fetches a file of this app's origin, counting its bytes as they arrive (total 0: not known). */
async function download(url: string, onProgress?: (progress: LoadProgress) => void): Promise<Blob> {
  const address = new URL(url, self.location.href);
  if (address.origin !== self.location.origin) throw new SaidError(said('w3_model_other_site', { origin: address.origin }));
  const response = await fetch(address);
  // The status text is the server's words.
  if (!response.ok || !response.body) throw new SaidError(said('chat_model_fetch_failed', { status: `${response.status} ${response.statusText} (${address.pathname})` }));
  // Many hosts answer a missing file with their index page.
  if (response.headers.get('Content-Type')?.startsWith('text/html')) throw new SaidError(said('chat_model_web_page', { path: address.pathname }));
  // Reported at most every 100 ms: a model is hundreds of MB.
  const counted = countedResponse(response, fileNameOf(address.href), ({ loaded, total }) => onProgress?.({ phase: 'download', loaded, total: total ?? 0 }));
  return counted.blob();
}

/** llama.cpp's reason for refusing the model, from its log. */
function nativeReason(): string {
  for (const line of [...nativeLog].reverse()) {
    const reason = /error loading model: (.*)$/.exec(line)?.[1];
    if (reason) return reason.trim();
  }
  return [...nativeLog].reverse().find((line) => /failed to load/i.test(line))?.trim() ?? '';
}

/** llama.cpp's refusal of a prompt longer than its context, as its log words it. */
const TOO_LONG = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/;

/**
 * llama.cpp's reason for failing a request, from its log: wllama itself reports only that the
 * reply could not be read ("Invalid typed array length").
 */
function answerFailure(): string {
  const line = [...nativeLog]
    .reverse()
    .find((text) => /exception|error|invalid|failed|does not match/i.test(text) && !/^(Stack trace|RangeError)|typed array/.test(text.trim()));
  return line?.trim() ?? '';
}

/** Why llama.cpp refused the model (it reports why only in its log; its reason stays in its words). */
function refusal(architecture: string, fallback: string): Said {
  const reason = nativeReason();
  if (/unknown model architecture/i.test(reason)) return said('w3_model_architecture', { architecture });
  return said('w3_model_refused', { reason: reason || fallback });
}

/** llama.cpp's buffers as its log tells them ("llama_kv_cache:  CPU KV buffer size = 24.00 MiB"): where, for what, how big. */
function loggedBuffers(): { backend: string; part: keyof ModelInfo['buffers']; bytes: number }[] {
  return nativeLog.flatMap((line) => {
    const found = /(\S+) +(model|KV|compute|output) buffer size = +([\d.]+) MiB/.exec(line);
    return found ? [{ backend: found[1], part: found[2].toLowerCase() as keyof ModelInfo['buffers'], bytes: Math.round(Number(found[3]) * 1024 * 1024) }] : [];
  });
}

/** llama.cpp's buffer sizes, summed over its backends. */
function bufferSizes(): ModelInfo['buffers'] {
  const sizes = { model: 0, kv: 0, compute: 0, output: 0 };
  for (const { part, bytes } of loggedBuffers()) sizes[part] += bytes;
  return sizes;
}

/** Closes the port of a callback the page passed (Comlink.proxy), once its request is over. */
function release(callback: unknown): void {
  (callback as Partial<Comlink.Remote<unknown>> | undefined)?.[Comlink.releaseProxy]?.();
}

/** Loads the model, its progress reaching the page before its result does (see `complete`). */
async function load(source: ModelSource, options: LoadOptions, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
  const deliveries: unknown[] = [];
  try {
    return await loadModel(source, options, onProgress && ((progress) => deliveries.push(onProgress(progress))));
  } finally {
    await Promise.allSettled(deliveries);
    release(onProgress);
  }
}

async function loadModel(source: ModelSource, options: LoadOptions, onProgress?: (progress: LoadProgress) => void): Promise<ModelInfo> {
  if (wllama) throw new SaidError(said('w3_model_worker_busy'));
  const started = performance.now();
  const missing = missingFeatures();
  const blob = source.kind === 'blob' ? source.blob : await download(source.url, onProgress);
  if (blob.size === 0) throw new SaidError(said('chat_model_empty'));
  const header = await readGgufBlobHeader(blob);
  const cut = truncation(header, blob.size);
  if (cut) throw new GgufError('truncated', cut);
  const architecture = String(header.metadata.get('general.architecture') ?? '');
  // A context longer than the model was trained on only degrades its answers.
  const trained = Number(header.metadata.get(`${architecture}.context_length`) ?? 0);
  const nCtx = Math.min(options.nCtx ?? DEFAULT_CONTEXT, trained || Infinity);
  nativeLog.length = 0;

  const { threads, reason } = threadPlan(options.maxThreads);
  const plan = await gpuPlan(options.gpu);
  onProgress?.({ phase: 'load', loaded: 0, total: blob.size });
  let model: Wllama;
  let onGpu = plan.gpu;
  let backendReason = plan.reason;
  try {
    model = await start(blob, { architecture, nCtx, threads, gpu: plan.gpu, seed: options.seed });
  } catch (error) {
    if (!plan.gpu || error instanceof ModelRefused) throw error;
    // WebGPU could not take it (a driver's limit, a shader it lacks): the CPU can.
    model = await start(blob, { architecture, nCtx, threads, gpu: false, seed: options.seed });
    onGpu = false;
    backendReason = said('rtw_model_cpu_gpu_failed', { error: error instanceof SaidError ? error.said : (error as Error).message });
  }
  // What llama.cpp did, by its own report, over what was asked of it: its weights in CPU buffers only.
  // Where the weights went ("CPU", "CPU_Mapped", "WebGPU"…), one entry per buffer.
  const weights = loggedBuffers().filter((buffer) => buffer.part === 'model');
  if (onGpu && weights.length && weights.every((buffer) => buffer.backend.startsWith('CPU'))) {
    onGpu = false;
    backendReason = said('rtw_model_cpu_gpu_unused', { name: plan.name });
  }
  const context = model.getLoadedContextInfo();
  onProgress?.({ phase: 'load', loaded: blob.size, total: blob.size });
  wllama = model;
  const used = model.getNumThreads();
  return {
    name: String(header.metadata.get('general.name') ?? ''),
    architecture,
    fileBytes: blob.size,
    nCtx: context.n_ctx,
    nCtxTrain: context.n_ctx_train,
    nVocab: context.n_vocab,
    nLayer: context.n_layer,
    nEmbd: context.n_embd,
    threads: used,
    threadsReason: used === threads ? reason : said('rtw_model_one_thread_share'),
    backend: onGpu ? 'webgpu' : 'cpu',
    backendReason,
    build: missing.length ? 'compatible' : 'default',
    buildReason: missing.length ? said('rtw_model_compatible', { missing: missing.length > 1 ? said('list_and', { first: missing.slice(0, -1).join(', '), last: missing.at(-1)! }) : missing[0] }) : null,
    chatTemplate: Boolean(model.getChatTemplate()),
    loadMs: Math.round(performance.now() - started),
    buffers: bufferSizes(),
  };
}

/** A refusal that another backend would refuse too: the file, not where it runs. */
class ModelRefused extends SaidError {}

/**
 * A wllama holding the file, on WebGPU (every layer) or the CPU. PyTabs keeps the model files
 * itself (local-model/store.ts) and hands wllama a Blob, so wllama's own download cache is never
 * used: a backend that keeps nothing, which also lets it start where its default (OPFS) is
 * missing (WebKitGTK).
 */
async function start(blob: Blob, { architecture, nCtx, threads, gpu, seed }: { architecture: string; nCtx: number; threads: number; gpu: boolean; seed?: number }): Promise<Wllama> {
  nativeLog.length = 0;
  const model = new Wllama({ default: wasmUrl }, { logger, suppressNativeLog: false, cacheManager: new CacheManager([new NoStorage()]) });
  // The compatible build from this origin, never from a CDN: wllama picks it where the default
  // build's features are missing.
  model.setCompat({ wasm: compatWasmUrl, worker: { code: compatWorkerCode } });
  heard = performance.now();
  let silence: ReturnType<typeof setInterval> | undefined;
  const quiet = new Promise<never>((_, reject) => {
    silence = setInterval(() => performance.now() - heard > LOAD_QUIET_MS && reject(new LoadStalled()), 1000);
  });
  try {
    const loading = model.loadModel([blob], {
      n_ctx: nCtx,
      n_threads: threads,
      // 0 keeps it on the CPU; otherwise wllama offloads every layer to WebGPU.
      ...(gpu ? {} : { n_gpu_layers: 0 }),
      // One conversation at a time: the whole context for it.
      n_parallel: 1,
      seed,
    });
    // Ended by exit() below when it stalled: nobody waits for it then.
    loading.catch(() => undefined);
    await Promise.race([quiet, loading]);
  } catch (error) {
    await model.exit().catch(() => undefined);
    if (error instanceof LoadStalled) throw error;
    if (nativeReason() || !gpu) throw new ModelRefused(refusal(architecture, (error as Error).message));
    throw error;
  } finally {
    clearInterval(silence);
  }
  const context = model.getLoadedContextInfo();
  if (!(context.n_vocab > 0) || !(context.n_ctx > 0)) {
    await model.exit().catch(() => undefined);
    // llama.cpp refused it and wllama resolved anyway, every figure 0; or the wasm heap (capped
    // at 4 GiB) could not hold it, which "loads" the same way.
    if (nativeReason()) throw new ModelRefused(refusal(architecture, ''));
    // On WebGPU, the GPU's memory may be what was short: the CPU is tried next.
    if (gpu) throw new SaidError(said('w3_model_gpu_no_room'));
    throw new ModelRefused(said('w3_model_no_memory', { bytes: blob.size }));
  }
  return model;
}

/** Runs one streamed chat request to its end or its stop. */
async function complete(request: number, params: ChatCompletionParams, onText?: (text: string) => void): Promise<CompletionResult> {
  if (!wllama) throw new SaidError(said('w3_model_none_loaded'));
  nativeLog.length = 0;
  lastError = null;
  const controller = new AbortController();
  requests.set(request, controller);
  const started = performance.now();
  let text = '';
  let pieces = 0;
  let finish: FinishReason = 'stop';
  let last: ChatCompletionChunk | undefined;
  // Each piece reaches the page through the callback's own port, and the result through the
  // worker's: the result waits until the page has had every piece, or it could overtake them.
  const deliveries: unknown[] = [];
  try {
    const stream = await wllama.createChatCompletion({ ...params, stream: true, abortSignal: controller.signal });
    for await (const chunk of stream) {
      last = chunk;
      const choice = chunk.choices[0];
      const piece = choice?.delta?.content;
      if (piece) {
        text += piece;
        pieces++;
        deliveries.push(onText?.(piece));
      }
      if (choice?.finish_reason === 'length') finish = 'length';
    }
  } catch (error) {
    // Set by the logger while the request ran (TypeScript cannot see that).
    const refused = lastError as LlamaError | null;
    if (refused?.type === 'exceed_context_size_error' && refused.n_prompt_tokens && refused.n_ctx) {
      throw new PromptTooLong(refused.n_prompt_tokens, refused.n_ctx);
    }
    // This wllama logs the refusal as a line of text, with no detail object.
    const tooLong = [...nativeLog, (error as Error).message].map((line) => TOO_LONG.exec(String(line))).find(Boolean);
    if (tooLong) throw new PromptTooLong(Number(tooLong[1]), Number(tooLong[2]));
    // llama.cpp's reason, or wllama's, in their words.
    if (!controller.signal.aborted) throw new SaidError(said('w3_model_answer_failed', { reason: answerFailure() || (error as Error).message }));
  } finally {
    requests.delete(request);
    await Promise.allSettled(deliveries);
    release(onText);
  }
  if (controller.signal.aborted) finish = 'stopped';
  const timings = last?.timings;
  return {
    text,
    finish,
    pieces,
    completionTokens: timings?.predicted_n ?? last?.usage?.completion_tokens ?? 0,
    promptTokens: timings?.prompt_n ?? last?.usage?.prompt_tokens ?? 0,
    cachedTokens: timings?.cache_n ?? last?.usage?.prompt_tokens_details?.cached_tokens ?? 0,
    promptMs: timings?.prompt_ms ?? 0,
    decodeMs: timings?.predicted_ms ?? 0,
    ms: Math.round(performance.now() - started),
  };
}

const sampling = (options: GenerateOptions) => ({
  max_tokens: options.maxTokens ?? 256,
  temperature: options.temperature ?? 0.7,
  // The state of the prompt's start is kept between requests: a turn reads only what is new.
  cache_prompt: true,
  ...(options.ignoreEnd ? { ignore_eos: true } : {}),
});

const api: ModelWorkerApi = {
  load,
  chat: (request, messages, options, onText) => complete(request, { messages, ...sampling(options) }, onText),
  json: (request, messages, format, options, onText) =>
    complete(
      request,
      {
      messages,
      ...sampling(options),
      // Enforced while sampling (llama.cpp turns the schema into a grammar): the text can only be JSON of the schema.
        response_format: { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: true } },
      },
      onText,
    ),
  stop(request) {
    requests.get(request)?.abort();
  },
  alive: () => true,
  async exit() {
    for (const controller of requests.values()) controller.abort();
    const model = wllama;
    wllama = null;
    await model?.exit();
  },
};

Comlink.expose(api);
