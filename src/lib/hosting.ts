import { within } from './timing';

/**
 * What the host sends and what PyTabs' service worker supplies where it sends nothing
 * (src/lib/offline/isolation.ts): whether the page is cross-origin isolated, and whether the
 * session worker's network is limited, each with where that comes from, for Settings → This
 * browser. The host's own headers are read with a HEAD request, which the service worker
 * leaves to the network (its routes answer GET).
 */

/** How long Settings waits for a session's worker to say its script URL before it leaves the host's policy unknown. */
const WORKER_SCRIPT_WAIT_MS = 20_000;

let noted: (url: string) => void = () => undefined;
/** The session worker's script URL as the first started worker reported it (a file of the build, not session data). */
const workerScript = new Promise<string>((resolve) => (noted = resolve));

export function noteWorkerScript(url: string | undefined): void {
  if (url) noted(url);
}

export interface HostHeaders {
  /** The host sends COOP/COEP with the page; null when it could not be asked (offline). */
  isolation: boolean | null;
  /** The host sends a Content-Security-Policy with the session worker's script; null when unknown. */
  workerPolicy: boolean | null;
}

async function headerOf(url: string, name: string): Promise<boolean | null> {
  try {
    const response = await fetch(url, { method: 'HEAD', cache: 'no-store' });
    return response.ok ? response.headers.has(name) : null;
  } catch {
    return null;
  }
}

/** Asks the host which of the headers it sends itself. */
export async function hostHeaders(pageUrl = location.href.split('#')[0]): Promise<HostHeaders> {
  const script = await within(workerScript, WORKER_SCRIPT_WAIT_MS, null);
  const [isolation, workerPolicy] = await Promise.all([
    headerOf(pageUrl, 'Cross-Origin-Embedder-Policy'),
    script ? headerOf(script, 'Content-Security-Policy') : Promise.resolve(null),
  ]);
  return { isolation, workerPolicy };
}
