import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No English written into the TypeScript of src/lib, of the workers (workers/*.ts and their
 * runtime), nor of src/ui outside its components (its `.svelte.ts` and `.ts` files;
 * tests/unit/i18n-literals.test.ts reads the `.svelte` ones), where a person would read it: src/lib
 * and the workers throw and return said texts (`said(...)`, `SaidError`, `ImportError(said)`),
 * which the page tells in the reader's language (a worker's SaidError crosses with its said text:
 * src/lib/i18n/crossing.ts), and src/ui reads `m`. Every
 * string literal and template text that reads as prose is refused, with its file and line,
 * wherever it is (a thrown error, a returned reason, a default name, a property a component
 * shows); imports, property names and catalog keys are not text.
 *
 * Every file is read unless NOT_READ names it. Kept in English: what a statement, declaration or
 * property marked by a `// internal: <why>` comment holds, text no reader of PyTabs meets (a
 * course page's script reads the embed protocol's refusals, the console gets a deployer's file's
 * problems, Jupyter shows a kernel's name); and, marked `// to the model: <why>`, text sent to the
 * assistant's model, which stays English by design (the system message tells it the person's
 * language, context.ts).
 */
const READ = ['src/lib', 'src/ui', 'workers'];

/** Files left unread, with why: all their text goes to the model. */
export const NOT_READ: Record<string, string> = {
  'src/lib/assistant/context.ts': 'the system message and the context of a question, for the model',
  'src/lib/assistant/tools.ts': 'the tools\' descriptions and results, for the model',
  'src/lib/assistant/run-summary.ts': 'a run\'s summary as the model reads it',
  'src/lib/assistant/memory.ts': 'earlier rounds as the model reads them',
};

/** A string that reads as words to a person, as tests/unit/i18n-literals.test.ts judges one. */
const PROSE = /^\s*\p{Lu}\p{Ll}*[’']?\p{Ll}*\s+\S|\p{L}{2,}\s+\p{L}{2,}.*[.!?…:]\s*$/u;
const MARK = /^\/\/\s*(internal|to the model):/;

export interface Literal {
  file: string;
  line: number;
  text: string;
}

const root = new URL('../../', import.meta.url).pathname;

function tsFiles(path: string): string[] {
  const full = join(root, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .sort()
    .flatMap((name) => tsFiles(`${path}/${name}`))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
}

/** Whether a `// internal:` comment stands right before `node` (a statement, declaration or property). */
function marked(node: ts.Node, text: string): boolean {
  return (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).some((range) => MARK.test(text.slice(range.pos, range.end)));
}

/** Every prose literal in `source` (a .ts file) that is not marked internal or for the model. */
export function libLiterals(file: string, source: string): Literal[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: Literal[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || marked(node, source)) return;
    // A property's name and a said text's key are not shown.
    if (ts.isPropertyAssignment(node)) return visit(node.initializer);
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'said') return node.arguments.slice(1).forEach(visit);
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      if (PROSE.test(node.text)) found.push({ file, line: sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.text.trim().replace(/\s+/g, ' ') });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

const read = READ.flatMap(tsFiles).filter((file) => !(file in NOT_READ));

describe('src/lib, the workers, and src/ui outside components', () => {
  for (const file of read) {
    it(`${file} writes no English for a person outside the catalogs`, () => {
      const literals = libLiterals(file, readFileSync(join(root, file), 'utf8'));
      expect(literals.map((l) => `${l.file}:${l.line}: ${JSON.stringify(l.text)}`)).toEqual([]);
    });
  }

  it('reads every TypeScript file of src/lib, the workers and src/ui, their .svelte.ts included, but those NOT_READ names, which exist', () => {
    expect(read).toContain('src/lib/assignments/grading.ts');
    expect(read).toContain('workers/model.worker.ts');
    expect(read).toContain('workers/session.worker.ts');
    expect(read).toContain('workers/runtime/session.ts');
    expect(read).toContain('workers/runtime/stdin.ts');
    expect(read).toContain('src/ui/app-state.svelte.ts');
    expect(read).toContain('src/ui/embed/embed-view.svelte.ts');
    for (const file of Object.keys(NOT_READ)) expect(statSync(join(root, file)).isFile(), file).toBe(true);
  });

  it('finds thrown, returned and defaulted prose with its line, and leaves keys, names and marked internals alone', () => {
    const source = [
      "import { said } from './i18n/said';",
      'export function check(path: string) {',
      "  if (!path) throw new ImportError('It is not a zip archive.');",
      '  if (path.length > 9) throw new Error(`A file name can have at most ${9} characters.`);',
      "  const name = path || 'Imported session';",
      "  if (name === 'x') return { kind: 'none', reason: 'This workbook has no sheets.' };",
      "  if (name === 'y') throw new SaidError(said('lib_path_empty', { name: 'Shared session' }));",
      '  // internal: the course page reads this.',
      "  if (name === 'z') return { error: 'Refused: this embed answers only for its own session.' };",
      '  // to the model: the turn that hands it the output.',
      "  if (name === 'w') return { role: 'user', content: 'Output of your code: go on.' };",
      "  if (name === 'v') return { role: 'user', content: 'Output of your code: go on.' };",
      "  return { kind: 'text', 'Not a name': 'btn primary' };",
      '}',
    ].join('\n');
    expect(libLiterals('x.ts', source)).toEqual([
      { file: 'x.ts', line: 3, text: 'It is not a zip archive.' },
      { file: 'x.ts', line: 4, text: 'A file name can have at most' },
      { file: 'x.ts', line: 5, text: 'Imported session' },
      { file: 'x.ts', line: 6, text: 'This workbook has no sheets.' },
      { file: 'x.ts', line: 7, text: 'Shared session' },
      { file: 'x.ts', line: 12, text: 'Output of your code: go on.' },
    ]);
  });
});
