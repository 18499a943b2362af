import { hasServiceWorkers, hasSharedMemory } from '../capabilities';
import { RELAY_PATH, sharedInputBuffer, wakeShared, writeShared, type InputAnswer, type RelayMessage } from '../stdin-protocol';
import type { InputChannel } from '../worker-api';
import { said, SaidError, tell, type Said } from '../i18n/said';

/** How input() waits in this window, and why not when it cannot: one answer for the host and for Settings. */
export type InputPath = { kind: 'shared' } | { kind: 'relay' } | { kind: 'none'; reason: Said };

/**
 * Shared memory where the page has it (the worker blocks on Atomics); else the service
 * worker's relay where one controls the page (the worker's synchronous request is held by it).
 */
export function inputPath(facts: { sharedMemory: boolean; serviceWorkers: boolean; controlled: boolean }): InputPath {
  if (facts.sharedMemory) return { kind: 'shared' };
  if (facts.controlled) return { kind: 'relay' };
  return {
    kind: 'none',
    reason: said(facts.serviceWorkers ? 'libb_input_reason_not_yet' : 'libb_input_reason_none'),
  };
}

/** The page's end of one worker's input channel. */
export interface PageInput {
  /** What the worker is told in its StartOptions. */
  readonly offer: InputChannel;
  /** Sends the answer to request `id`; throws when it cannot reach the worker. */
  answer(id: string, answer: InputAnswer): void;
  /** Wakes a worker that waits on shared memory, so that it sees a stop in its interrupt byte. */
  wake(): void;
}

/** Makes the channel for a worker about to start, on the path this window allows now. */
export function openInputChannel(): PageInput {
  const controller = hasServiceWorkers() ? navigator.serviceWorker.controller : null;
  const path = inputPath({ sharedMemory: hasSharedMemory(), serviceWorkers: hasServiceWorkers(), controlled: controller !== null });
  switch (path.kind) {
    case 'shared': {
      const buffer = sharedInputBuffer();
      const answerShared = (_id: string, answer: InputAnswer) => {
        const refusal = writeShared(buffer, answer);
        if (refusal) throw new SaidError(refusal);
      };
      return { offer: { kind: 'shared', buffer }, answer: answerShared, wake: () => wakeShared(buffer) };
    }
    case 'relay':
      return { offer: { kind: 'relay', url: new URL(RELAY_PATH, controller!.scriptURL).href }, answer: relayAnswer, wake: () => undefined };
    case 'none':
      return {
        // The worker raises it in Python, in the language shown when the session started.
        offer: { kind: 'none', reason: tell(path.reason) },
        answer: () => {
          throw new SaidError(path.reason);
        },
        wake: () => undefined,
      };
  }
}

/**
 * Posts the answer to the service worker that holds (or will hold) the worker's request. The
 * page's controller now: after an update took over, that is the one the worker asks again.
 */
function relayAnswer(id: string, answer: InputAnswer): void {
  const controller = navigator.serviceWorker.controller;
  if (!controller) throw new SaidError(said('libb_input_relay_lost'));
  controller.postMessage({ pytabsStdin: { id, answer } } satisfies RelayMessage);
}
