/**
 * The components' way to the catalogs: `m.key(params)` and the formatters read the language as
 * Svelte state, so a change of language re-renders every message in place, with nothing open
 * lost and no reload.
 */
import * as i18n from '../lib/i18n';
import type { Locale, Messages } from '../lib/i18n';

let shown = $state<Locale>(i18n.currentLocale());
i18n.onLocaleChange((locale) => (shown = locale));

/** The messages of the language shown; reading one makes the reader follow a change of language. */
export const m: Messages = new Proxy({} as Messages, {
  get(_, key) {
    void shown;
    return i18n.messages()[key as keyof Messages];
  },
});

export const language = {
  get locale(): Locale {
    return shown;
  },
};

export function formatBytes(n: number): string {
  void shown;
  return i18n.formatBytes(n);
}

export function formatDuration(ms: number): string {
  void shown;
  return i18n.formatDuration(ms);
}

export function formatDateTime(ms: number): string {
  void shown;
  return i18n.formatDateTime(ms);
}

export function formatAgo(ms: number, now?: number): string {
  void shown;
  return i18n.formatAgo(ms, now);
}

export function formatCount(n: number): string {
  void shown;
  return i18n.formatCount(n);
}

const MARK = '\u0000';

/** A placeholder's value that `pieces` finds again: for a message with an element (a <time>, a <code>) inside it. */
export function slot(name: string): string {
  return `${MARK}${name}${MARK}`;
}

/** A message cut at its slots, in the language's order: text pieces, and the slots the template fills. */
export function pieces(text: string): { text: string; slot: string | null }[] {
  return text.split(new RegExp(`${MARK}(\\w+)${MARK}`)).map((part, i) => (i % 2 ? { text: '', slot: part } : { text: part, slot: null }));
}

/** "a, b and c" in the language shown. */
export function listAnd(items: readonly string[]): string {
  if (items.length < 2) return items.join('');
  return m.list_and({ first: items.slice(0, -1).join(m.list_separator()), last: items[items.length - 1] });
}

/** A said text (src/lib, a worker, the Python runtime) in the language shown, followed as `m` is. */
export function tell(text: i18n.Said): string {
  void shown;
  return i18n.tell(text);
}

/** A kept text (a person's words as written, or a said one) in the language shown, followed as `m` is. */
export function tellText(text: i18n.Text): string {
  void shown;
  return i18n.tellText(text);
}

/** What a caught error says, in the language shown. */
export function errorText(error: unknown): string {
  void shown;
  return i18n.errorText(error);
}
