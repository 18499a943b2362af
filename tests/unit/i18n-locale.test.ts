import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { direction, matchLocale, resolveLocale } from '../../src/lib/i18n/locales';
import { LANGUAGE_KEY, loadSiteLocale, readChosenLocale, writeChosenLocale } from '../../src/lib/i18n/preference';
import { currentLocale, messages, onLocaleChange, setLocale } from '../../src/lib/i18n/catalog';
import { formatAgo, formatBytes, formatDuration } from '../../src/lib/i18n/format';
import { errorText, isSaid, said, SaidError, tell } from '../../src/lib/i18n/said';
import { formatAgo as oldAgo, formatBytes as oldBytes, formatDuration as oldDuration } from '../../src/lib/format';

// The framework-free i18n module: who picks the language, the site's file over real HTTP,
// the catalogs Paraglide compiled (loaded one language at a time), and sizes and times in them.

describe('who picks the language', () => {
  it('the person, else the site, else the browser, else English', () => {
    expect(resolveLocale({ chosen: 'de', site: 'fr', browser: ['es'] })).toEqual({ locale: 'de', source: 'chosen' });
    expect(resolveLocale({ chosen: null, site: 'fr', browser: ['es'] })).toEqual({ locale: 'fr', source: 'site' });
    expect(resolveLocale({ site: 'tlh', browser: ['ja', 'es-MX', 'fr'] })).toEqual({ locale: 'es', source: 'browser' });
    expect(resolveLocale({ browser: ['ja', 'ko'] })).toEqual({ locale: 'en', source: 'default' });
    expect(resolveLocale({ chosen: 'xx', browser: [] })).toEqual({ locale: 'en', source: 'default' });
  });

  it('a browser tag reads the same language in another region; traditional Chinese is not simplified', () => {
    expect(matchLocale('fr-CA')).toBe('fr');
    expect(matchLocale('pt-PT')).toBe('pt-BR');
    expect(matchLocale('pt')).toBe('pt-BR');
    expect(matchLocale('zh')).toBe('zh-CN');
    expect(matchLocale('zh-Hans-SG')).toBe('zh-CN');
    expect(matchLocale('zh-TW')).toBeNull();
    expect(matchLocale('zh-Hant')).toBeNull();
    expect(matchLocale('uk-UA')).toBe('uk');
    expect(matchLocale('ar-EG')).toBe('ar');
    expect(matchLocale('en-GB')).toBe('en');
    expect(matchLocale('PT-br')).toBe('pt-BR');
  });

  it('pseudo-languages are chosen by name only, never matched from a browser or a site', () => {
    expect(resolveLocale({ chosen: 'en-XA' }).locale).toBe('en-XA');
    expect(matchLocale('en-XA')).toBe('en');
    expect(matchLocale('ar-XB')).toBe('ar');
  });

  it('Arabic and its pseudo-language read right to left', () => {
    expect(direction('ar')).toBe('rtl');
    expect(direction('ar-XB')).toBe('rtl');
    expect(direction('fr')).toBe('ltr');
    expect(direction('zh-CN')).toBe('ltr');
  });

  it('the choice is kept in storage, a bad value there reads as no choice, and null forgets it', () => {
    const values = new Map<string, string>();
    const storage = { getItem: (k: string) => values.get(k) ?? null, setItem: (k: string, v: string) => void values.set(k, v), removeItem: (k: string) => void values.delete(k) };
    expect(readChosenLocale(storage)).toBeNull();
    writeChosenLocale('uk', storage);
    expect(values.get(LANGUAGE_KEY)).toBe('uk');
    expect(readChosenLocale(storage)).toBe('uk');
    values.set(LANGUAGE_KEY, 'klingon');
    expect(readChosenLocale(storage)).toBeNull();
    writeChosenLocale(null, storage);
    expect(values.has(LANGUAGE_KEY)).toBe(false);
    expect(readChosenLocale({ getItem: () => { throw new Error('blocked'); } })).toBeNull();
  });
});

