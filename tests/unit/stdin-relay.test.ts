import { describe, expect, it } from 'vitest';
import { installStdinRelay } from '../../src/lib/offline/stdin-relay';
import type { RelayMessage } from '../../src/lib/stdin-protocol';

// The service worker's relay for input() with its real Request and Response objects; the
// events come from a stand-in scope (the real service worker runs in tests/e2e/input.spec.ts
// and in every engine in tests/engines/journeys.spec.ts).

const ORIGIN = 'https://school.example';

function relay(holdMs: number) {
  const handlers = new Map<string, (event: unknown) => void>();
  const scope = {
    location: new URL(`${ORIGIN}/app/sw.js`),
    addEventListener: (type: string, handler: (event: unknown) => void) => handlers.set(type, handler),
  };
  installStdinRelay(scope as unknown as ServiceWorkerGlobalScope, holdMs);
  return {
    post: (id: string, answer: RelayMessage['pytabsStdin']['answer']) => handlers.get('message')!({ data: { pytabsStdin: { id, answer } } }),
    /** The relay's response, or undefined when it left the request to the network. */
    ask: (url: string): Promise<Response> | undefined => {
      let response: Promise<Response> | undefined;
      handlers.get('fetch')!({ request: new Request(url), respondWith: (r: Promise<Response> | Response) => (response = Promise.resolve(r)) });
      return response;
    },
  };
}

const read = async (response: Response | undefined) => [response?.headers.get('X-PyTabs-Stdin'), await response?.text()];

describe('the input relay', () => {
  it('holds a request until the page answers it, and keeps an answer that came first', async () => {
    const r = relay(5_000);
    const held = r.ask(`${ORIGIN}/app/__pytabs/stdin?id=a`);
    r.post('b', { kind: 'line', text: 'for b' });
    r.post('a', { kind: 'line', text: 'Ada ✓' });
    expect(await read(await held)).toEqual(['line', 'Ada ✓']);
    expect(await read(await r.ask(`${ORIGIN}/app/__pytabs/stdin?id=b`))).toEqual(['line', 'for b']);
  });

  it('answers "ask again" when nobody answered in time, and passes on a stop and the end of input', async () => {
    const r = relay(50);
    expect(await read(await r.ask(`${ORIGIN}/app/__pytabs/stdin?id=c`))).toEqual(['retry', '']);
    const asked = r.ask(`${ORIGIN}/app/__pytabs/stdin?id=c`);
    r.post('c', { kind: 'cancelled' });
    expect(await read(await asked)).toEqual(['cancelled', '']);
    r.post('d', { kind: 'eof' });
    expect(await read(await r.ask(`${ORIGIN}/app/__pytabs/stdin?id=d`))).toEqual(['eof', '']);
  });

  it('ends an older request for the same id when the worker asks again', async () => {
    const r = relay(5_000);
    const first = r.ask(`${ORIGIN}/app/__pytabs/stdin?id=e`);
    const second = r.ask(`${ORIGIN}/app/__pytabs/stdin?id=e`);
    expect(await read(await first)).toEqual(['retry', '']);
    r.post('e', { kind: 'line', text: 'x' });
    expect(await read(await second)).toEqual(['line', 'x']);
  });

  it('leaves other requests alone', () => {
    const r = relay(5_000);
    expect(r.ask(`${ORIGIN}/other/__pytabs/stdin?id=a`)).toBeUndefined();
    expect(r.ask(`${ORIGIN}/app/index.html`)).toBeUndefined();
    r.post('x', { kind: 'eof' });
  });
});
