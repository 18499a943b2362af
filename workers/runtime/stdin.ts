import type { InputChannel } from '../../src/lib/worker-api';
import { said } from '../../src/lib/i18n/said';
import { RELAY_HEADER, RELAY_RETRY, resetShared, waitShared, type InputAnswer, type WorkerAnswer } from '../../src/lib/stdin-protocol';

/**
 * Blocks the worker until the person answers request `id`. `asked` is called once the
 * channel is ready for the answer, and must post the request to the page.
 */
export type LineSource = (id: string, asked: () => void) => WorkerAnswer;

/** How long one wait on shared memory lasts before the worker looks at its interrupt byte again. */
const WAIT_SLICE_MS = 1000;
/**
 * How long a synchronous request to the relay may take. The relay answers "ask again" after
 * 20 s; a request that outlives this went to a service worker that stopped answering (Safari
 * after a reload mid-request, dodona-edu/papyros#95), and the worker asks again.
 */
const RELAY_TIMEOUT_MS = 30_000;
/**
 * How long requests to the relay may keep failing before input() gives up. WebKit has failed a
 * few in a row right after the page came under the service worker, and then answered.
 */
const RELAY_FAILING_MS = 15_000;
/** The pause between failed requests; a busy wait, as this worker has no shared memory to sleep on. */
const RELAY_RETRY_PAUSE_MS = 250;

/** The worker's side of the page's channel (src/lib/sessions/input.ts makes the page's). */
export function channelSource(channel: InputChannel, interrupt: () => Uint8Array | null): LineSource {
  switch (channel.kind) {
    case 'shared':
      return (_id, asked) => {
        resetShared(channel.buffer);
        asked();
        for (;;) {
          const answer = waitShared(channel.buffer, WAIT_SLICE_MS);
          const byte = interrupt();
          // A stop sets the interrupt byte; taken here it is this KeyboardInterrupt, not a second one.
          if (byte?.[0] === 2 || answer?.kind === 'cancelled') {
            if (byte) byte[0] = 0;
            return { kind: 'cancelled' };
          }
          if (answer) return answer;
        }
      };
    case 'relay':
      return (id, asked) => {
        asked();
        return askRelay(channel.url, id);
      };
    case 'none':
      return () => ({ kind: 'refused', text: channel.reason });
  }
}

function askRelay(url: string, id: string): WorkerAnswer {
  let failingSince: number | null = null;
  for (;;) {
    const request = new XMLHttpRequest();
    request.open('GET', `${url}?id=${encodeURIComponent(id)}`, false);
    // Allowed for synchronous requests in a worker (only a window's are refused).
    request.timeout = RELAY_TIMEOUT_MS;
    try {
      request.send();
    } catch (error) {
      const now = Date.now();
      failingSince ??= now;
      if (now - failingSince < RELAY_FAILING_MS) {
        while (Date.now() < now + RELAY_RETRY_PAUSE_MS);
        continue;
      }
      return { kind: 'refused', said: said('rt_py_w3_input_relay_lost', { error: String(error) }) };
    }
    failingSince = null;
    const mark = request.getResponseHeader(RELAY_HEADER);
    if (mark === RELAY_RETRY) continue;
    if (mark === 'line') return { kind: 'line', text: request.responseText };
    if (mark === 'eof' || mark === 'cancelled') return { kind: mark } satisfies InputAnswer;
    // The status text is the host's words.
    return { kind: 'refused', said: said('rt_py_w3_input_not_served', { status: `${request.status} ${request.statusText}`.trim() }) };
  }
}

/** A request id no other request of this page has: answers are matched to requests by it. */
export function requestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
