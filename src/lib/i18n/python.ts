import { messages, type Messages } from './catalog';
import type { SomeMessages } from './said';

/** The prefix of the Python runtime's own messages (workers/python/pytabs/said.py). */
export const PYTHON_PREFIX = 'rt_py_';

export type PythonKey = Extract<keyof Messages, `${typeof PYTHON_PREFIX}${string}`>;

/**
 * The Python runtime's messages in the language shown, as templates with `{name}` where a
 * parameter goes: a session's worker puts an error's str() in these words. Made from the
 * compiled catalog by asking each message for its own placeholders (these messages have no
 * plural variants, which a placeholder cannot choose).
 */
export function pythonMessages(): Record<string, string> | undefined {
  const shown = pythonTemplates(messages());
  // None before the page's language has loaded (a session started through the API that early): the runtime keeps its English.
  return Object.keys(shown).length ? shown : undefined;
}

/** The Python messages among `from`, as templates. Without a default catalog: a worker that asks for English must not reach the shown language's. */
export function pythonTemplates(from: SomeMessages): Record<string, string> {
  const placeholders = new Proxy({}, { get: (_, name) => `{${String(name)}}` });
  const catalog = from as unknown as Record<string, (inputs: object) => string>;
  return Object.fromEntries(
    Object.keys(catalog)
      .filter((key) => key.startsWith(PYTHON_PREFIX))
      .map((key) => [key, catalog[key](placeholders)]),
  );
}
