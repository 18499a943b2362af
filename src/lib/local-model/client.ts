import * as Comlink from 'comlink';
import { within } from '../timing';
import { said, SaidError, type Said } from '../i18n/said';
import { carrySaidErrors } from '../i18n/crossing';
import { MODEL_WORKER_URL } from './runtime';
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
  /** Work done ahead of time (reading a prompt before it is asked): any other request stops it. */
  background?: boolean;
}

/** A model loaded in its worker. */
export interface LocalModel {
  readonly info: ModelInfo;
  /** Streams a chat answer (the file's chat template renders the messages) to `onText`. */
  chat(messages: ChatMessage[], options?: RequestOptions & { onText?: (text: string) => void }): Promise<CompletionResult>;
  /** An answer sampled under the schema, parsed (`value` undefined when it was stopped or cut before its JSON ended). */
  json(messages: ChatMessage[], format: JsonSchemaFormat, options?: RequestOptions & { onText?: (text: string) => void }): Promise<CompletionResult & { value: unknown }>;
  /** A request is under way. */
  readonly busy: boolean;
  /** Unloaded (on request, by a later load, or because its worker died): it answers no more. */
  readonly unloaded: boolean;
  /** Ends the worker, and with it llama.cpp and its threads: their memory goes back to the browser. */
  unload(): Promise<void>;
}

// The worker's refusals reach the page with their said text (its SaidErrors).
carrySaidErrors();

/** The page's one model: loading another unloads it. */
let current: LocalModel | null = null;

/** The worker died (out of memory, a crash in the wasm) or was ended by an unload. */
export class LocalModelGone extends SaidError {
  constructor(message: Said) {
    super(message);
    this.name = 'LocalModelGone';
  }
}

/** How long an unload waits for wllama to end its own workers before ending ours. */
const EXIT_WAIT_MS = 10_000;
/** While a call is under way the worker is asked every so often whether it still answers. */
const PING_EVERY_MS = 5_000;
/**
 * A worker that has left a question unanswered this long, and then a last one for CONFIRM_MS, is
 * taken for stuck and ended. Its thread never does long work of its own (llama.cpp runs in
 * wllama's worker), so only a thread that is blocked goes quiet: in Firefox, about one load in
 * thirty never returned from starting wllama's worker (`new Worker` inside ours).
 */
const STUCK_MS = 15_000;
const CONFIRM_MS = 5_000;

/** The model's worker stopped answering and was ended. */
export class LocalModelStuck extends LocalModelGone {
  constructor() {
    super(said('chat_model_stuck'));
    this.name = 'LocalModelStuck';
  }
}

/** The model's worker and its API; every call fails as soon as the worker does. */
class ModelWorker {
  private readonly worker = new Worker(MODEL_WORKER_URL, { type: 'module', name: 'pytabs-local-model' });
  readonly api = Comlink.wrap<ModelWorkerApi>(this.worker);
  private gone: (error: Error) => void = () => undefined;
  private readonly died = new Promise<never>((_, reject) => (this.gone = reject));

  constructor() {
    this.died.catch(() => undefined);
    this.worker.addEventListener('error', (event) => void this.end(new LocalModelGone(event.message ? said('chat_model_worker_failed', { error: event.message }) : said('chat_model_worker_crashed'))));
  }

  call<T>(promise: Promise<T>): Promise<T> {
    this.calls++;
    if (this.pinging === undefined) this.watch();
    return Promise.race([promise, this.died]).finally(() => {
      if (--this.calls === 0) this.unwatch();
    });
  }

  private calls = 0;
  /** The asking, while calls are under way (undefined: not asking). */
  private pinging: ReturnType<typeof setInterval> | undefined;

  private unwatch(): void {
    clearInterval(this.pinging);
    this.pinging = undefined;
  }

  /**
   * Asks the worker whether it answers while calls are under way; ends it when it does not. A
   * page that was busy itself (or a hidden tab's slowed timers) may find an answer not yet read:
   * a last question, given CONFIRM_MS, decides.
   */
  private watch(): void {
    let asked: number | null = null;
    const ask = () => {
      const at = performance.now();
      asked = at;
      void this.api.alive().then(() => asked === at && (asked = null), () => undefined);
    };
    this.pinging = setInterval(() => {
      if (asked === null) return ask();
      if (performance.now() - asked < STUCK_MS) return;
      this.unwatch();
      void within(this.api.alive(), CONFIRM_MS, false).then((answered) => {
        // A call that began meanwhile started asking again itself.
        if (!answered) void this.end(new LocalModelStuck());
        else if (this.calls > 0 && this.pinging === undefined) this.watch();
      });
    }, PING_EVERY_MS);
  }

