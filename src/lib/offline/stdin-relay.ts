/// <reference lib="webworker" />
import { isRelayMessage, RELAY_HEADER, RELAY_PATH, RELAY_RETRY, type InputAnswer } from '../stdin-protocol';

/**
 * How long the relay holds a worker's request before it answers "ask again": browsers end a
 * fetch event that lives for minutes (and Safari has been seen to leave a service worker
 * unanswering after one), and a short hold keeps every event short.
 */
const HOLD_MS = 20_000;
/** An answer whose request never came (the worker was ended meanwhile) is forgotten after this. */
const KEEP_MS = 10 * 60_000;

/**
 * The service worker's side of input() without shared memory: a session worker's synchronous
 * request to `__pytabs/stdin?id=…` is held here until the page posts the answer for that id
 * (src/lib/sessions/input.ts). Answers that come before their request are kept for it. Each
 * answer is for one request id only, so it can never reach another session's request.
 */
export function installStdinRelay(scope: ServiceWorkerGlobalScope, holdMs = HOLD_MS): void {
  const path = new URL(RELAY_PATH, scope.location.href).pathname;
  const early = new Map<string, { answer: InputAnswer; at: number }>();
  const held = new Map<string, (answer: InputAnswer | null) => void>();

  scope.addEventListener('message', (event) => {
    if (!isRelayMessage(event.data)) return;
    const { id, answer } = event.data.pytabsStdin;
    const waiting = held.get(id);
    if (waiting) {
      held.delete(id);
      waiting(answer);
      return;
    }
    const now = Date.now();
    for (const [key, kept] of early) if (now - kept.at > KEEP_MS) early.delete(key);
    early.set(id, { answer, at: now });
  });

  scope.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    if (url.origin !== scope.location.origin || url.pathname !== path) return;
    const id = url.searchParams.get('id') ?? '';
    const kept = early.get(id);
    if (kept) {
      early.delete(id);
      event.respondWith(relayed(kept.answer));
      return;
    }
    event.respondWith(
      new Promise<Response>((resolve) => {
        const give = (answer: InputAnswer | null) => resolve(relayed(answer));
        // The worker asked again (its request before timed out): the older one ends now.
        held.get(id)?.(null);
        held.set(id, give);
        setTimeout(() => {
          if (held.get(id) !== give) return;
          held.delete(id);
          give(null);
        }, holdMs);
      }),
    );
  });
}

/** The relay's response: marked, so the worker tells it from a host's 404; null means "ask again". */
function relayed(answer: InputAnswer | null): Response {
  const headers = { [RELAY_HEADER]: answer?.kind ?? RELAY_RETRY, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' };
  return new Response(answer?.kind === 'line' ? answer.text : '', { status: 200, headers });
}
