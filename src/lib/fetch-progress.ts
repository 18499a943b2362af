import { said, type Said } from './i18n/said';
import type { StartStep } from './worker-api';

/** How far one download has come, for a progress indicator that says what is being fetched. */
export interface FetchProgress {
  /** The file's name (the last part of its URL). */
  file: string;
  loaded: number;
  /** Its size, when the server said and the body was not re-encoded on the way; else null. */
  total: number | null;
  done: boolean;
}

/** Reports at most this often per download, plus its end. */
const REPORT_MS = 100;

/** The absolute URL a `fetch` call asks for. */
export function requestURL(input: RequestInfo | URL): string {
  if (input instanceof URL) return input.href;
  return typeof input === 'string' ? new URL(input, globalThis.location?.href).href : input.url;
}

export function fileNameOf(url: string): string {
  const path = new URL(url, globalThis.location?.href).pathname;
  return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) || url;
}

/**
 * The same response, its body counted as it streams through. Status and headers are kept
 * (WebAssembly.instantiateStreaming needs the Content-Type); the URL is not, which nothing
 * that reads these responses uses.
 */
export function countedResponse(response: Response, file: string, report: (progress: FetchProgress) => void): Response {
  if (!response.body) return response;
  const declared = Number(response.headers.get('Content-Length'));
  let total = declared > 0 ? declared : null;
  let loaded = 0;
  let lastReport = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      loaded += chunk.byteLength;
      // A compressed transfer declares the compressed size; the body arrives decoded.
      if (total !== null && loaded > total) total = null;
      const now = Date.now();
      if (now - lastReport >= REPORT_MS) {
        lastReport = now;
        report({ file, loaded, total, done: false });
      }
      controller.enqueue(chunk);
    },
    flush() {
      report({ file, loaded, total: loaded, done: true });
    },
  });
  report({ file, loaded: 0, total, done: false });
  return new Response(response.body.pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * Counts a successful response's download on a clone, leaving the response itself as the
 * browser made it (with its URL, which V8 needs to reuse a cached compile of a wasm).
 */
export function countClone(response: Response, file: string, report: (progress: FetchProgress) => void): void {
  if (response.body) void countBody(response.clone(), file, report);
}

async function countBody(response: Response, file: string, report: (progress: FetchProgress) => void): Promise<void> {
  try {
    const reader = countedResponse(response, file, report).body!.getReader();
    while (!(await reader.read()).done) {
      // Only counted: the bytes themselves go to whoever asked for the response.
    }
  } catch {
    // A download that fails is the loader's to report; its count just stops.
  }
}

/** A download as a start step: "Fetching pyodide.asm.wasm: 3.1 MB of 8.7 MB". */
export function fetchStep({ file, loaded, total, done }: FetchProgress): StartStep {
  const amount = total ? said('rt_amount_of', { loaded: byteSize(loaded), total: byteSize(total) }) : byteSize(loaded);
  return { said: said(done ? 'rt_fetched' : 'rt_fetching', { file, amount }), loaded, ...(total ? { total } : {}) };
}

/** A byte count as the catalogs' size units say it (the worker has no catalog to format it with). */
function byteSize(n: number): Said {
  if (n < 1024) return said('size_bytes', { size: n });
  const units = ['size_kb', 'size_mb', 'size_gb'] as const;
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return said(units[unit], { size: value < 10 ? value.toFixed(1) : Math.round(value) });
}
