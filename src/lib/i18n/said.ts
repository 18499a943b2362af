/**
 * A text PyTabs writes outside a component (in src/lib, in a worker, in its Python runtime) as
 * a catalog key with its parameters, not as words: it crosses a worker's boundary and storage
 * as plain data, and is put in words where it is shown, in the reader's language. A grade, a
 * round or a start step kept in storage then reads in whoever opens it's language, not in the
 * language of the person who wrote it.
 */
import { englishMessages, messages, type Messages } from './catalog';

export type MessageKey = keyof Messages;
type Params<K extends MessageKey> = Parameters<Messages[K]>[0];
/** Some messages of one language, by key: a whole catalog, or a few of its messages imported by name. */
export type SomeMessages = { [K in MessageKey]?: (inputs: never) => string };
/** A parameter's value: words from a person (a name, a path) or another said text, never PyTabs' own words. */
export type SaidValue = string | number | Said;

/** A catalog key and the values of its parameters; JSON and structured-clone safe. */
export interface Said<K extends MessageKey = MessageKey> {
  key: K;
  params?: Record<string, SaidValue>;
}

/** `said('start_restoring', { count: 2 })`: typed against the English catalog's parameters. */
export function said<K extends MessageKey>(key: K, ...params: {} extends NonNullable<Params<K>> ? [params?: Params<K>] : [params: { [P in keyof NonNullable<Params<K>>]: SaidValue }]): Said<K> {
  return params[0] === undefined ? { key } : { key, params: params[0] as Record<string, SaidValue> };
}

export function isSaid(value: unknown): value is Said {
  return typeof value === 'object' && value !== null && typeof (value as Said).key === 'string' && (value as Said).key in messages();
}

/** The text in the language shown; a said parameter is put in words first. */
export function tell(text: Said): string {
  return tellWith(messages(), text);
}

/**
 * The text in English when this page has the English messages (it showed English: every page in
 * English, the tests), else in the language shown: for an error's message, which logs keep, and
 * texts an API gives beside their said. A page in French does not download English for its logs.
 */
export function tellInEnglish(text: Said): string {
  return tellWith(englishMessages() ?? messages(), text);
}

/** The text in the words of some messages of one language: a worker tells its few English texts with those alone, not a whole catalog. */
export function tellWith(catalog: SomeMessages, text: Said): string {
  const fn = catalog[text.key] as ((inputs?: Record<string, string | number>) => string) | undefined;
  // A key that a newer version wrote and this one does not know: its key is still better than nothing.
  if (!fn) return text.key;
  const params: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(text.params ?? {})) params[name] = typeof value === 'object' ? tellWith(catalog, value) : value;
  return fn(params);
}

/**
 * An error whose text is said: `message` holds English where the page has it, else the language
 * shown (tellInEnglish; for logs and the console), `said` the key the UI puts in the reader's
 * words. Crossing Comlink, only `message` survives; a worker sends the Said itself where the
 * page must translate it.
 */
export class SaidError extends Error {
  constructor(
    readonly said: Said,
    options?: ErrorOptions,
  ) {
    super(tellInEnglish(said), options);
    this.name = 'SaidError';
  }
}

/** What a caught error says, in the language shown: its Said when it has one, else its message. */
export function errorText(error: unknown): string {
  // SaidError, or another error that carries its said text (ImportError).
  if (error instanceof Error && isSaid((error as { said?: unknown }).said)) return tell((error as SaidError).said);
  if (isSaid(error)) return tell(error);
  return error instanceof Error ? error.message : String(error);
}

