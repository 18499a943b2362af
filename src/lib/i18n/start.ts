import { preloadLocale, setLocale } from './catalog';
import { resolveLocale, type Locale, type LocaleSource } from './locales';
import { loadSiteLocale, readChosenLocale, writeChosenLocale } from './preference';

/**
 * The page's language at its start: the person's choice, else the site's `site.json`, else the
 * browser's languages, else English; its catalog loaded and `<html lang dir>` set. The site
 * file is fetched only when the person chose nothing. A catalog that cannot load leaves English.
 */
export async function startLocale(appUrl: string = location.href): Promise<{ locale: Locale; source: LocaleSource; site: Locale | null }> {
  const chosen = readChosenLocale();
  const browser = globalThis.navigator?.languages ?? [];
  // The browser's language is fetched while the site file is asked, not after it: on a first
  // visit both are on the way to the first paint. A site default that differs costs that chunk.
  if (!chosen) preloadLocale(resolveLocale({ browser }).locale);
  const site = chosen ? null : await loadSiteLocale(appUrl);
  const picked = resolveLocale({ chosen, site, browser });
  try {
    await setLocale(picked.locale);
    return { ...picked, site };
  } catch (error) {
    // internal: the console's, for whoever deploys.
    console.warn(`The ${picked.locale} messages could not load; showing English.`, error);
    await setLocale('en');
    return { locale: 'en', source: 'default', site };
  }
}

/** The language shown when the person chooses none: the site's default, else the browser's, else English. */
export async function automaticLocale(appUrl: string = location.href): Promise<Locale> {
  return resolveLocale({ site: await loadSiteLocale(appUrl), browser: globalThis.navigator?.languages ?? [] }).locale;
}

/** The person's choice (null: none, back to the automatic one), shown at once and kept in this browser. */
export async function chooseLocale(locale: Locale | null, appUrl: string = location.href): Promise<Locale> {
  const shown = locale ?? (await automaticLocale(appUrl));
  await setLocale(shown);
  writeChosenLocale(locale);
  return shown;
}
