import * as Comlink from 'comlink';
import type {
  ChatMessage,
  CompletionResult,
  GenerateOptions,
  JsonSchemaFormat,
  LoadOptions,
  LoadProgress,
  ModelInfo,
  ModelSource,
  ModelWorkerApi,
} from './worker-api';

export type { ChatMessage, CompletionResult, JsonSchemaFormat, LoadProgress, ModelInfo, ModelSource } from './worker-api';

export interface RequestOptions extends GenerateOptions {
  /** Aborting it stops the answer where it is: the result then has `finish: 'stopped'`. */
  signal?: AbortSignal;
}

/** A model loaded in its worker. */
export interface LocalModel {
  readonly info: ModelInfo;
  /** Streams a chat answer (the file's chat template renders the messages) to `onText`. */
  chat(messages: ChatMessage[], options?: RequestOptions & { onText?: (text: string) => void }): Promise<CompletionResult>;
  /** An answer sampled under the schema, parsed; throws when it was stopped or cut before its JSON ended. */
  json(messages: ChatMessage[], format: JsonSchemaFormat, options?: RequestOptions): Promise<CompletionResult & { value: unknown }>;
  /** Ends the worker, and with it llama.cpp and its threads: their memory goes back to the browser. */
  unload(): Promise<void>;
}

/** The page's one model: loading another unloads it first. */
let current: LocalModel | null = null;

/** The worker died (out of memory, a crash in the wasm) or was ended by an unload. */
export class LocalModelGone extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalModelGone';
  }
}

/**
 * Loads a GGUF model in a worker of its own (workers/model.worker.ts), never on the page's
 * thread nor in a session's worker. Rejects with a plain message for a file that is not GGUF,
 * is cut short, or that llama.cpp refuses; the worker is ended then.
 */
export async function loadLocalModel(source: ModelSource, options: LoadOptions & { onProgress?: (progress: LoadProgress) => void } = {}): Promise<LocalModel> {
  await current?.unload();
  const worker = new Worker(new URL('../../../workers/model.worker.ts', import.meta.url), { type: 'module', name: 'pytabs-local-model' });
  const api = Comlink.wrap<ModelWorkerApi>(worker);
  let ended = false;
  let gone: (error: Error) => void = () => undefined;
  const died = new Promise<never>((_, reject) => (gone = reject));
  died.catch(() => undefined);
  worker.addEventListener('error', (event) => gone(new LocalModelGone(`The local model's worker failed (${event.message || 'an uncaught error'}).`)));
  const end = () => {
    if (ended) return;
    ended = true;
    worker.terminate();
    gone(new LocalModelGone('The local model was unloaded.'));
    if (current === model) current = null;
  };
  /** A call to the worker that fails as soon as the worker does. */
  const call = <T>(promise: Promise<T>) => Promise.race([promise, died]);

  let requests = 0;
  const run = async (options: RequestOptions, start: (request: number) => Promise<CompletionResult>) => {
    const request = ++requests;
    const stop = () => void api.stop(request).catch(() => undefined);
    if (options.signal?.aborted) stop();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      return await call(start(request));
    } finally {
      options.signal?.removeEventListener('abort', stop);
    }
  };
  const generation = ({ maxTokens, temperature, ignoreEnd }: GenerateOptions) => ({ maxTokens, temperature, ignoreEnd });

  const model: LocalModel = {
    info: undefined as unknown as ModelInfo,
    chat: (messages, options = {}) =>
      run(options, (request) => api.chat(request, messages, generation(options), options.onText ? Comlink.proxy(options.onText) : undefined)),
    async json(messages, format, options = {}) {
      const result = await run(options, (request) => api.json(request, messages, format, generation(options)));
      if (result.finish !== 'stop') {
        throw new Error(result.finish === 'stopped' ? 'The answer was stopped before its JSON ended.' : 'The answer reached its token limit before its JSON ended.');
      }
      return { ...result, value: JSON.parse(result.text) as unknown };
    },
    async unload() {
      end();
    },
  };
  try {
    const { onProgress, ...load } = options;
    // The worker's own address is under assets/: a relative address means one beside the page.
    const from = source.kind === 'url' ? { kind: 'url' as const, url: new URL(source.url, document.baseURI).href } : source;
    const info = await call(api.load(from, load, onProgress ? Comlink.proxy(onProgress) : undefined));
    Object.defineProperty(model, 'info', { value: info, enumerable: true });
  } catch (error) {
    end();
    throw error;
  }
  current = model;
  return model;
}
