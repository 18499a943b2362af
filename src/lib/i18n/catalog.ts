/**
 * The messages of the language shown. English, the base every catalog is checked against, is
 * in the app's first download; every other language is a chunk of its own, fetched when it is
 * chosen, so a reader downloads their own language's messages and no other's.
 */
import * as english from './paraglide/messages/en.js';
import { BASE_LOCALE, direction, type Locale } from './locales';

/** The catalog's message functions; one that takes no parameters is called with none. */
export type Messages = {
  [K in keyof typeof english]: (typeof english)[K] extends (inputs: infer I) => infer R ? ({} extends I ? (inputs?: I) => R : (inputs: I) => R) : never;
};

const LOADERS: Record<Exclude<Locale, 'en'>, () => Promise<Partial<typeof english>>> = {
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

let current: Locale = BASE_LOCALE;
let active: Messages = english as Messages;
/** The latest request: a slower load of an earlier choice must not win over it. */
let requested: Locale = BASE_LOCALE;
const listeners = new Set<(locale: Locale) => void>();

/** The messages of the language shown (English until another is set). */
export function messages(): Messages {
  return active;
}

export function currentLocale(): Locale {
  return current;
}

/** Calls `listener` after each change of language; returns its removal. */
export function onLocaleChange(listener: (locale: Locale) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Shows `locale` from now on: loads its catalog, then switches every message and the page's
 * `<html lang dir>` at once. Rejects (and keeps the language shown) when its chunk cannot load.
 */
export async function setLocale(locale: Locale, root: HTMLElement | undefined = globalThis.document?.documentElement): Promise<void> {
  requested = locale;
  const loaded = (locale === 'en' ? english : { ...english, ...(await LOADERS[locale]()) }) as Messages;
  if (requested !== locale) return;
  current = locale;
  active = loaded;
  if (root) {
    root.lang = locale;
    root.dir = direction(locale);
  }
  for (const listener of listeners) listener(locale);
}
