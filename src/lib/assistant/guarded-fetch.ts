/** A request to anywhere but the configured endpoint's origin; never sent. */
export class OriginRefusedError extends Error {
  constructor(readonly refused: string, readonly allowed: string) {
    // internal: the person reads chat_err_origin_refused, made from its fields (errors.ts).
    super(`Refused to send a request to ${refused}: the assistant only talks to ${allowed}, the origin of its Base URL.`);
    this.name = 'OriginRefusedError';
  }
}

type FetchInput = string | URL | Request;

function urlOf(input: FetchInput): URL {
  return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
}

/**
 * The only `fetch` the model client gets. It sends nothing to another origin than `origin`,
 * adds the key itself (so the client never holds it) and only when `keyOrigin()` names this
 * same origin, sends no cookies and no referrer, and refuses redirects (a redirect could carry
 * the request elsewhere).
 */
export function guardedFetch(
  origin: string,
  key: () => string | null,
  keyOrigin: () => string | null,
  base: typeof fetch = globalThis.fetch.bind(globalThis),
): typeof fetch {
  return async (input: FetchInput, init?: RequestInit) => {
    const url = urlOf(input);
    if (url.origin !== origin) throw new OriginRefusedError(url.origin, origin);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    // Whatever the client put there (a placeholder) goes; the real key only to its own origin.
    headers.delete('authorization');
    const secret = key();
    if (secret && keyOrigin() === origin) headers.set('Authorization', `Bearer ${secret}`);
    return base(input instanceof Request ? new Request(input, { headers }) : url.href, {
      ...init,
      headers,
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      redirect: 'error',
    });
  };
}

/** How long a refused probe waits for the browser's report that a response came (it is queued as a task). */
const REPORT_WAIT_MS = 1500;

/**
 * Asks whether anything answers at `url` without CORS (`mode: 'no-cors'`, no headers, no key).
 * A normal fetch rejects with the same TypeError whether the browser refused the answer (CORS,
 * local network permission) or nothing answered; this tells them apart. Without cross-origin
 * isolation the probe resolves with an opaque response when a server answered, and rejects when
 * nothing did. Under `Cross-Origin-Embedder-Policy: require-corp` (this app's headers) the
 * browser refuses that opaque answer too, as it lacks `Cross-Origin-Resource-Policy`, but says so
 * in a "coep" report naming the URL (a ReportingObserver sees it): a report means a server
 * answered, none means nothing did.
 */
export async function probeReachable(origin: string, url: string, signal?: AbortSignal, base: typeof fetch = globalThis.fetch.bind(globalThis)): Promise<boolean> {
  if (new URL(url).origin !== origin) throw new OriginRefusedError(new URL(url).origin, origin);
  const refused = refusedResponse(url);
  try {
    // 'follow': the browser fails a no-cors request with any other redirect mode before sending
    // it. It carries nothing to leak, and a redirect is an answer.
    await base(url, { mode: 'no-cors', credentials: 'omit', referrerPolicy: 'no-referrer', redirect: 'follow', signal });
    return true;
  } catch {
    if (signal?.aborted) throw signal.reason;
    return await refused.seen(REPORT_WAIT_MS, signal);
  } finally {
    refused.stop();
  }
}

interface CoepReportBody {
  type?: string;
  blockedURL?: string;
}

/** Chromium exposes a COEP report's fields through the body's `toJSON()` only. */
function coepBody(report: Report): CoepReportBody | null {
  const body = report.body as (CoepReportBody & { toJSON?: () => CoepReportBody }) | null;
  return typeof body?.toJSON === 'function' ? body.toJSON() : body;
}

/** Watches for the browser's report that a response from `url` was refused for lacking CORP. */
function refusedResponse(url: string): { seen(waitMs: number, signal?: AbortSignal): Promise<boolean>; stop(): void } {
  if (typeof ReportingObserver !== 'function') return { seen: async () => false, stop: () => undefined };
  const target = new URL(url).href;
  let found = false;
  let heard = () => undefined as void;
  const observer = new ReportingObserver(
    (reports) => {
      if (reports.some((report) => coepBody(report)?.blockedURL === target)) {
        found = true;
        heard();
      }
    },
    { types: ['coep'] },
  );
  observer.observe();
  return {
    async seen(waitMs, signal) {
      if (found) return true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        heard = () => {
          clearTimeout(timer);
          resolve();
        };
        signal?.addEventListener('abort', heard, { once: true });
      });
      if (signal?.aborted) throw signal.reason;
      return found;
    },
    stop: () => observer.disconnect(),
  };
}
