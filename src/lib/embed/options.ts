import { exactLocale, matchLocale, type Locale } from '../i18n/locales';
import { ImportError } from '../portability/errors';
import { said } from '../i18n/said';
import { MAX_FRAGMENT_CHARS, readSharedParams, type OpenedShare } from '../portability/share-link';
import { EMBED_ID, EMBED_PARAMS, EMBED_ROUTE, MAX_PAGE_PATH, type EmbedRun, type EmbedTheme } from './fragment';

/** An embed's options as read from its fragment, every one with its value or default. */
export interface EmbedOptions {
  id: string;
  page: string;
  readOnly: boolean;
  hideCode: boolean;
  run: EmbedRun;
  theme: EmbedTheme;
  showVariables: boolean;
  stepThrough: boolean;
  /** The language the embed was asked to speak, as a tag (absent when none): `embedLocale` finds its catalog. */
  lang?: string;
}

/** An embed's address read and checked: its options, and the author's version (null when it carries no code). */
export interface OpenedEmbed {
  options: EmbedOptions;
  author: OpenedShare | null;
}

/** Whether an address's fragment is an embed's (checked or not). */
export function isEmbedLink(hash: string): boolean {
  return hash === EMBED_ROUTE || hash.startsWith(`${EMBED_ROUTE}?`);
}

function choice<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const value = params.get(name);
  if (value === null) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new ImportError(said('lib_embed_not_one_of', { option: `${name}=${value.slice(0, 20)}`, allowed: allowed.map((a) => `"${a}"`).join(', ') }));
  return value as T;
}

function flag(params: URLSearchParams, name: string): boolean {
  return choice(params, name, ['0', '1'], '0') === '1';
}

function readOptions(params: URLSearchParams): EmbedOptions {
  const id = params.get(EMBED_PARAMS.id);
  if (id === null) throw new ImportError(said('lib_embed_no_id'));
  if (!EMBED_ID.test(id)) throw new ImportError(said('lib_embed_bad_id'));
  const page = params.get(EMBED_PARAMS.page) ?? '';
  // eslint-disable-next-line no-control-regex
  if (page && (!page.startsWith('/') || page.length > MAX_PAGE_PATH || /[\u0000-\u001f\u007f]/.test(page))) {
    throw new ImportError(said('lib_embed_bad_page', { max: MAX_PAGE_PATH }));
  }
  return {
    id,
    page,
    readOnly: flag(params, EMBED_PARAMS.readOnly),
    hideCode: choice(params, EMBED_PARAMS.hideCode, ['code', ''], '') === 'code',
    run: choice(params, EMBED_PARAMS.run, ['click', 'load'], 'click'),
    theme: choice(params, EMBED_PARAMS.theme, ['auto', 'light', 'dark'], 'auto'),
    showVariables: flag(params, EMBED_PARAMS.showVariables),
    stepThrough: flag(params, EMBED_PARAMS.stepThrough),
    lang: langTag(params),
  };
}

/** A language tag as BCP 47 writes one (`fr`, `pt-BR`, `zh-Hans-CN`); the embed then shows PyTabs' closest catalog, if it has one. */
const LANG_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4}$/;

function langTag(params: URLSearchParams): string | undefined {
  const lang = params.get(EMBED_PARAMS.lang);
  if (lang === null) return undefined;
  if (!LANG_TAG.test(lang)) throw new ImportError(said('lib_embed_bad_lang', { lang: lang.slice(0, 20) }));
  return lang;
}

/**
 * The language an embed's address asks for, read before anything else (its refusals are said
 * in it too): the catalog for its `lang`, or null when it names none PyTabs has.
 */
export function embedLocale(hash: string): Locale | null {
  if (!isEmbedLink(hash)) return null;
  const lang = new URLSearchParams(hash.slice(EMBED_ROUTE.length + 1)).get(EMBED_PARAMS.lang);
  return exactLocale(lang) ?? matchLocale(lang);
}

/**
 * Reads an embed's fragment: its options, and its code as a shared link's (the same caps and
 * refusals). Anything wrong throws an ImportError saying what, before anything is written.
 */
export async function readEmbed(hash: string): Promise<OpenedEmbed> {
  try {
    if (!isEmbedLink(hash)) throw new ImportError(said('lib_embed_not_embed'));
    if (hash.length > MAX_FRAGMENT_CHARS) throw new ImportError(said('lib_share_too_long', { length: hash.length, max: MAX_FRAGMENT_CHARS }));
    const params = new URLSearchParams(hash.slice(EMBED_ROUTE.length + 1));
    const options = readOptions(params);
    const author = params.has(EMBED_PARAMS.data) || params.has(EMBED_PARAMS.version) ? await readSharedParams(params) : null;
    return { options, author };
  } catch (error) {
    if (error instanceof ImportError) throw new ImportError(said('lib_embed_cannot_show', { reason: error.said ?? error.message }));
    throw error;
  }
}
