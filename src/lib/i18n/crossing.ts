import * as Comlink from 'comlink';
import { SaidError, type Said } from './said';

/**
 * Comlink sends a thrown error across a worker's boundary as its name, message and stack: a
 * SaidError thrown in a worker would reach the page as the worker's English. Its 'throw'
 * handler, replaced here on both sides (each worker, and the page that wraps it), also carries
 * the error's said text, which the page then throws as a SaidError of the same name and message:
 * `errorText` and `instanceof SaidError` read it in the reader's language. Other thrown values
 * take Comlink's own way.
 */

/** An error thrown with its said text, as it crosses. */
interface SaidThrown {
  said: Said;
  name: string;
  message: string;
  stack?: string;
}

type Thrown = { value: unknown };

/** Any error that carries a said text (SaidError, storage's OpenError, a spreadsheet's error). */
function saidOf(value: unknown): Said | null {
  if (!(value instanceof Error)) return null;
  const text = (value as { said?: unknown }).said;
  // A worker loads no catalog, so the key's shape is checked, not the key itself (isSaid).
  return typeof text === 'object' && text !== null && typeof (text as Said).key === 'string' ? (text as Said) : null;
}

const isSaidThrown = (value: unknown): value is SaidThrown => typeof value === 'object' && value !== null && 'said' in value && 'message' in value;

let installed = false;

/** Replaces Comlink's 'throw' handler in this realm (the page or a worker) once. */
export function carrySaidErrors(): void {
  if (installed) return;
  installed = true;
  const comlinkThrow = Comlink.transferHandlers.get('throw') as Comlink.TransferHandler<Thrown, unknown>;
  const handler: Comlink.TransferHandler<Thrown, unknown> = {
    canHandle: comlinkThrow.canHandle,
    serialize(thrown) {
      const error = thrown.value as Error;
      const said = saidOf(error);
      if (!said) return comlinkThrow.serialize(thrown);
      const crossing: SaidThrown = { said, name: error.name, message: error.message, stack: error.stack };
      return [crossing, []];
    },
    deserialize(serialized) {
      if (!isSaidThrown(serialized)) return comlinkThrow.deserialize(serialized);
      // The worker's message (English for logs), not one worded again in the page's language.
      throw Object.assign(new SaidError(serialized.said), { name: serialized.name, message: serialized.message, stack: serialized.stack });
    },
  };
  Comlink.transferHandlers.set('throw', handler as Comlink.TransferHandler<unknown, unknown>);
}