describe("the site's default file", () => {
  let server: Server;
  let base = '';
  let body: string | null = null;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url !== '/app/site.json' || body === null) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/app/index.html`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('names the language beside the app; none without the file, or with a language PyTabs lacks or bad JSON', async () => {
    body = '{ "language": "fr" }';
    expect(await loadSiteLocale(base)).toBe('fr');
    body = '{ "language": "es-AR" }';
    expect(await loadSiteLocale(base)).toBe('es');
    body = null;
    expect(await loadSiteLocale(base)).toBeNull();
    body = '{ "language": "tlh" }';
    expect(await loadSiteLocale(base)).toBeNull();
    body = 'not json';
    expect(await loadSiteLocale(base)).toBeNull();
  });
});

describe('catalogs at run time', () => {
  it('switches every message and <html lang dir> at once, and tells who listens', async () => {
    const root = { lang: '', dir: '' } as HTMLElement;
    const heard: string[] = [];
    const stop = onLocaleChange((locale) => heard.push(locale));
    await setLocale('fr', root);
    expect(messages().settings_title()).toBe('Réglages');
    expect(messages().files_delete({ path: 'a.csv' })).toBe('Supprimer a.csv');
    expect([root.lang, root.dir, currentLocale()]).toEqual(['fr', 'ltr', 'fr']);
    await setLocale('ar', root);
    expect(messages().settings_title()).toBe('الإعدادات');
    expect([root.lang, root.dir]).toEqual(['ar', 'rtl']);
    await setLocale('en', root);
    expect(messages().settings_title()).toBe('Settings');
    expect([root.lang, root.dir]).toEqual(['en', 'ltr']);
    stop();
    expect(heard).toEqual(['fr', 'ar', 'en']);
  });

  it('a slower load of an earlier choice does not win over a later one', async () => {
    const root = { lang: '', dir: '' } as HTMLElement;
    const first = setLocale('de', root);
    await setLocale('en', root);
    await first;
    expect([currentLocale(), root.lang]).toEqual(['en', 'en']);
  });

  it('plurals follow each language’s rules, Arabic and Ukrainian included', async () => {
    await setLocale('en');
    expect([1, 2].map((count) => messages().sessions_variables({ count }))).toEqual(['1 variable', '2 variables']);
    await setLocale('uk');
    expect([1, 3, 5, 21].map((count) => messages().offline_files({ count }))).toEqual(['1 файл', '3 файли', '5 файлів', '21 файл']);
    await setLocale('ar');
    expect([0, 1, 2, 3, 11, 100].map((count) => messages().offline_files({ count }))).toEqual(['لا ملفات', 'ملف واحد', 'ملفان', '3 ملفات', '11 ملفًا', '100 ملفًا']);
    await setLocale('en');
  });

  it('English sizes, durations and times ago read as they did before the catalogs; French has its own', async () => {
    await setLocale('en');
    const now = Date.UTC(2026, 0, 10);
    for (const n of [0, 900, 1536, 15_000, 3 * 1024 * 1024, 5.5 * 1024 ** 3]) expect(formatBytes(n)).toBe(oldBytes(n));
    for (const ms of [0.2, 450, 2345, 12_345, 125_000]) expect(formatDuration(ms)).toBe(oldDuration(ms));
    for (const ago of [10, 600, 7200, 3 * 86_400]) expect(formatAgo(now - ago * 1000, now)).toBe(oldAgo(now - ago * 1000, now));
    await setLocale('fr');
    expect(formatBytes(1536)).toBe('1,5 Ko');
    expect(formatDuration(2345)).toBe('2,35 s');
    expect(formatAgo(now - 86_400_000, now)).toBe('il y a 1 jour');
    expect(formatAgo(now - 3 * 86_400_000, now)).toBe('il y a 3 jours');
    await setLocale('en');
  });
});

describe('a text written outside a component is said, and put in words where it is read', () => {
  it("crosses a worker's boundary and storage as data, and reads in the reader's language, nested parameters too", async () => {
    const size = said('size_kb', { size: 3 });
    const text = said('language_error', { error: size });
    expect(structuredClone(JSON.parse(JSON.stringify(text)))).toEqual(text);
    await setLocale('en', undefined);
    expect(tell(text)).toBe('This language could not be loaded: 3 KB');
    await setLocale('fr', undefined);
    try {
      expect(tell(text)).toBe(messages().language_error({ error: messages().size_kb({ size: 3 }) }));
      expect(tell(text)).toContain('3 Ko');
      // An error keeps English for logs where the page has English, and says the reader's language in the UI.
      const error = new SaidError(text);
      expect(error.message).toBe('This language could not be loaded: 3 KB');
      expect(errorText(error)).toBe(tell(text));
      expect(errorText(new Error('plain'))).toBe('plain');
      expect(isSaid(text)).toBe(true);
      expect(isSaid({ key: 'no_such_key' })).toBe(false);
      // A key this version does not know (a newer one wrote it) shows as its key, not as nothing.
      expect(tell({ key: 'no_such_key' } as never)).toBe('no_such_key');
    } finally {
      await setLocale('en', undefined);
    }
  });

  it('a page shown in French from its start never loads English: an error\'s message is in French there', async () => {
    // A fresh page's modules: the setup file loaded English in this file's own.
    vi.resetModules();
    const catalog = await import('../../src/lib/i18n/catalog');
    const { SaidError, said, tellInEnglish } = await import('../../src/lib/i18n/said');
    const text = said('language_error', { error: said('size_kb', { size: 3 }) });
    // Before any language has loaded, nothing is shown yet: a message reads as its key.
    expect(new SaidError(text).message).toBe('language_error');
    await catalog.setLocale('fr', undefined);
    expect(catalog.englishMessages()).toBeUndefined();
    const french = catalog.messages().language_error({ error: catalog.messages().size_kb({ size: 3 }) });
    expect(new SaidError(text).message).toBe(french);
    expect(tellInEnglish(text)).toBe(french);
    // Once the page has shown English, its errors' messages are in English again, whatever is shown.
    await catalog.setLocale('en', undefined);
    await catalog.setLocale('fr', undefined);
    expect(new SaidError(text).message).toBe('This language could not be loaded: 3 KB');
  });
});
