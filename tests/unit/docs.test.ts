import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { marked, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';

/**
 * Every link, anchor and image in README.md and docs/*.md points at something that exists: a
 * newcomer who follows one lands where it says, and a picture the docs name is in the
 * repository (this is how CI checks that the screenshots were made). External links are only
 * checked for being well-formed: the tests have no network.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** A heading's text as GitHub renders it: code, emphasis and link text kept, markup dropped. */
function plainText(tokens: Token[]): string {
  return tokens
    .map((token) => {
      if ('tokens' in token && token.tokens) return plainText(token.tokens);
      return token.type === 'html' ? '' : ('text' in token ? token.text : '');
    })
    .join('');
}

/** GitHub's anchor for a heading: lowercase, punctuation gone except `-` and `_`, each space a `-`. */
function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings; a repeated one gets `-1`, `-2`, … as on GitHub. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  marked.walkTokens(marked.lexer(markdown), (token) => {
    if (token.type !== 'heading') return;
    const base = slug(plainText((token as Tokens.Heading).tokens));
    let candidate = base;
    let n = seen.get(base) ?? 0;
    while (found.has(candidate)) candidate = `${base}-${++n}`;
    seen.set(base, n);
    found.add(candidate);
  });
  return found;
}

interface Reference {
  href: string;
  image: boolean;
}

/** Every link and image target in a Markdown text, inline or in HTML (`href`, `src`). */
function references(markdown: string): Reference[] {
  const found: Reference[] = [];
  marked.walkTokens(marked.lexer(markdown), (token) => {
    if (token.type === 'link') found.push({ href: (token as Tokens.Link).href, image: false });
    else if (token.type === 'image') found.push({ href: (token as Tokens.Image).href, image: true });
    else if (token.type === 'html') {
      for (const match of (token as Tokens.HTML).text.matchAll(/\b(href|src)\s*=\s*["']([^"']*)["']/gi)) {
        found.push({ href: match[2], image: match[1].toLowerCase() === 'src' });
      }
    }
  });
  return found;
}

/**
 * What is wrong with each reference of `markdown`, the text of `file` (a path from `root`): an
 * external URL that does not parse, a relative file that is not there, an image that is not a
 * file, an anchor that no heading of its target makes.
 */
function brokenReferences(file: string, markdown: string, root: string): string[] {
  const problems: string[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchorsIn = (relative: string) => {
    let set = anchorsOf.get(relative);
    if (!set) anchorsOf.set(relative, (set = anchors(relative === file ? markdown : readFileSync(path.join(root, relative), 'utf8'))));
    return set;
  };
  for (const { href, image } of references(markdown)) {
    const where = `${file}: ${image ? 'image' : 'link'} ${href}`;
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href)?.[1].toLowerCase();
    if (scheme) {
      if (scheme === 'mailto') continue;
      let url: URL | null = null;
      try {
        url = new URL(href);
      } catch {
        // reported below
      }
      if (!url || !['http:', 'https:'].includes(url.protocol) || !url.hostname) problems.push(`${where}: not a well-formed http(s) URL`);
      continue;
    }
    const hash = href.indexOf('#');
    const target = decodeURIComponent(hash < 0 ? href : href.slice(0, hash));
    const anchor = hash < 0 ? null : decodeURIComponent(href.slice(hash + 1));
    const relative = target === '' ? file : path.posix.normalize(target.startsWith('/') ? target.slice(1) : path.posix.join(path.posix.dirname(file), target));
    const absolute = path.join(root, relative);
    if (relative !== file && (relative.startsWith('..') || !existsSync(absolute))) {
      problems.push(`${where}: ${relative} does not exist`);
      continue;
    }
    if (image && (relative === file || !statSync(absolute).isFile())) {
      problems.push(`${where}: ${relative} is not a file`);
      continue;
    }
    if (anchor === null) continue;
    if (!relative.endsWith('.md')) problems.push(`${where}: an anchor into a file that is not Markdown cannot be checked`);
    else if (!anchorsIn(relative).has(anchor)) problems.push(`${where}: no heading in ${relative} has the anchor #${anchor}`);
  }
  return problems;
}

describe('the docs checker', () => {
  it('makes GitHub’s anchors, duplicates numbered', () => {
    const markdown = '# PyTabs\n## The client (`embed/pytabs-embed.js`)\n## Settings → This browser\n## Offline: the service worker\n## Offline\n## Offline\n### snake_case & *more*';
    expect([...anchors(markdown)]).toEqual([
      'pytabs',
      'the-client-embedpytabs-embedjs',
      'settings--this-browser',
      'offline-the-service-worker',
      'offline',
      'offline-1',
      'snake_case--more',
    ]);
  });

  it('reports a missing file, a missing anchor, a missing image and a malformed URL', () => {
    const markdown = [
      '# Top',
      '[ok](#top) [ok too](architecture.md#storage) [bad anchor](#nowhere) [bad anchor there](architecture.md#nowhere)',
      '[missing](no-such-file.md) ![missing picture](images/no-such.png) [bad url](https://)',
      '| a |\n|---|\n| [in a table](missing-in-table.md) |',
    ].join('\n\n');
    expect(brokenReferences('docs/x.md', markdown, ROOT)).toEqual([
      'docs/x.md: link #nowhere: no heading in docs/x.md has the anchor #nowhere',
      'docs/x.md: link architecture.md#nowhere: no heading in docs/architecture.md has the anchor #nowhere',
      'docs/x.md: link no-such-file.md: docs/no-such-file.md does not exist',
      'docs/x.md: image images/no-such.png: docs/images/no-such.png does not exist',
      'docs/x.md: link https://: not a well-formed http(s) URL',
      'docs/x.md: link missing-in-table.md: docs/missing-in-table.md does not exist',
    ]);
  });
});

describe.each(DOCS)('%s', (file) => {
  it('has every link, anchor and image pointing at something that exists', () => {
    expect(brokenReferences(file, readFileSync(path.join(ROOT, file), 'utf8'), ROOT)).toEqual([]);
  });
});
