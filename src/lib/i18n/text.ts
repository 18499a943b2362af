import { tell, type Said } from './said';

/**
 * A text kept or sent where both kinds meet: what a person wrote (an assert's message, a
 * docstring) stays a string, as written; what PyTabs wrote is said. A string is also what
 * was kept before PyTabs said its texts (English grades in IndexedDB, an older hand-in), so
 * both are read.
 */
export type Text = string | Said;

/** The text in the language shown: a person's words as written, a said text in words. */
export function tellText(text: Text): string {
  return typeof text === 'string' ? text : tell(text);
}
