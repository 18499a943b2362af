/**
 * The catalogs' build: Paraglide JS compiles messages/<locale>.json into one ES module of typed
 * message functions per language (src/lib/i18n/paraglide/messages/<locale>.js), which the app
 * imports one language at a time (src/lib/i18n/catalog.ts). The Vite plugin (vite.config.ts) and
 * `node scripts/i18n.mjs` (before svelte-check and the unit tests) use these same options.
 */
import { fileURLToPath } from 'node:url';

/** @type {import('@inlang/paraglide-js').CompilerOptions} */
export const paraglideOptions = {
  project: fileURLToPath(new URL('../project.inlang', import.meta.url)),
  outdir: fileURLToPath(new URL('../src/lib/i18n/paraglide', import.meta.url)),
  // One module per language, not one per message holding every language: a reader downloads
  // the messages of their own language only.
  outputStructure: 'locale-modules',
  emitReadme: false,
  emitPrettierIgnore: false,
  includeEslintDisableComment: false,
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { compile } = await import('@inlang/paraglide-js');
  await compile(paraglideOptions);
  // The SDK leaves a handle open for half a minute after compiling.
  process.exit(0);
}
