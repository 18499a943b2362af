import { said, type SaidValue } from '../i18n/said';
import { ImportError } from './errors';

// Type checks for JSON read from a file made elsewhere: each names the field it refuses (`what`:
// a file's name and the field's, as JSON writes them), in a said text.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown, what: SaidValue): Record<string, unknown> {
  if (!isRecord(value)) throw new ImportError(said('asg_json_object', { what }));
  return value;
}

export function list(value: unknown, what: SaidValue, max: number): unknown[] {
  if (!Array.isArray(value)) throw new ImportError(said('asg_json_list', { what }));
  if (value.length > max) throw new ImportError(said('asg_json_too_many', { what, count: value.length, max }));
  return value;
}

export function text(value: unknown, what: SaidValue, max: number): string {
  if (typeof value !== 'string') throw new ImportError(said('asg_json_text', { what }));
  if (value.length > max) throw new ImportError(said('asg_json_too_long', { what, max }));
  return value;
}

export function integer(value: unknown, what: SaidValue, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ImportError(said('asg_json_whole', { what, min, max }));
  }
  return value;
}

export function finite(value: unknown, what: SaidValue): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ImportError(said('asg_json_number', { what }));
  return value;
}

export function flag(value: unknown, what: SaidValue): boolean {
  if (typeof value !== 'boolean') throw new ImportError(said('asg_json_flag', { what }));
  return value;
}

/** Text (a string, or a list of strings as nbformat allows) joined into one string. */
export function multiline(value: unknown, what: SaidValue, max: number): string {
  const joined = Array.isArray(value) && value.every((part) => typeof part === 'string') ? value.join('') : value;
  return text(joined, what, max);
}

/** Parses UTF-8 JSON bytes, refusing bytes that are not UTF-8 or not JSON. */
export function parseJson(bytes: Uint8Array, what: SaidValue): unknown {
  let source: string;
  try {
    source = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ImportError(said('asg_json_not_utf8', { what }));
  }
  try {
    return JSON.parse(source);
  } catch (error) {
    throw new ImportError(said('asg_json_invalid', { what, error: (error as Error).message }));
  }
}

export const encodeJson = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value, null, 1));
