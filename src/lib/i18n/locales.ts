/**
 * The languages PyTabs speaks and how one is picked: the person's choice, else the site's
 * default, else the browser's languages, else English. Framework-free; the catalogs themselves
 * are in messages/<locale>.json (compiled by Paraglide JS, loaded by ./catalog.ts).
 */

/** The languages offered in Settings, in their order there. */
export const LANGUAGES = ['en', 'fr', 'es', 'de', 'pt-BR', 'uk', 'zh-CN', 'ar'] as const;
/** Made from English by scripts/pseudo-locales.mjs, for tests: chosen only by name, never matched from a browser's list. */
export const PSEUDO_LANGUAGES = ['en-XA', 'ar-XB'] as const;
export type Locale = (typeof LANGUAGES)[number] | (typeof PSEUDO_LANGUAGES)[number];
export const BASE_LOCALE: Locale = 'en';

/** Each language by its own name: the reader looks for theirs, not for its name in the current language. */
// internal: each language's name in its own words, as a language menu shows it to the person who reads it.
export const LANGUAGE_NAMES: Record<Locale, string> = {
  en: 'English',
  fr: 'Français',
  es: 'Español',
  de: 'Deutsch',
  'pt-BR': 'Português (Brasil)',
  uk: 'Українська',
  'zh-CN': '简体中文',
  ar: 'العربية',
  'en-XA': '⟦Ƥšéûðö-Éñĝļîšĥ⟧',
  'ar-XB': '⟦Ƥšéûðö-ŔŢĻ⟧',
};

const RIGHT_TO_LEFT: ReadonlySet<Locale> = new Set<Locale>(['ar', 'ar-XB']);

export function direction(locale: Locale): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(locale) ? 'rtl' : 'ltr';
}

/** A locale PyTabs has, exactly as written (case aside); pseudo-languages included. */
export function exactLocale(tag: unknown): Locale | null {
  if (typeof tag !== 'string') return null;
  const all: readonly Locale[] = [...LANGUAGES, ...PSEUDO_LANGUAGES];
  return all.find((locale) => locale.toLowerCase() === tag.trim().toLowerCase()) ?? null;
}

/**
 * The language PyTabs has that best serves a reader of `tag` (a BCP 47 tag from a browser or
 * a deployer): the same tag, else the same language in another region (fr-CA reads fr, pt-PT
 * reads pt-BR). Chinese written in traditional characters (zh-TW, zh-HK, zh-Hant) is not
 * served by simplified Chinese.
 */
export function matchLocale(tag: unknown): Locale | null {
  if (typeof tag !== 'string' || !tag.trim()) return null;
  const exact = exactLocale(tag);
  if (exact && (LANGUAGES as readonly string[]).includes(exact)) return exact;
  const parts = tag.trim().toLowerCase().split(/[-_]/);
  if (parts[0] === 'zh' && parts.slice(1).some((part) => ['tw', 'hk', 'mo', 'hant'].includes(part))) return null;
  return LANGUAGES.find((locale) => locale.toLowerCase().split('-')[0] === parts[0]) ?? null;
}

export type LocaleSource = 'chosen' | 'site' | 'browser' | 'default';

/** Who decides, in order: the person, the site's default file, the browser's languages, English. */
export function resolveLocale(input: { chosen?: string | null; site?: string | null; browser?: readonly string[] }): { locale: Locale; source: LocaleSource } {
  const chosen = exactLocale(input.chosen);
  if (chosen) return { locale: chosen, source: 'chosen' };
  const site = matchLocale(input.site);
  if (site) return { locale: site, source: 'site' };
  for (const tag of input.browser ?? []) {
    const match = matchLocale(tag);
    if (match) return { locale: match, source: 'browser' };
  }
  return { locale: BASE_LOCALE, source: 'default' };
}
