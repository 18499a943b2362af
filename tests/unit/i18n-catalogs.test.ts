import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, PSEUDO_LANGUAGES } from '../../src/lib/i18n/locales';
import { pseudoFiles } from '../../scripts/pseudo-locales.mjs';

// Every catalog (messages/<locale>.json) against English: the same keys, each with the same
// parameters, every plural with a catch-all; and the pseudo-languages made from today's English.

type Variant = { declarations: string[]; selectors: string[]; match: Record<string, string> };
type Catalog = Record<string, string | Variant[]>;

const dir = new URL('../../messages/', import.meta.url);
const read = (locale: string): Catalog => JSON.parse(readFileSync(new URL(`${locale}.json`, dir), 'utf8'));
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((found) => found[1]);

/** The parameters a message takes: its placeholders, and its variants' declared inputs. */
function parameters(value: string | Variant[]): string[] {
  if (typeof value === 'string') return [...new Set(placeholders(value))].sort();
  const names = new Set<string>();
  for (const variant of value) {
    for (const declaration of variant.declarations) if (declaration.startsWith('input ')) names.add(declaration.slice('input '.length).trim());
    for (const text of Object.values(variant.match)) for (const name of placeholders(text)) names.add(name);
  }
  return [...names].sort();
}

const english = read('en');
const keys = Object.keys(english).filter((key) => key !== '$schema');

describe('catalogs', () => {
  it('has one file per language, pseudo-languages included, and no other', () => {
    const files = readdirSync(dir).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length));
    expect(files.sort()).toEqual([...LANGUAGES, ...PSEUDO_LANGUAGES].sort());
  });

  for (const locale of [...LANGUAGES, ...PSEUDO_LANGUAGES].filter((l) => l !== 'en')) {
    it(`${locale} has every key of English with the same parameters, and nothing else`, () => {
      const catalog = read(locale);
      expect(Object.keys(catalog).filter((key) => key !== '$schema').sort()).toEqual([...keys].sort());
      for (const key of keys) expect({ key, parameters: parameters(catalog[key]) }).toEqual({ key, parameters: parameters(english[key]) });
    });
  }

  for (const locale of [...LANGUAGES, ...PSEUDO_LANGUAGES]) {
    it(`${locale}: no message is empty, and every plural has a catch-all (Arabic's few and many included)`, () => {
      const catalog = read(locale);
      for (const key of keys) {
        const value = catalog[key];
        if (typeof value === 'string') expect({ key, empty: value.trim() === '' }).toEqual({ key, empty: false });
        else for (const variant of value) expect({ key, catchAll: Object.keys(variant.match).some((when) => when.endsWith('=*')) }).toEqual({ key, catchAll: true });
      }
    });
  }

  it('the pseudo-languages are made from the English on disk (run `node scripts/pseudo-locales.mjs` after changing it)', () => {
    for (const [name, text] of Object.entries(pseudoFiles())) expect({ name, text: readFileSync(new URL(name, dir), 'utf8') }).toEqual({ name, text });
  });

  it('the pseudo-language marks every message and makes it about 40% longer', () => {
    const pseudo = read('en-XA');
    for (const key of keys) {
      const text = pseudo[key];
      if (typeof text !== 'string') continue;
      expect(text.startsWith('⟦') && text.endsWith('⟧')).toBe(true);
      const source = (english[key] as string).replace(/\{\w+\}/g, '');
      expect(text.replace(/\{\w+\}/g, '').length).toBeGreaterThanOrEqual(Math.floor(source.length * 1.4));
    }
  });
});
