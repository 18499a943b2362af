/**
 * The headers PyTabs' service worker adds to the app's own responses, so that a host that sends
 * none (GitHub Pages, a school's web space) gets what `public/_headers` asks of hosts that read
 * it: a cross-origin isolated page (Stop interrupts, input() waits on shared memory) and a
 * session worker whose network is limited to this site and the package index. A header the host
 * sends is kept as it is, never replaced or weakened.
 */

/** The pair that makes the page cross-origin isolated, as `public/_headers` has it. */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** The session worker's script as the build names it (a worker's policy comes from its own script's response). */
export function isSessionWorkerScript(url: URL): boolean {
  return /\/assets\/session\.worker-[^/]*\.js$/.test(url.pathname);
}

/**
 * `response` with the isolation headers, and for the session worker's script its
 * Content-Security-Policy, each added only where the host sent none. A response whose headers
 * cannot be read (opaque) or that already has them all is returned as it is.
 */
export function withIsolation(url: URL, response: Response, workerPolicy: string): Response {
  if (response.type === 'opaque' || response.type === 'opaqueredirect' || response.status < 200 || response.status > 599) return response;
  const wanted: Record<string, string> = { ...ISOLATION_HEADERS };
  if (isSessionWorkerScript(url)) wanted['Content-Security-Policy'] = workerPolicy;
  const missing = Object.entries(wanted).filter(([name]) => !response.headers.has(name));
  if (!missing.length) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of missing) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
