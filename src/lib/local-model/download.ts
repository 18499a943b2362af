import { said, SaidError, type Said } from '../i18n/said';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { formatBytes } from '../format';
import { readGgufBlobHeader, truncation, type GgufHeader } from './gguf';
import { keepModelRuntime } from './runtime';
import { keepModel, type KeptModel } from './store';

/** A model a deployer lists in `models.json` beside the app. */
export interface ListedModel {
  name: string;
  /** The file's address, relative to the app (or absolute, on a host that sends CORS). */
  file: string;
  size: number;
  sha256: string;
  licence?: string;
  /** One line on what it is good for. */
  about?: string;
}

export interface DownloadProgress {
  loaded: number;
  total: number;
  /** Bytes per second over the last seconds; 0 before there is a figure. */
  rate: number;
  /** Seconds left at that rate, or null. */
  secondsLeft: number | null;
  /** Set while the download waits to resume after the network failed. */
  retrying?: Said;
}

/** Network failures a download sits out (each resumes where the bytes stopped, when the host allows). */
const RESUMES = 5;
const RESUME_WAIT_MS = 1000;

/** The deployer's list of models beside the app; none when there is no `models.json` (or it is not a list). */
export async function listedModels(base = globalThis.location?.href): Promise<ListedModel[]> {
  let response: Response;
  try {
    response = await fetch(new URL('models.json', base), { cache: 'no-cache' });
  } catch {
    return [];
  }
  if (!response.ok || !/json/.test(response.headers.get('Content-Type') ?? '')) return [];
  const value = (await response.json().catch(() => null)) as { models?: unknown } | null;
  const models = Array.isArray(value?.models) ? value.models : [];
  return models.filter(
    (m): m is ListedModel =>
      typeof m?.name === 'string' && typeof m.file === 'string' && Number.isSafeInteger(m.size) && m.size > 0 && typeof m.sha256 === 'string' && /^[0-9a-f]{64}$/i.test(m.sha256),
  );
}

/** Tells before a download whether the browser has room for it (when it says how much it has). */
export async function roomFor(bytes: number): Promise<Said | null> {
  const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
  if (!estimate?.quota) return null;
  const free = estimate.quota - (estimate.usage ?? 0);
  // The file is written once, whole: room for it, and a little more.
  return free < bytes * 1.05 ? said('chat_model_no_room', { free: formatBytes(free), need: formatBytes(bytes) }) : null;
}

/**
 * The file's sha256, hashed as it streams: WebCrypto hashes only a whole buffer, which for a
 * model is hundreds of MB more in the page's memory.
 */
export async function sha256Hex(blob: Blob): Promise<string> {
  const hash = sha256.create();
  const reader = blob.stream().getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) hash.update(read.value);
  return bytesToHex(hash.digest());
}

/** Checks a model file before it is kept: GGUF, whole, and (when known) the listed size and sha256; returns its header. */
export async function checkModelFile(file: Blob, expected?: { size?: number; sha256?: string }): Promise<GgufHeader> {
  if (expected?.size !== undefined && file.size !== expected.size) {
    throw new SaidError(said('chat_model_size_differs', { has: file.size, listed: expected.size }));
  }
  if (file.size === 0) throw new SaidError(said('chat_model_empty'));
  const header = await readGgufBlobHeader(file);
  const cut = truncation(header, file.size);
  if (cut) throw new SaidError(said('chat_model_not_kept', { why: cut }));
  if (expected?.sha256 && (await sha256Hex(file)) !== expected.sha256.toLowerCase()) {
    throw new SaidError(said('chat_model_sha_differs'));
  }
  return header;
}

/** Keeps a file the person picked, after checking it is a whole GGUF model. */
export async function keepPickedModel(file: File): Promise<KeptModel> {
  const header = await checkModelFile(file);
  const room = await roomFor(file.size);
  if (room) throw new SaidError(room);
  const name = String(header.metadata.get('general.name') ?? '') || file.name;
  return keptWithRuntime(await keepModel({ id: `file:${file.name}:${file.size}`, name, from: { kind: 'file', fileName: file.name } }, file));
}

/**
 * A kept model with its runtime kept too, so that it answers offline before it was ever loaded.
 * Offline (a file added without network), the runtime stays missing: the first load online keeps
 * it, and a load offline says so (runtime.ts).
 */
async function keptWithRuntime(model: KeptModel): Promise<KeptModel> {
  await keepModelRuntime();
  return model;
}

