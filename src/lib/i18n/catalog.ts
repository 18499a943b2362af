/**
 * The messages of the language shown. Every language, English too, is a chunk of its own,
 * fetched when it is shown, so a reader downloads their own language's messages and no other's
 * (every catalog has every key: tests/unit/i18n-catalogs.test.ts).
 */
import type * as english from './paraglide/messages/en.js';
import { BASE_LOCALE, direction, type Locale } from './locales';

/** The catalog's message functions; one that takes no parameters is called with none. */
export type Messages = {
  [K in keyof typeof english]: (typeof english)[K] extends (inputs: infer I) => infer R ? ({} extends I ? (inputs?: I) => R : (inputs: I) => R) : never;
};

const LOADERS: Record<Locale, () => Promise<Partial<typeof english>>> = {
  en: () => import('./paraglide/messages/en.js'),
  fr: () => import('./paraglide/messages/fr.js'),
  es: () => import('./paraglide/messages/es.js'),
  de: () => import('./paraglide/messages/de.js'),
  'pt-BR': () => import('./paraglide/messages/pt-BR.js'),
  uk: () => import('./paraglide/messages/uk.js'),
  'zh-CN': () => import('./paraglide/messages/zh-CN.js'),
  ar: () => import('./paraglide/messages/ar.js'),
  'en-XA': () => import('./paraglide/messages/en-XA.js'),
  'ar-XB': () => import('./paraglide/messages/ar-XB.js'),
};

/** Before a language is loaded (the page shows nothing yet), a message reads as its key. */
const UNLOADED = new Proxy({} as Messages, { get: (_, key) => () => String(key) });

let current: Locale = BASE_LOCALE;
let active: Messages = UNLOADED;
/** English once it was shown in this page; a page in another language never loads it. */
let loadedEnglish: Messages | undefined;
/** The latest request: a slower load of an earlier choice must not win over it. */
let requested: Locale = BASE_LOCALE;
const listeners = new Set<(locale: Locale) => void>();

/** The messages of the language shown. */
export function messages(): Messages {
  return active;
}

/**
 * A worker, which loads no catalog, gives the few English messages it words itself, so that
 * code shared with the page (an error's message) words them in English there too.
 */
export function knowEnglish(some: Partial<typeof english>): void {
  loadedEnglish ??= some as unknown as Messages;
}

/** The English messages when this page has loaded them (it showed English), else undefined. */
export function englishMessages(): Messages | undefined {
  return loadedEnglish;
}

export function currentLocale(): Locale {
  return current;
}

/** Calls `listener` after each change of language; returns its removal. */
export function onLocaleChange(listener: (locale: Locale) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Starts fetching `locale`'s catalog, likely shown soon; `setLocale` then finds it loaded or on its way. */
export function preloadLocale(locale: Locale): void {
  LOADERS[locale]().catch(() => undefined);
}

/**
 * Shows `locale` from now on: loads its catalog, then switches every message and the page's
 * `<html lang dir>` at once. Rejects (and keeps the language shown) when its chunk cannot load.
 */
export async function setLocale(locale: Locale, root: HTMLElement | undefined = globalThis.document?.documentElement): Promise<void> {
  requested = locale;
  const loaded = (await LOADERS[locale]()) as Messages;
  if (locale === 'en') loadedEnglish = loaded;
  if (requested !== locale) return;
  current = locale;
  active = loaded;
  if (root) {
    root.lang = locale;
    root.dir = direction(locale);
  }
  for (const listener of listeners) listener(locale);
}
