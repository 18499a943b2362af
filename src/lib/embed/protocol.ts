/**
 * The messages between an embed and the page around it (window.postMessage). Free of the app's
 * other modules: the embed (bridge.ts) and the page's client (src/embed-client) both import it,
 * so a mismatch is a compile error. Every message has `pytabs: 'embed'`; requests carry a request
 * id, replies that id, and replies and events the embed's session id.
 */
export const EMBED_PROTOCOL = 'embed';

/** The most a request may carry: code as a chat message may, a file as a message's attachment. */
export const MAX_CODE_CHARS = 1_000_000;
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_PATH_CHARS = 1000;
const MAX_REQUEST_ID = 100;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/** What a page asks of an embed. `hello` needs no session id: it answers with it. */
export type EmbedCall =
  | { op: 'hello' }
  | { op: 'run'; code: string }
  | { op: 'writeFile'; path: string; data: string | Uint8Array }
  | { op: 'getVariable'; name: string }
  | { op: 'listVariables' };

export type EmbedRequest = EmbedCall & { pytabs: typeof EMBED_PROTOCOL; kind: 'request'; requestId: string; sessionId?: string };

/** A variable as the page sees it: the Variables panel's facts and, for getVariable, the value's repr. */
export interface EmbedVariable {
  name: string;
  type: string;
  sizeBytes: number;
  preview: string;
  persisted: boolean;
  repr?: string;
}

/** What a run gave: its state, the last expression's value (its text/plain), the error. */
export interface EmbedRunResult {
  status: 'ok' | 'error' | 'stopped';
  result?: string;
  error?: { ename: string; evalue: string; traceback: string };
  stdout: string;
  stderr: string;
  /** The lines typed in answer to input(), in order (a password as ''); absent when none was asked. */
  input?: string[];
}

export interface EmbedAnswers {
  hello: { sessionId: string };
  run: EmbedRunResult;
  writeFile: { path: string; size: number };
  getVariable: EmbedVariable;
  listVariables: EmbedVariable[];
}

export type EmbedReply =
  | { pytabs: typeof EMBED_PROTOCOL; kind: 'reply'; requestId: string; sessionId: string; ok: true; value: EmbedAnswers[keyof EmbedAnswers] }
  | { pytabs: typeof EMBED_PROTOCOL; kind: 'reply'; requestId: string; sessionId: string; ok: false; error: string };

export type EmbedStatus = 'starting' | 'ready' | 'running' | 'idle';

/** What an embed tells its page as it happens. `ready`: it may be asked now. `resize`: the height its content needs, in CSS pixels. */
export type EmbedEventBody =
  | { event: 'ready' }
  | { event: 'output'; stream: 'stdout' | 'stderr'; text: string }
  /** A line the reader typed in answer to input(), after `prompt` (already sent as output); never part of stdout. A password's `text` is empty. */
  | { event: 'input'; prompt: string; text: string; request: string; password?: boolean }
  | { event: 'result'; text: string }
  | { event: 'error'; error: { ename: string; evalue: string; traceback: string } }
  | { event: 'status'; status: EmbedStatus }
  | { event: 'resize'; height: number };

export type EmbedEvent = EmbedEventBody & { pytabs: typeof EMBED_PROTOCOL; kind: 'event'; sessionId: string };

export type EmbedMessage = EmbedReply | EmbedEvent;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;

/** The bytes `text` takes in UTF-8, as TextEncoder writes it (a lone surrogate as U+FFFD, 3 bytes), without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Text whose UTF-8 (what is written to the file) is at most `max` bytes. */
const isTextOfBytes = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max && (v.length * 3 <= max || utf8Length(v) <= max);

/**
 * A page's message checked field by field: the request, or why it is refused (with its request
 * id when it had a usable one, so the page can be told), or null when it is not a PyTabs embed
 * message at all (other scripts on a page post messages too).
 */
// internal: refusals go to the course page's script (its developer reads them), as the protocol's other fields do.
export function readRequest(data: unknown): { request: EmbedRequest } | { refused: string; requestId: string | null } | null {
  if (!isRecord(data) || data.pytabs !== EMBED_PROTOCOL || data.kind !== 'request') return null;
  const requestId = isString(data.requestId, MAX_REQUEST_ID) && data.requestId ? data.requestId : null;
  const refuse = (why: string) => ({ refused: why, requestId });
  if (!requestId) return refuse(`A request needs a "requestId" of 1 to ${MAX_REQUEST_ID} characters.`);
  if (data.sessionId !== undefined && !isString(data.sessionId, 100)) return refuse('"sessionId" must be a string.');
  const base = { pytabs: EMBED_PROTOCOL, kind: 'request', requestId, ...(data.sessionId === undefined ? {} : { sessionId: data.sessionId as string }) } as const;
  switch (data.op) {
    case 'hello':
    case 'listVariables':
      return { request: { ...base, op: data.op } };
    case 'run':
      if (!isString(data.code, MAX_CODE_CHARS)) return refuse(`"code" must be text of at most ${MAX_CODE_CHARS} characters.`);
      return { request: { ...base, op: 'run', code: data.code } };
    case 'writeFile': {
      if (!isString(data.path, MAX_PATH_CHARS) || !data.path) return refuse(`"path" must be a file name of 1 to ${MAX_PATH_CHARS} characters.`);
      const ok = isTextOfBytes(data.data, MAX_FILE_BYTES) || (data.data instanceof Uint8Array && data.data.byteLength <= MAX_FILE_BYTES);
      if (!ok) return refuse(`"data" must be text or a Uint8Array of at most ${MAX_FILE_BYTES} bytes (text counts in UTF-8, as it is written).`);
      return { request: { ...base, op: 'writeFile', path: data.path, data: data.data as string | Uint8Array } };
    }
    case 'getVariable':
      if (typeof data.name !== 'string' || !IDENTIFIER.test(data.name)) return refuse('"name" must be a Python identifier.');
      return { request: { ...base, op: 'getVariable', name: data.name } };
    default:
      return refuse(`"op" must be one of hello, run, writeFile, getVariable, listVariables.`);
  }
}

/** An embed's message checked, as the page's client reads it; null for anything else. */
export function readEmbedMessage(data: unknown): EmbedMessage | null {
  if (!isRecord(data) || data.pytabs !== EMBED_PROTOCOL || typeof data.sessionId !== 'string') return null;
  if (data.kind === 'reply') return typeof data.requestId === 'string' && typeof data.ok === 'boolean' ? (data as unknown as EmbedReply) : null;
  if (data.kind !== 'event') return null;
  switch (data.event) {
    case 'ready':
      return data as unknown as EmbedEvent;
    case 'output':
      return (data.stream === 'stdout' || data.stream === 'stderr') && typeof data.text === 'string' ? (data as unknown as EmbedEvent) : null;
    case 'input':
      return typeof data.prompt === 'string' && typeof data.text === 'string' && typeof data.request === 'string' ? (data as unknown as EmbedEvent) : null;
    case 'result':
      return typeof data.text === 'string' ? (data as unknown as EmbedEvent) : null;
    case 'error':
      return isRecord(data.error) ? (data as unknown as EmbedEvent) : null;
    case 'status':
      return ['starting', 'ready', 'running', 'idle'].includes(data.status as string) ? (data as unknown as EmbedEvent) : null;
    case 'resize':
      return typeof data.height === 'number' && Number.isFinite(data.height) && data.height >= 0 ? (data as unknown as EmbedEvent) : null;
    default:
      return null;
  }
}