/** Bytes of a download held in the page's memory before they are handed to a Blob. */
const FOLD_BYTES = 16 * 1024 * 1024;

/**
 * A download's bytes, folded into a Blob every FOLD_BYTES: a Blob's bytes are the browser's to
 * keep (Chromium holds them outside the page, on disk when they are many), so the page does not
 * hold the whole model while it arrives.
 */
class GrowingBlob {
  private whole = new Blob([]);
  private parts: Uint8Array[] = [];
  private pending = 0;

  push(bytes: Uint8Array): void {
    this.parts.push(bytes);
    this.pending += bytes.byteLength;
    if (this.pending >= FOLD_BYTES) this.fold();
  }

  clear(): void {
    this.whole = new Blob([]);
    this.parts = [];
    this.pending = 0;
  }

  blob(): Blob {
    this.fold();
    return this.whole;
  }

  private fold(): void {
    this.whole = new Blob([this.whole, ...(this.parts as BlobPart[])]);
    this.parts = [];
    this.pending = 0;
  }
}

/**
 * Downloads a model, showing bytes, rate and time left; a cut network is sat out and the download
 * resumed with a range request where the host allows it (restarted where it does not). The file is
 * checked (GGUF, size, sha256) and kept only whole; a stop or a failure keeps nothing.
 */
export async function downloadModel(
  source: { url: string; name?: string; size?: number; sha256?: string; licence?: string },
  options: { signal?: AbortSignal; onProgress?: (progress: DownloadProgress) => void } = {},
): Promise<KeptModel> {
  const url = new URL(source.url, globalThis.location?.href).href;
  if (source.size) {
    const room = await roomFor(source.size);
    if (room) throw new SaidError(room);
  }
  const file = new GrowingBlob();
  let loaded = 0;
  let total = source.size ?? 0;
  const samples: { at: number; loaded: number }[] = [];
  const report = (retrying?: Said) => {
    const now = performance.now();
    samples.push({ at: now, loaded });
    while (samples.length > 2 && now - samples[0].at > 5000) samples.shift();
    const span = (now - samples[0].at) / 1000;
    const rate = span > 0.2 ? (loaded - samples[0].loaded) / span : 0;
    options.onProgress?.({ loaded, total, rate, secondsLeft: rate > 0 && total ? (total - loaded) / rate : null, ...(retrying ? { retrying } : {}) });
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(url, { signal: options.signal, headers: loaded ? { Range: `bytes=${loaded}-` } : {}, credentials: 'omit' });
      if (loaded && response.status !== 206) {
        // The host does not resume: start again.
        file.clear();
        loaded = 0;
      }
      if (!response.ok || !response.body) throw new SaidError(said('chat_model_fetch_failed', { status: `${response.status} ${response.statusText}`.trim() }));
      if (response.headers.get('Content-Type')?.startsWith('text/html')) throw new SaidError(said('chat_model_web_page', { path: new URL(url).pathname }));
      if (!total) total = Number(response.headers.get('Content-Length')) || 0;
      const reader = response.body.getReader();
      let last = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        file.push(value);
        loaded += value.byteLength;
        if (performance.now() - last > 200) {
          last = performance.now();
          report();
        }
      }
      report();
      break;
    } catch (error) {
      // internal: an AbortError is told by its name (chat_download_stopped, chat_err_stopped), never by this message.
      if (options.signal?.aborted) throw new DOMException('The download was stopped; nothing was kept.', 'AbortError');
      // Only the network failing is sat out: an answer that is not the file is final.
      if (!(error instanceof TypeError) || attempt >= RESUMES) {
        throw error instanceof TypeError ? new SaidError(said('chat_model_download_failed', { count: attempt + 1 })) : error;
      }
      report(said('chat_model_retrying', { attempt: attempt + 1, of: RESUMES }));
      await new Promise((resolve) => setTimeout(resolve, RESUME_WAIT_MS * (attempt + 1)));
    }
  }
  const whole = file.blob();
  const header = await checkModelFile(whole, { size: source.size, sha256: source.sha256 });
  const name = source.name || String(header.metadata.get('general.name') ?? '') || new URL(url).pathname.split('/').pop() || url;
  const sha256 = source.sha256?.toLowerCase() ?? (await sha256Hex(whole));
  return keptWithRuntime(await keepModel({ id: sha256, name, sha256, from: { kind: 'url', url }, ...(source.licence ? { licence: source.licence } : {}) }, whole));
}
