/**
 * Where the language choice is kept: the person's in this browser's localStorage (read before
 * the first paint, which IndexedDB could not be), the deployer's in `site.json` beside
 * index.html (`{ "language": "fr" }`), read fresh on each start like embed-origins.json.
 */
import { LANGUAGES, exactLocale, matchLocale, type Locale } from './locales';

export const LANGUAGE_KEY = 'pytabs-language';
export const SITE_FILE = 'site.json';
/** Where the service worker keeps the last site.json it read, for offline starts (src/sw.ts); erased with every PyTabs cache. */
export const SITE_CACHE = 'pytabs-site';

/** The language the person chose in this browser; null when none (or storage is blocked). */
export function readChosenLocale(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): Locale | null {
  try {
    return exactLocale(storage?.getItem(LANGUAGE_KEY));
  } catch {
    return null;
  }
}

/** Keeps the person's choice; null forgets it (the site's default or the browser's languages apply again). */
export function writeChosenLocale(locale: Locale | null, storage: Pick<Storage, 'setItem' | 'removeItem'> = globalThis.localStorage): void {
  if (locale) storage.setItem(LANGUAGE_KEY, locale);
  else storage.removeItem(LANGUAGE_KEY);
}

/** The site's default language from its `site.json`; null without the file, or when it names no language PyTabs has (said on the console). */
export async function loadSiteLocale(appUrl: string): Promise<Locale | null> {
  let json: unknown;
  try {
    const response = await fetch(new URL(SITE_FILE, appUrl), { cache: 'no-cache', credentials: 'same-origin' });
    if (!response.ok) return null;
    json = await response.json();
  } catch {
    return null;
  }
  const language = typeof json === 'object' && json !== null ? (json as { language?: unknown }).language : undefined;
  if (language === undefined) return null;
  const locale = matchLocale(language);
  if (!locale) console.warn(`${SITE_FILE}: "language" must be one of PyTabs' languages (${LANGUAGES.join(', ')}); got ${JSON.stringify(language).slice(0, 40)}.`);
  return locale;
}
