import { ImportError } from './errors';

// Type checks for JSON read from a file made elsewhere: each names the field it refuses.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown, what: string): Record<string, unknown> {
  if (!isRecord(value)) throw new ImportError(`${what} must be an object.`);
  return value;
}

export function list(value: unknown, what: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new ImportError(`${what} must be a list.`);
  if (value.length > max) throw new ImportError(`${what} has ${value.length} items; at most ${max} are accepted.`);
  return value;
}

export function text(value: unknown, what: string, max: number): string {
  if (typeof value !== 'string') throw new ImportError(`${what} must be text.`);
  if (value.length > max) throw new ImportError(`${what} is longer than ${max} characters.`);
  return value;
}

export function integer(value: unknown, what: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ImportError(`${what} must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

export function finite(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ImportError(`${what} must be a number.`);
  return value;
}

export function flag(value: unknown, what: string): boolean {
  if (typeof value !== 'boolean') throw new ImportError(`${what} must be true or false.`);
  return value;
}

/** Text (a string, or a list of strings as nbformat allows) joined into one string. */
export function multiline(value: unknown, what: string, max: number): string {
  const joined = Array.isArray(value) && value.every((part) => typeof part === 'string') ? value.join('') : value;
  return text(joined, what, max);
}

/** Parses UTF-8 JSON bytes, refusing bytes that are not UTF-8 or not JSON. */
export function parseJson(bytes: Uint8Array, what: string): unknown {
  let source: string;
  try {
    source = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ImportError(`${what} is not UTF-8 text.`);
  }
  try {
    return JSON.parse(source);
  } catch (error) {
    throw new ImportError(`${what} is not valid JSON (${(error as Error).message}).`);
  }
}

export const encodeJson = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value, null, 1));
