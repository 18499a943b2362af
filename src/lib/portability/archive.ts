import { Unzip, UnzipInflate, zipSync, type Zippable } from 'fflate';
import { formatBytes } from '../i18n/format';
import { said } from '../i18n/said';
import { ImportError } from './errors';
import { quoteName } from '../quote-name';

/** What an archive may hold: the most an entry of this name may unpack to (throws for names it may not hold). */
export interface ArchiveRules {
  limitFor(name: string): number;
  maxEntries: number;
  /** The most all entries together may unpack to. */
  maxTotal: number;
}

/**
 * Input is pushed in slices this big, so a size check runs after each: deflate unpacks at
 * most ~1032 times its input, so no slice can unpack to more than ~17 MB past a limit.
 */
const SLICE = 16 * 1024;

const isZip = (data: Uint8Array) =>
  data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && ((data[2] === 3 && data[3] === 4) || (data[2] === 5 && data[3] === 6));

/**
 * Unpacks a zip archive, refusing it as soon as it breaks a rule: too many entries, a
 * name the rules do not allow, a declared size over a limit, or an entry that unpacks to
 * more than it declares (a zip bomb) — checked while inflating, never after.
 * Directory entries are dropped once their names pass the rules.
 */
export function readArchive(data: Uint8Array, rules: ArchiveRules): Map<string, Uint8Array> {
  if (!isZip(data)) throw new ImportError(said('lib_zip_not_zip'));
  const entries = new Map<string, Uint8Array>();
  const unfinished = new Set<string>();
  let count = 0;
  let total = 0;
  const unzip = new Unzip((file) => {
    const name = file.name;
    if (++count > rules.maxEntries) throw new ImportError(said('lib_zip_too_many', { max: rules.maxEntries }));
    if (entries.has(name) || unfinished.has(name)) throw new ImportError(said('lib_zip_twice', { name: quoteName(name) }));
    const limit = rules.limitFor(name);
    const declared = file.originalSize;
    if (declared !== undefined && declared > limit) {
      throw new ImportError(said('lib_zip_entry_too_big', { name: quoteName(name), size: formatBytes(declared), max: formatBytes(limit) }));
    }
    if (declared !== undefined && total + declared > rules.maxTotal) {
      throw new ImportError(said('lib_zip_total_too_big', { max: formatBytes(rules.maxTotal) }));
    }
    const cap = Math.min(limit, declared ?? limit);
    const chunks: Uint8Array[] = [];
    let size = 0;
    unfinished.add(name);
    file.ondata = (error, chunk, final) => {
      // fflate hands an error thrown below back to this handler: pass it on as it is.
      if (error) throw error instanceof ImportError ? error : new ImportError(said('lib_zip_entry_damaged', { name: quoteName(name), error: error.message }));
      size += chunk.length;
      total += chunk.length;
      if (size > cap) {
        throw new ImportError(
          size > limit
            ? said('lib_zip_entry_over_limit', { name: quoteName(name), max: formatBytes(limit) })
            : said('lib_zip_entry_over_declared', { name: quoteName(name), size: formatBytes(cap) }),
        );
      }
      if (total > rules.maxTotal) throw new ImportError(said('lib_zip_total_too_big', { max: formatBytes(rules.maxTotal) }));
      chunks.push(chunk);
      if (!final) return;
      unfinished.delete(name);
      if (name.endsWith('/') && size === 0) return;
      entries.set(name, joinChunks(chunks, size));
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < data.length; at += SLICE) unzip.push(data.subarray(at, at + SLICE), at + SLICE >= data.length);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    if (!unfinished.size) throw new ImportError(said('lib_zip_unreadable', { error: (error as Error).message }));
  }
  if (unfinished.size) throw new ImportError(said('lib_zip_cut_short', { name: quoteName([...unfinished][0]) }));
  return entries;
}

/** One array that owns its bytes: a view into the archive would make storage keep the whole archive. */
export function joinChunks(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0].byteLength === chunks[0].buffer.byteLength) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Packs entries into a zip; entries already compressed (another archive) are stored as they are. */
export function writeArchive(entries: Map<string, Uint8Array>, { store = false } = {}): Uint8Array {
  const zippable: Zippable = {};
  for (const [name, data] of entries) zippable[name] = [data, { level: store ? 0 : 6 }];
  return zipSync(zippable);
}
