import { ImportError } from '../portability/errors';
import { MAX_FRAGMENT_CHARS, lowerFirst, readSharedParams, type OpenedShare } from '../portability/share-link';
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
  if (!(allowed as readonly string[]).includes(value)) throw new ImportError(`"${name}=${value.slice(0, 20)}" is not one of ${allowed.map((a) => `"${a}"`).join(', ')}.`);
  return value as T;
}

function flag(params: URLSearchParams, name: string): boolean {
  return choice(params, name, ['0', '1'], '0') === '1';
}

function readOptions(params: URLSearchParams): EmbedOptions {
  const id = params.get(EMBED_PARAMS.id);
  if (id === null) throw new ImportError('it has no id ("id=<name>", which keeps each embed of a page apart).');
  if (!EMBED_ID.test(id)) throw new ImportError('its id must be 1 to 64 letters, digits, "-", "_", "." or ":".');
  const page = params.get(EMBED_PARAMS.page) ?? '';
  // eslint-disable-next-line no-control-regex
  if (page && (!page.startsWith('/') || page.length > MAX_PAGE_PATH || /[\u0000-\u001f\u007f]/.test(page))) {
    throw new ImportError(`its page must be a path starting with "/", at most ${MAX_PAGE_PATH} characters.`);
  }
  return {
    id,
    page,
    readOnly: flag(params, EMBED_PARAMS.readOnly),
    hideCode: choice(params, EMBED_PARAMS.hideCode, ['code', ''], '') === 'code',
    run: choice(params, EMBED_PARAMS.run, ['click', 'load'], 'click'),
    theme: choice(params, EMBED_PARAMS.theme, ['auto', 'light', 'dark'], 'auto'),
    showVariables: flag(params, EMBED_PARAMS.showVariables),
  };
}

/**
 * Reads an embed's fragment: its options, and its code as a shared link's (the same caps and
 * refusals). Anything wrong throws an ImportError saying what, before anything is written.
 */
export async function readEmbed(hash: string): Promise<OpenedEmbed> {
  try {
    if (!isEmbedLink(hash)) throw new ImportError('it is not an embed address ("#/embed?id=…").');
    if (hash.length > MAX_FRAGMENT_CHARS) throw new ImportError(`it is ${hash.length} characters long; at most ${MAX_FRAGMENT_CHARS} are opened.`);
    const params = new URLSearchParams(hash.slice(EMBED_ROUTE.length + 1));
    const options = readOptions(params);
    const author = params.has(EMBED_PARAMS.data) || params.has(EMBED_PARAMS.version) ? await readSharedParams(params) : null;
    return { options, author };
  } catch (error) {
    if (error instanceof ImportError) throw new ImportError(`Cannot show this embed: ${lowerFirst(error.message)}`);
    throw error;
  }
}
