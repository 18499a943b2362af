import { said, SaidError } from '../i18n/said';
/**
 * The model files kept in this browser, in Cache Storage (every engine has it, WebKitGTK included,
 * where OPFS is missing): one entry per model, its description in a header of the entry, so a
 * file and what is known of it are written and removed together. A file is put here only whole
 * and checked; the browser may still evict it, which `open` reports as null.
 */

const CACHE = 'pytabs-models';
const META = 'X-PyTabs-Model';

export interface KeptModel {
  /** The entry's name: the sha256 when known, otherwise made from the name and size. */
  id: string;
  /** What the person sees: the list's name, or the file's name. */
  name: string;
  bytes: number;
  sha256?: string;
  /** Where it came from: a file the person picked, or an address. */
  from: { kind: 'file'; fileName: string } | { kind: 'url'; url: string };
  licence?: string;
  keptAt: number;
}

/** Cache Storage wants an address for each entry: one under the app that is never fetched. */
const keyOf = (id: string) => new URL(`pytabs-models/${encodeURIComponent(id)}`, globalThis.location?.href ?? 'http://localhost/').href;

function metaOf(response: Response): KeptModel | null {
  try {
    return JSON.parse(decodeURIComponent(response.headers.get(META) ?? '')) as KeptModel;
  } catch {
    return null;
  }
}

export async function listKeptModels(): Promise<KeptModel[]> {
  if (typeof caches === 'undefined') return [];
  const cache = await caches.open(CACHE);
  const models: KeptModel[] = [];
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    const meta = response && metaOf(response);
    if (meta) models.push(meta);
  }
  return models.sort((a, b) => a.keptAt - b.keptAt);
}

/** Keeps a whole, checked file; a quota error comes back in words, and nothing half-written stays. */
export async function keepModel(meta: Omit<KeptModel, 'keptAt' | 'bytes'>, file: Blob): Promise<KeptModel> {
  if (typeof caches === 'undefined') throw new SaidError(said('chat_model_no_cache'));
  const kept: KeptModel = { ...meta, bytes: file.size, keptAt: Date.now() };
  const cache = await caches.open(CACHE);
  try {
    await cache.put(
      keyOf(kept.id),
      new Response(file, { headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(file.size), [META]: encodeURIComponent(JSON.stringify(kept)) } }),
    );
  } catch (error) {
    await cache.delete(keyOf(kept.id)).catch(() => undefined);
    if (error instanceof DOMException && error.name === 'QuotaExceededError') {
      throw new SaidError(said('chat_model_no_room_to_keep', { bytes: file.size }));
    }
    throw error;
  }
  return kept;
}

/** The kept file, or null when it is gone (removed, or evicted by the browser). */
export async function openKeptModel(id: string): Promise<{ meta: KeptModel; file: Blob } | null> {
  if (typeof caches === 'undefined') return null;
  const response = await (await caches.open(CACHE)).match(keyOf(id));
  const meta = response && metaOf(response);
  if (!response || !meta) return null;
  const file = await response.blob();
  // An entry the browser cut short is as good as gone.
  if (file.size !== meta.bytes) {
    await removeKeptModel(id);
    return null;
  }
  return { meta, file };
}

export async function removeKeptModel(id: string): Promise<void> {
  if (typeof caches === 'undefined') return;
  await (await caches.open(CACHE)).delete(keyOf(id));
}

/** Removes every kept model (Erase all data). */
export async function removeAllKeptModels(): Promise<void> {
  if (typeof caches !== 'undefined') await caches.delete(CACHE);
}
