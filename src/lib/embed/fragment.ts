/**
 * An embed's address: `<app>#/embed?id=<id>&v=1&z=<code>&<options>`. Everything is in the
 * fragment, which browsers never send to the host. Free of the app's other modules: the embed
 * client (src/embed-client) builds addresses with it, and the app reads them (options.ts).
 */
export const EMBED_ROUTE = '#/embed';

/** When the embed's code runs: on the reader's first Run (Python starts then), at once on load, or only when asked by the page. */
export type EmbedRun = 'click' | 'load';
export type EmbedTheme = 'auto' | 'light' | 'dark';

/** The options an embed's author chooses; each has a fragment parameter of its own (see EMBED_PARAMS). */
export interface EmbedSettings {
  /** Names the embed on its page: the reader's session is kept per page and id. */
  id: string;
  /** The page's own path, when one origin has many pages with embeds of the same ids. */
  page?: string;
  readOnly?: boolean;
  hideCode?: boolean;
  run?: EmbedRun;
  theme?: EmbedTheme;
  showVariables?: boolean;
  /** Offers Step through beside Run (off unless the page allows it). */
  stepThrough?: boolean;
  /** The language the embed speaks (a BCP 47 tag such as `fr` or `pt-BR`); the client passes its course page's `lang` when the author sets none. */
  lang?: string;
}

/** Fragment parameters, as docs/embedding.md ("Its address") documents them. */
export const EMBED_PARAMS = {
  id: 'id',
  page: 'page',
  readOnly: 'ro',
  hideCode: 'hide',
  run: 'run',
  theme: 'theme',
  showVariables: 'vars',
  stepThrough: 'step',
  lang: 'lang',
  version: 'v',
  data: 'z',
} as const;

/** An embed id: letters, digits, `-`, `_`, `.`, `:`, at most 64. */
export const EMBED_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
export const MAX_PAGE_PATH = 512;

/** The fragment for an embed; `data` is the packed author's version (share-format.ts), `version` its format. */
export function embedFragment(settings: EmbedSettings, packed?: { version: number; data: string }): string {
  const p = new URLSearchParams();
  p.set(EMBED_PARAMS.id, settings.id);
  if (settings.page) p.set(EMBED_PARAMS.page, settings.page);
  if (settings.readOnly) p.set(EMBED_PARAMS.readOnly, '1');
  if (settings.hideCode) p.set(EMBED_PARAMS.hideCode, 'code');
  if (settings.run && settings.run !== 'click') p.set(EMBED_PARAMS.run, settings.run);
  if (settings.theme && settings.theme !== 'auto') p.set(EMBED_PARAMS.theme, settings.theme);
  if (settings.showVariables) p.set(EMBED_PARAMS.showVariables, '1');
  if (settings.stepThrough) p.set(EMBED_PARAMS.stepThrough, '1');
  if (settings.lang) p.set(EMBED_PARAMS.lang, settings.lang);
  if (packed) {
    p.set(EMBED_PARAMS.version, String(packed.version));
    p.set(EMBED_PARAMS.data, packed.data);
  }
  return `${EMBED_ROUTE}?${p.toString()}`;
}
