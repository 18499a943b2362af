/**
 * How an answer to input() travels from the page to a session's worker, on either path
 * (src/lib/worker-api.ts `InputChannel`). The page, the session worker and the service
 * worker all import this one file, so the three agree on it. It says its refusal as plain data
 * (a said text's key and parameters) and imports no catalog, which the service worker must not carry.
 */
import type { Said } from './i18n/said';

/** The longest line the person can send, in UTF-8 bytes (the shared buffer holds one). */
export const MAX_LINE_BYTES = 1024 * 1024;

/** What the person answered to one request. */
export type InputAnswer = { kind: 'line'; text: string } | { kind: 'eof' } | { kind: 'cancelled' };

/**
 * What the worker hands Python: an answer, or why nobody can answer (pytabs/stdin.py raises
 * EOFError with it): the page's words, or the worker's own said text (an `rt_py_` key, which
 * Python words in the session's language).
 */
export type WorkerAnswer = InputAnswer | { kind: 'refused'; text: string } | { kind: 'refused'; said: Said };

/*
 * The shared buffer: two Int32 slots, then the line's bytes. The worker sets the state to
 * WAITING before it asks; the page writes the line, then its length, then the state, and
 * wakes the worker with Atomics.notify on the state slot.
 */
const STATE = 0;
const LENGTH = 1;
const HEADER_BYTES = 8;
const WAITING = 0;
const STATES = ['line', 'eof', 'cancelled'] as const;

export function sharedInputBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + MAX_LINE_BYTES);
}

/** Why a line is not sent: longer than the buffer holds. */
export type LineRefusal = Said<'lib2_input_line_too_long'>;

/** The page's side: writes the answer and wakes the worker; a line too long is not sent, and its refusal returned. */
export function writeShared(buffer: SharedArrayBuffer, answer: InputAnswer): LineRefusal | null {
  const header = new Int32Array(buffer, 0, 2);
  if (answer.kind === 'line') {
    const bytes = new TextEncoder().encode(answer.text);
    if (bytes.byteLength > MAX_LINE_BYTES) return { key: 'lib2_input_line_too_long', params: { megabytes: MAX_LINE_BYTES / 1024 / 1024 } };
    new Uint8Array(buffer, HEADER_BYTES).set(bytes);
    Atomics.store(header, LENGTH, bytes.byteLength);
  }
  Atomics.store(header, STATE, STATES.indexOf(answer.kind) + 1);
  Atomics.notify(header, STATE);
  return null;
}

/** Wakes a worker waiting on the buffer without answering, so that it looks at its interrupt. */
export function wakeShared(buffer: SharedArrayBuffer): void {
  Atomics.notify(new Int32Array(buffer, 0, 2), STATE);
}

/** The worker's side, before it asks: no answer is there yet. */
export function resetShared(buffer: SharedArrayBuffer): void {
  Atomics.store(new Int32Array(buffer, 0, 2), STATE, WAITING);
}

/**
 * The worker's side: blocks up to `ms` for the answer; null if none came by then. A worker
 * blocks in slices so that it also notices a stop that came through its interrupt byte.
 */
export function waitShared(buffer: SharedArrayBuffer, ms: number): InputAnswer | null {
  const header = new Int32Array(buffer, 0, 2);
  Atomics.wait(header, STATE, WAITING, ms);
  const state = Atomics.load(header, STATE);
  if (state === WAITING) return null;
  const kind = STATES[state - 1];
  if (kind !== 'line') return { kind };
  // slice() copies into a plain buffer: TextDecoder refuses views of shared memory.
  const bytes = new Uint8Array(buffer, HEADER_BYTES, Atomics.load(header, LENGTH)).slice();
  return { kind, text: new TextDecoder().decode(bytes) };
}

/** Where a worker asks the service worker for a line, relative to the service worker's script. */
export const RELAY_PATH = '__pytabs/stdin';
/** Set on every response the relay gives, so a worker knows PyTabs' service worker answered (not the host). */
export const RELAY_HEADER = 'X-PyTabs-Stdin';
/** The relay's answer when the person has not answered yet: the worker asks again. */
export const RELAY_RETRY = 'retry';

/** What the page posts to the service worker: the answer to one request. */
export interface RelayMessage {
  pytabsStdin: { id: string; answer: InputAnswer };
}

export function isRelayMessage(data: unknown): data is RelayMessage {
  const message = (data as RelayMessage | null)?.pytabsStdin;
  return typeof message?.id === 'string' && typeof message.answer?.kind === 'string';
}
