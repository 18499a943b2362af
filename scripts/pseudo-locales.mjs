/**
 * The two pseudo-languages, made from English: en-XA (accented, bracketed, about 40% longer) shows
 * text that no catalog gave and layouts that break on longer words; ar-XB is the same text right to
 * left, to test the mirrored layout. `node scripts/pseudo-locales.mjs` rewrites
 * messages/en-XA.json and messages/ar-XB.json; tests/unit/i18n-catalogs.test.ts fails when they
 * are out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ACCENTS = {
  a: 'á', b: 'ƀ', c: 'ç', d: 'ð', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'î', j: 'ĵ', k: 'ķ', l: 'ļ', m: 'ɱ',
  n: 'ñ', o: 'ö', p: 'þ', q: 'ǫ', r: 'ŕ', s: 'š', t: 'ţ', u: 'û', v: 'ṽ', w: 'ŵ', x: 'ẋ', y: 'ý', z: 'ž',
  A: 'Å', B: 'Ɓ', C: 'Ç', D: 'Ð', E: 'É', F: 'Ƒ', G: 'Ĝ', H: 'Ĥ', I: 'Î', J: 'Ĵ', K: 'Ķ', L: 'Ļ', M: 'Ṁ',
  N: 'Ñ', O: 'Ö', P: 'Þ', Q: 'Ǫ', R: 'Ŕ', S: 'Š', T: 'Ţ', U: 'Û', V: 'Ṽ', W: 'Ŵ', X: 'Ẋ', Y: 'Ý', Z: 'Ž',
};
/** Marks where a message starts and ends: text on screen outside them came from no catalog. */
export const PSEUDO_OPEN = '⟦';
export const PSEUDO_CLOSE = '⟧';
// Right-to-left embedding and its end: the bidi algorithm lays the text out as Arabic would.
const RLE = '\u202B';
const PDF = '\u202C';

/** One pattern's text made pseudo: letters accented, placeholders ({name}) kept, padded by 40%. */
export function pseudoText(text, rtl = false) {
  const parts = text.split(/(\{[^}]*\})/);
  const letters = parts.filter((_, i) => i % 2 === 0).join('').length;
  const body = parts.map((part, i) => (i % 2 ? part : [...part].map((ch) => ACCENTS[ch] ?? ch).join(''))).join('');
  const padding = '·'.repeat(Math.ceil(letters * 0.4));
  const marked = `${PSEUDO_OPEN}${body}${padding ? ` ${padding}` : ''}${PSEUDO_CLOSE}`;
  return rtl ? `${RLE}${marked}${PDF}` : marked;
}

/** A whole catalog made pseudo; variants (plurals) keep their structure, their texts are made pseudo. */
export function pseudoCatalog(english, rtl = false) {
  const out = {};
  for (const [key, value] of Object.entries(english)) {
    if (key === '$schema') out[key] = value;
    else if (typeof value === 'string') out[key] = pseudoText(value, rtl);
    else
      out[key] = value.map((variant) => ({
        ...variant,
        match: Object.fromEntries(Object.entries(variant.match).map(([when, text]) => [when, pseudoText(text, rtl)])),
      }));
  }
  return out;
}

export const PSEUDO_LOCALES = { 'en-XA': false, 'ar-XB': true };

const messagesDir = new URL('../messages/', import.meta.url);

/** The pseudo catalogs as they should be on disk, from messages/en.json. */
export function pseudoFiles() {
  const english = JSON.parse(readFileSync(new URL('en.json', messagesDir), 'utf8'));
  return Object.fromEntries(Object.entries(PSEUDO_LOCALES).map(([locale, rtl]) => [`${locale}.json`, `${JSON.stringify(pseudoCatalog(english, rtl), null, 2)}\n`]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, text] of Object.entries(pseudoFiles())) writeFileSync(new URL(name, messagesDir), text);
}
