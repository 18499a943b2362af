import { messages, type Messages } from './catalog';
import * as english from './paraglide/messages/en.js';

/** The prefix of the Python runtime's own messages (workers/python/pytabs/said.py). */
export const PYTHON_PREFIX = 'rt_py_';

/**
 * The Python runtime's messages in the language shown, as templates with `{name}` where a
 * parameter goes: a session's worker puts an error's str() in these words. Made from the
 * compiled catalog by asking each message for its own placeholders (these messages have no
 * plural variants, which a placeholder cannot choose).
 */
export function pythonMessages(from: Messages = messages()): Record<string, string> {
  const placeholders = new Proxy({}, { get: (_, name) => `{${String(name)}}` });
  const catalog = from as unknown as Record<string, (inputs: object) => string>;
  return Object.fromEntries(
    Object.keys(catalog)
      .filter((key) => key.startsWith(PYTHON_PREFIX))
      .map((key) => [key, catalog[key](placeholders)]),
  );
}

/** The Python runtime's messages in English: its words until a session's start sends the reader's. */
export function englishPythonMessages(): Record<string, string> {
  return pythonMessages(english as unknown as Messages);
}
