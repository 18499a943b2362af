/**
 * PyTabs embed client: for the author of a page that embeds PyTabs sessions. Built to
 * `embed/pytabs-embed.js` (one ES module, no dependencies). It makes the embeds' iframes, fits
 * each iframe's height to its content, and drives an embed through its postMessage API
 * (src/lib/embed/protocol.ts). The page's origin must be listed in the PyTabs deployment's
 * `embed-origins.json`, or the embeds answer nothing (they still work for the reader).
 *
 * @example
 * import { PyTabsEmbed } from 'https://pytabs.example.org/embed/pytabs-embed.js';
 * const cell = PyTabsEmbed.create(document.querySelector('#cell'), { app: 'https://pytabs.example.org/', id: 'mean', code: 'x = 6 * 7\nx' });
 * cell.on('output', (e) => console.log(e.text));
 * const { result } = await cell.run('x + 1'); // '43'
 */
import { SHARE_VERSION, packShare, type SharedFile } from '../lib/portability/share-format';
import { embedFragment, type EmbedSettings } from '../lib/embed/fragment';
import { EMBED_PROTOCOL, readEmbedMessage, type EmbedAnswers, type EmbedCall, type EmbedEvent, type EmbedEventBody } from '../lib/embed/protocol';

export type { EmbedSettings, EmbedRun, EmbedTheme } from '../lib/embed/fragment';
export type { EmbedAnswers, EmbedEvent, EmbedRunResult, EmbedStatus, EmbedVariable } from '../lib/embed/protocol';

/** An embed as a page author describes it: where PyTabs is, the embed's options, and the author's code and text files. */
export interface EmbedSource extends EmbedSettings {
  /** The PyTabs deployment's address, e.g. 'https://pytabs.example.org/'. */
  app: string;
  code?: string;
  files?: SharedFile[];
  /** The name the embed shows (default: "Embed <id>"). */
  name?: string;
}

/** The iframe's `src` for an embed. */
export function embedUrl(source: EmbedSource): string {
  const packed = source.code !== undefined || source.files?.length ? packShare({ name: source.name ?? '', cells: [source.code ?? ''], files: source.files ?? [] }) : null;
  return `${new URL(source.app).href.replace(/#.*$/, '')}${embedFragment(source, packed ? { version: SHARE_VERSION, data: packed.data } : undefined)}`;
}

type EventName = EmbedEventBody['event'];
type EventOf<N extends EventName> = Extract<EmbedEvent, { event: N }>;

/** Whether the frame still shows the empty document it starts with (same origin as this page, so readable). */
function showsBlank(iframe: HTMLIFrameElement): boolean {
  try {
    return iframe.contentWindow?.location.href === 'about:blank';
  } catch {
    // Another origin's document: the embed, loaded.
    return false;
  }
}

/** How long, after each load of its frame, the client says hello until the embed answers, and how often. */
const HELLO_FOR_MS = 5000;
const HELLO_EVERY_MS = 250;

export interface AttachOptions {
  /** Sets the iframe's height to its content's as the embed reports it (default true). */
  fitHeight?: boolean;
  /** How long `ready` waits for the embed to answer, in ms (default 120 000: a first start downloads Python). */
  readyTimeoutMs?: number;
}

/** One embedded PyTabs session, driven from the page around it. */
export class PyTabsEmbed {
  /** Resolves with the embed's session id once it answers; rejects when it never does (is this page's origin allowed?). */
  readonly ready: Promise<string>;
  sessionId: string | null = null;
  private readonly origin: string;
  private readonly pending = new Map<string, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly listeners = new Map<EventName, Set<(event: EmbedEvent) => void>>();
  private readonly onMessage: (event: MessageEvent) => void;
  private counter = 0;
  /** Hellos said and not answered (`greet`). */
  private readonly hellos = new Set<string>();
  /** Loads of the frame seen, and the last one whose embed answered. */
  private loads = 0;
  private answeredLoad = 0;
  private destroyed = false;

