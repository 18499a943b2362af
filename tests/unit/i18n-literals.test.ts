import { readdirSync, readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { parse } from 'svelte/compiler';
import { describe, expect, it } from 'vitest';

/**
 * No user-visible literal text in any component: text in the markup, names and hints in
 * attributes (aria-label, title, placeholder, alt, label), and sentences in their scripts
 * (errors and notices they write). Code shown as code (<code>, <pre>) stays as written. Every
 * .svelte file under src is read, so a new component cannot be missed.
 */
export const COMPONENTS = readdirSync(new URL('../../src', import.meta.url), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.svelte'))
  .map((file) => `src/${file.split(sep).join('/')}`)
  .sort();

const VISIBLE_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label', 'aria-description', 'aria-roledescription', 'aria-valuetext']);
const LETTERS = /\p{L}/u;
/** A string that reads as words to a person: words after a capital, or words ending a sentence ('btn primary' and 'after-first-run' do not). */
const PROSE = /^\s*\p{Lu}\p{Ll}*[’']?\p{Ll}*\s+\S|\p{L}{2,}\s+\p{L}{2,}.*[.!?…:]\s*$/u;

export interface Literal {
  file: string;
  line: number;
  text: string;
}

type Node = { type: string; start: number; end: number; [key: string]: unknown };

function lineOf(source: string, offset: number): number {
  return source.slice(0, offset).split('\n').length;
}

/** Every piece of user-visible text written into `source` (a .svelte file) instead of taken from a catalog. */
export function literalTexts(file: string, source: string): Literal[] {
  const ast = parse(source, { modern: true }) as unknown as { fragment: Node; instance?: { content: Node }; module?: { content: Node } };
  const found: Literal[] = [];
  const report = (node: Node, text: string) => found.push({ file, line: lineOf(source, node.start), text: text.trim().replace(/\s+/g, ' ') });

  function markup(node: unknown, inCode: boolean): void {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((child) => markup(child, inCode));
    const n = node as Node;
    if (n.type === 'Text' && !inCode && LETTERS.test(String(n.data))) report(n, String(n.data));
    if (n.type === 'RegularElement' || n.type === 'Component' || n.type === 'SvelteElement') {
      for (const attribute of (n.attributes as Node[]) ?? []) {
        if (attribute.type !== 'Attribute' || !VISIBLE_ATTRIBUTES.has(String(attribute.name)) || !Array.isArray(attribute.value)) continue;
        for (const part of attribute.value as Node[]) if (part.type === 'Text' && LETTERS.test(String(part.data))) report(part, String(part.data));
      }
      const code = inCode || n.name === 'code' || n.name === 'pre';
      for (const attribute of (n.attributes as Node[]) ?? []) if (attribute.type === 'Attribute' && Array.isArray(attribute.value)) script(attribute.value);
      markup(n.fragment, code);
      return;
    }
    if (n.type === 'ExpressionTag' || n.type === 'ConstTag' || n.type === 'EachBlock' || n.type === 'IfBlock' || n.type === 'AwaitBlock' || n.type === 'KeyBlock') {
      for (const key of ['expression', 'declaration', 'test']) if (n[key]) script(n[key]);
    }
    for (const [key, value] of Object.entries(n)) if (key !== 'attributes' && key !== 'expression' && key !== 'test' && key !== 'declaration' && value && typeof value === 'object') markup(value, inCode);
  }

  // Sentences in script: string literals and template texts that read as prose.
  function script(node: unknown): void {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(script);
    const n = node as Node;
    if (n.type === 'Literal' && typeof n.value === 'string' && PROSE.test(n.value)) report(n, n.value);
    if (n.type === 'TemplateElement') {
      const text = String((n.value as { cooked?: string }).cooked ?? '');
      if (PROSE.test(text)) report(n, text);
    }
    // An import's source and a property's name are not shown (CodeMirror's phrases are keyed by their English).
    if (n.type === 'ImportDeclaration') return;
    if (n.type === 'Property' && !n.computed) return script(n.value);
    for (const [key, value] of Object.entries(n)) if (key !== 'loc' && value && typeof value === 'object') script(value);
  }

  markup(ast.fragment, false);
  if (ast.instance) script(ast.instance.content);
  if (ast.module) script(ast.module.content);
  return found;
}

describe('components', () => {
  it('reads every component', () => {
    expect(COMPONENTS).toContain('src/ui/App.svelte');
    expect(COMPONENTS).toContain('src/ui/embed/Embed.svelte');
  });

  for (const file of COMPONENTS) {
    it(`${file} shows no literal text outside the catalogs`, () => {
      const literals = literalTexts(file, readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
      expect(literals.map((l) => `${l.file}:${l.line}: ${JSON.stringify(l.text)}`)).toEqual([]);
    });
  }

  it('finds text, attributes and sentences written into a component, with their lines', () => {
    const source = [
      '<script lang="ts">',
      "  let error = $state('');",
      "  const fail = () => (error = 'Could not save the file.');",
      "  const css = 'btn primary';",
      '</script>',
      '<button class={css} title="Close preview" aria-label={error}>Save</button>',
      '<p>{error}</p><code>import numpy</code>',
      '<input placeholder="Empty: the official index" />',
    ].join('\n');
    expect(literalTexts('x.svelte', source)).toEqual([
      { file: 'x.svelte', line: 6, text: 'Close preview' },
      { file: 'x.svelte', line: 6, text: 'Save' },
      { file: 'x.svelte', line: 8, text: 'Empty: the official index' },
      { file: 'x.svelte', line: 3, text: 'Could not save the file.' },
    ]);
  });
});