  /**
   * Ends the worker. wllama ends its own worker and llama.cpp's threads first (bounded: a worker
   * that does not answer is ended anyway): terminating our worker alone while they ran left one of
   * them, and our worker with it, alive in Chromium (seen once in 5 on a busy machine).
   */
  async end(reason = new LocalModelGone(said('chat_model_unloaded'))): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.unwatch();
    this.gone(reason);
    // A stuck worker would not answer.
    if (!(reason instanceof LocalModelStuck)) await within(this.api.exit().catch(() => undefined), EXIT_WAIT_MS, undefined);
    this.worker.terminate();
  }
  /** The worker was ended (an unload, or its failure). */
  ended = false;
}

/**
 * The answer's pieces for the worker to stream to `onText`; the first of each answer leaves a
 * `pytabs:model-first-token` performance mark, which the bench's L4 reads (a call's turn reaches
 * a round only whole, so the round's events cannot tell when the model began).
 */
function pieces({ onText, background }: RequestOptions & { onText?: (text: string) => void }) {
  // No port for a caller that takes no text; a background read-ahead's token is no answer's first.
  if (!onText) return undefined;
  if (background) return Comlink.proxy(onText);
  let first = true;
  return Comlink.proxy((text: string) => {
    if (first) performance.mark('pytabs:model-first-token');
    first = false;
    onText(text);
  });
}

class WorkerModel implements LocalModel {
  private requests = 0;
  private inFlight = 0;
  /** Background requests under way, by request number: each one's stop. */
  private readonly background = new Map<number, () => void>();

  get busy(): boolean {
    return this.inFlight > 0;
  }

  get unloaded(): boolean {
    return this.link.ended;
  }

  constructor(
    private readonly link: ModelWorker,
    readonly info: ModelInfo,
  ) {}

  chat(messages: ChatMessage[], options: RequestOptions & { onText?: (text: string) => void } = {}): Promise<CompletionResult> {
    const onText = pieces(options);
    return this.run(options, (request) => this.link.api.chat(request, messages, generation(options), onText));
  }

  async json(messages: ChatMessage[], format: JsonSchemaFormat, options: RequestOptions & { onText?: (text: string) => void } = {}): Promise<CompletionResult & { value: unknown }> {
    const onText = pieces(options);
    const result = await this.run(options, (request) => this.link.api.json(request, messages, format, generation(options), onText));
    // Sampled under the schema: when it ended by itself, it parses.
    return { ...result, value: result.finish === 'stop' ? (JSON.parse(result.text) as unknown) : undefined };
  }

  async unload(): Promise<void> {
    await this.link.end();
    if (current === this) current = null;
  }

  /** One request, which the signal stops in the worker; a request asked for stops the background ones first. */
  private async run(options: RequestOptions, start: (request: number) => Promise<CompletionResult>): Promise<CompletionResult> {
    const request = ++this.requests;
    const stop = () => void this.link.api.stop(request).catch(() => undefined);
    if (options.signal?.aborted) stop();
    options.signal?.addEventListener('abort', stop, { once: true });
    if (options.background) this.background.set(request, stop);
    else for (const stopAhead of this.background.values()) stopAhead();
    this.inFlight++;
    try {
      return await this.link.call(start(request));
    } finally {
      this.inFlight--;
      this.background.delete(request);
      options.signal?.removeEventListener('abort', stop);
    }
  }
}

/** Only what the worker uses: the signal and callback stay on the page. */
const generation = ({ maxTokens, temperature, ignoreEnd }: GenerateOptions): GenerateOptions => ({ maxTokens, temperature, ignoreEnd });

/**
 * Loads a GGUF model in a worker of its own (workers/model.worker.ts), never on the page's
 * thread nor in a session's worker. Rejects with a plain message for a file that is not GGUF,
 * is cut short, or that llama.cpp refuses; the worker is ended then.
 */
export async function loadLocalModel(source: ModelSource, options: LoadOptions & { onProgress?: (progress: LoadProgress) => void } = {}): Promise<LocalModel> {
  await current?.unload();
  const { onProgress, ...load } = options;
  // The worker's own address is under assets/: a relative address means one beside the page.
  const from: ModelSource = source.kind === 'url' ? { kind: 'url', url: new URL(source.url, document.baseURI).href } : source;
  const start = async () => {
    const link = new ModelWorker();
    try {
      return { link, info: await link.call(link.api.load(from, load, onProgress ? Comlink.proxy(onProgress) : undefined)) };
    } catch (error) {
      await link.end();
      throw error;
    }
  };
  // A worker that got stuck while loading (ours, or wllama's: LoadStalled crossed as its name) is tried once more, in a new worker.
  const stalled = (error: unknown) => error instanceof Error && error.name === 'LoadStalled';
  const { link, info } = await start().catch((error: unknown) => {
    if (error instanceof LocalModelStuck || stalled(error)) {
      return start().catch((again: unknown) => {
        throw stalled(again) ? new SaidError(said('lib2_model_load_stalled')) : again;
      });
    }
    throw error;
  });
  const model = new WorkerModel(link, info);
  // Two loads at once: the last to finish stays.
  const previous = current;
  current = model;
  await previous?.unload();
  return model;
}