  /** Attaches to an iframe already showing an embed (its `src` names the PyTabs origin). */
  constructor(
    readonly iframe: HTMLIFrameElement,
    { fitHeight = true, readyTimeoutMs = 120_000 }: AttachOptions = {},
  ) {
    this.origin = new URL(iframe.src).origin;
    let settle: { resolve: (id: string) => void; reject: (error: Error) => void };
    this.ready = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
    const timer = setTimeout(
      () => settle.reject(new Error(`The embed did not answer within ${readyTimeoutMs / 1000} s: is ${location.origin} listed in ${this.origin}'s embed-origins.json?`)),
      readyTimeoutMs,
    );
    const opened = (id: string) => {
      this.answeredLoad = this.loads;
      clearTimeout(timer);
      this.sessionId = id;
      settle.resolve(id);
    };
    this.onMessage = (event: MessageEvent) => {
      // Only this iframe's window, from the PyTabs origin: other frames cannot speak for it.
      if (event.source !== iframe.contentWindow || event.origin !== this.origin) return;
      const message = readEmbedMessage(event.data);
      if (!message) return;
      if (message.kind === 'reply') {
        if (this.hellos.delete(message.requestId)) {
          if (message.ok) opened(message.sessionId);
          return;
        }
        const waiting = this.pending.get(message.requestId);
        if (!waiting) return;
        this.pending.delete(message.requestId);
        if (message.ok) waiting.resolve(message.value);
        else waiting.reject(new Error(message.error));
        return;
      }
      if (message.event === 'ready') {
        // An embed posts `ready` once per document, before any reply: one after the first answer
        // comes from a new document of the frame (the reader reloaded it), and the calls the old
        // one was asked went away with it.
        if (this.sessionId !== null) this.refusePending("The embed's frame loaded again before it answered; what the call did is unknown (a run may have finished and been kept).");
        opened(message.sessionId);
      }
      if (message.event === 'resize' && fitHeight) iframe.style.height = `${message.height}px`;
      for (const listener of this.listeners.get(message.event) ?? []) listener(message);
    };
    addEventListener('message', this.onMessage);
    // Hello on each load of the frame, and now when it already shows the embed: an embed that was
    // ready before this attached says so again, and an embed whose browser tells it neither
    // `ancestorOrigins` nor a referrer learns this page's origin from the hello (the browser's
    // word, as `event.origin`). A frame still on about:blank (readable: it is this page's origin)
    // has no embed yet: asking it would only log a refused postMessage.
    iframe.addEventListener('load', this.greet);
    if (!showsBlank(iframe)) this.greet();
  }

  /**
   * Says hello until the embed of this load answers: a few seconds, every quarter of one, since
   * its script may start listening after the frame's load event.
   */
  private readonly greet = (): void => {
    const load = ++this.loads;
    const until = Date.now() + HELLO_FOR_MS;
    const ask = () => {
      if (this.destroyed || this.answeredLoad >= load || load !== this.loads || showsBlank(this.iframe)) return;
      const requestId = `hello${++this.counter}`;
      this.hellos.add(requestId);
      this.iframe.contentWindow?.postMessage({ op: 'hello', pytabs: EMBED_PROTOCOL, kind: 'request', requestId }, this.origin);
      if (Date.now() < until) setTimeout(ask, HELLO_EVERY_MS);
    };
    ask();
  };

  /** Makes an embed's iframe in `container` and attaches to it. */
  static create(container: Element, source: EmbedSource, options: AttachOptions & { title?: string; height?: number } = {}): PyTabsEmbed {
    const iframe = document.createElement('iframe');
    // The course page's language, where the author named none: the embed then speaks it (or, without its catalog, the reader's own).
    const lang = source.lang ?? (container.closest('[lang]')?.getAttribute('lang') || undefined);
    iframe.src = embedUrl({ ...source, lang });
    iframe.title = options.title ?? `Python: ${source.name ?? source.id}`;
    iframe.style.cssText = `width: 100%; border: 0; height: ${options.height ?? 320}px`;
    container.append(iframe);
    return new PyTabsEmbed(iframe, options);
  }

  /** Replaces an element holding code (a `<pre>`) with an embed of that code: the page's own text becomes the author's version. */
  static replace(element: Element, source: Omit<EmbedSource, 'code'>, options: AttachOptions & { title?: string; height?: number } = {}): PyTabsEmbed {
    const holder = document.createElement('div');
    element.replaceWith(holder);
    return PyTabsEmbed.create(holder, { ...source, code: element.textContent ?? '' }, options);
  }

  /** Hears the embed's events: output, input (a line the reader typed), result, error, status, resize, ready. Returns the way to stop. */
  on<N extends EventName>(event: N, listener: (event: EventOf<N>) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const wrapped = listener as (event: EmbedEvent) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  /** Runs code in the embed's session, shown in the embed as the reader's own Run is. */
  async run(code: string): Promise<EmbedAnswers['run']> {
    return this.call({ op: 'run', code }, await this.ready);
  }

  /** Writes a file into the embed's workspace (Python sees it at once). */
  async writeFile(path: string, data: string | Uint8Array): Promise<EmbedAnswers['writeFile']> {
    return this.call({ op: 'writeFile', path, data }, await this.ready);
  }

  /** A variable's type, size, preview and repr. */
  async getVariable(name: string): Promise<EmbedAnswers['getVariable']> {
    return this.call({ op: 'getVariable', name }, await this.ready);
  }

  async listVariables(): Promise<EmbedAnswers['listVariables']> {
    return this.call({ op: 'listVariables' }, await this.ready);
  }

  /** Stops listening; calls still waiting are refused. The iframe stays. */
  destroy(): void {
    this.destroyed = true;
    this.iframe.removeEventListener('load', this.greet);
    removeEventListener('message', this.onMessage);
    this.refusePending('The embed client was destroyed.');
  }

  private refusePending(why: string): void {
    for (const waiting of this.pending.values()) waiting.reject(new Error(why));
    this.pending.clear();
  }

  private call<C extends EmbedCall>(call: C, sessionId?: string): Promise<EmbedAnswers[C['op']]> {
    const requestId = `r${++this.counter}`;
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, { resolve: resolve as (value: unknown) => void, reject });
      this.iframe.contentWindow?.postMessage({ ...call, pytabs: EMBED_PROTOCOL, kind: 'request', requestId, ...(sessionId ? { sessionId } : {}) }, this.origin);
    });
  }
}
