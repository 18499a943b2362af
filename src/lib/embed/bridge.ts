import { EMBED_PROTOCOL, readRequest, type EmbedAnswers, type EmbedCall, type EmbedEventBody, type EmbedReply } from './protocol';

/** What the embed does for its page: each call on the embed's one session. */
export interface EmbedHandlers {
  run(code: string): Promise<EmbedAnswers['run']>;
  writeFile(path: string, data: Uint8Array): Promise<EmbedAnswers['writeFile']>;
  getVariable(name: string): Promise<EmbedAnswers['getVariable']>;
  listVariables(): Promise<EmbedAnswers['listVariables']>;
}

export interface BridgeTarget {
  /** This frame's window, which receives the page's messages. */
  self: Pick<Window, 'addEventListener' | 'removeEventListener'>;
  /** The page around the embed: the only window it listens to and posts to. */
  parent: Pick<Window, 'postMessage'>;
  /** The page's origin as the browser reported it (embed-session.ts); null when unknown. */
  parentOrigin: string | null;
  allowed: ReadonlySet<string>;
  /** The embed's session: every reply and event names it, and a request naming another is refused. */
  sessionId: string;
}

const encoder = new TextEncoder();

/**
 * The page's origin as the browser reports it on the page's own hello (`event.origin` of a
 * message from the parent window), for a frame told neither `ancestorOrigins` nor a referrer:
 * Firefox before it had `ancestorOrigins`, when the app's service worker serves the frame (ESR
 * 140 then gives an empty referrer), or a page whose Referrer-Policy is no-referrer. The embed
 * client says hello on each load of its frame. Null when no hello comes within `waitMs`.
 */
export function parentHelloOrigin(self: BridgeTarget['self'], parent: BridgeTarget['parent'], waitMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const done = (origin: string | null) => {
      clearTimeout(timer);
      self.removeEventListener('message', listener);
      resolve(origin);
    };
    const listener = (event: Event) => {
      const { source, origin, data } = event as MessageEvent;
      const read = source === parent ? readRequest(data) : null;
      if (read && 'request' in read && read.request.op === 'hello' && origin !== 'null') done(origin);
    };
    const timer = setTimeout(() => done(null), waitMs);
    self.addEventListener('message', listener);
  });
}

/**
 * The embed's side of the postMessage API. It is open only when the page's origin is allowed
 * (origins.ts); otherwise it neither listens nor posts, so such a page learns nothing, not even
 * that an embed is there. Open, it takes messages only from `parent` and that origin, checks
 * each (protocol.ts), refuses a request for any session but its own, and posts replies and
 * events to that exact origin, never '*'.
 */
export class EmbedBridge {
  readonly open: boolean;
  private readonly origin: string;

  constructor(
    private readonly target: BridgeTarget,
    private readonly handlers: EmbedHandlers,
  ) {
    this.open = target.parentOrigin !== null && target.allowed.has(target.parentOrigin);
    this.origin = target.parentOrigin ?? '';
  }

  /** Starts listening and tells the page the embed is ready; returns the way to stop. */
  start(): () => void {
    if (!this.open) return () => undefined;
    const listener = (event: Event) => void this.receive(event as MessageEvent);
    this.target.self.addEventListener('message', listener);
    this.post({ event: 'ready' });
    return () => this.target.self.removeEventListener('message', listener);
  }

  /** Tells the page something (output, a status, the height); nothing when the page is not allowed. */
  post(body: EmbedEventBody): void {
    if (this.open) this.target.parent.postMessage({ ...body, pytabs: EMBED_PROTOCOL, kind: 'event', sessionId: this.target.sessionId }, this.origin);
  }

  private reply(requestId: string, answer: { value: EmbedAnswers[keyof EmbedAnswers] } | { error: string }): void {
    const base = { pytabs: EMBED_PROTOCOL, kind: 'reply', requestId, sessionId: this.target.sessionId } as const;
    const message: EmbedReply = 'error' in answer ? { ...base, ok: false, error: answer.error } : { ...base, ok: true, value: answer.value };
    this.target.parent.postMessage(message, this.origin);
  }

  private async receive(event: MessageEvent): Promise<void> {
    // Only the page around the embed, from its allowed origin: other frames and windows get nothing.
    if (event.source !== this.target.parent || event.origin !== this.origin) return;
    const read = readRequest(event.data);
    if (!read) return;
    if ('refused' in read) {
      if (read.requestId) this.reply(read.requestId, { error: `Refused: ${read.refused}` });
      return;
    }
    const { request } = read;
    if (request.op !== 'hello' && request.sessionId !== this.target.sessionId) {
      // internal: the course page's script reads this, as it reads the protocol's other refusals (protocol.ts).
      this.reply(request.requestId, { error: 'Refused: this embed answers only for its own session (the sessionId its hello or ready gave).' });
      return;
    }
    try {
      this.reply(request.requestId, { value: await this.answer(request) });
    } catch (error) {
      this.reply(request.requestId, { error: error instanceof Error ? error.message : String(error) });
    }
  }

  private answer(call: EmbedCall): Promise<EmbedAnswers[keyof EmbedAnswers]> {
    switch (call.op) {
      case 'hello':
        return Promise.resolve({ sessionId: this.target.sessionId });
      case 'run':
        return this.handlers.run(call.code);
      case 'writeFile':
        return this.handlers.writeFile(call.path, typeof call.data === 'string' ? encoder.encode(call.data) : call.data);
      case 'getVariable':
        return this.handlers.getVariable(call.name);
      case 'listVariables':
        return this.handlers.listVariables();
    }
  }
}
