/** A request to anywhere but the configured endpoint's origin; never sent. */
export class OriginRefusedError extends Error {
  constructor(readonly refused: string, readonly allowed: string) {
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

/**
 * Asks whether anything answers at `url` without CORS (`mode: 'no-cors'`, no headers, no key):
 * the browser resolves such a request with an opaque response when a server answered, even one
 * that does not allow this page, and rejects it when nothing did. That is how a CORS refusal and
 * an unreachable server, which both reject a normal fetch with the same TypeError, are told apart.
 */
export async function probeReachable(origin: string, url: string, signal?: AbortSignal, base: typeof fetch = globalThis.fetch.bind(globalThis)): Promise<boolean> {
  if (new URL(url).origin !== origin) throw new OriginRefusedError(new URL(url).origin, origin);
  try {
    await base(url, { mode: 'no-cors', credentials: 'omit', referrerPolicy: 'no-referrer', redirect: 'manual', signal });
    return true;
  } catch {
    if (signal?.aborted) throw signal.reason;
    return false;
  }
}
