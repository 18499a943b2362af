import type { InputRequest } from '../worker-api';

/**
 * Clicks and keys on a turtle drawing, for a run whose turtle waits for them (mainloop() with
 * handlers): each is the answer to the run's next turtle request (InputRequest.turtle), through
 * the same channel as input(). What comes while the run is busy waits in a short queue.
 */

/** A click (its canvas point: x right, y down) or a key (a Tk key name), pressed or let go. */
export type TurtleEvent = { kind: 'click'; x: number; y: number; button: number; up?: boolean } | { kind: 'key'; key: string; up?: boolean };

/** Events kept while the run is busy: a held key must not pile up a backlog of moves. */
const QUEUE_LIMIT = 16;

export class TurtleEvents {
  private queue: string[] = [];
  private waiting: { answer: (line: string) => void; timer: ReturnType<typeof setTimeout> | null } | null = null;

  /** The run asks for its next event: answered by one that waits, the next to come, or the timer. */
  wait(request: InputRequest, answer: (line: string) => void): void {
    this.stop();
    const queued = this.queue.shift();
    if (queued !== undefined) {
      // Not within the request's own notification: the host finishes registering it first.
      queueMicrotask(() => answer(queued));
      return;
    }
    const waitMs = request.turtle?.waitMs ?? null;
    const timer = waitMs === null ? null : setTimeout(() => this.deliver(JSON.stringify({ kind: 'timer' })), waitMs);
    this.waiting = { answer, timer };
  }

  send(event: TurtleEvent): void {
    const line = JSON.stringify(event);
    if (this.waiting) this.deliver(line);
    else if (this.queue.length < QUEUE_LIMIT) this.queue.push(line);
  }

  /** The request was answered or withdrawn (the run stopped): nothing more goes to it. */
  stop(): void {
    if (this.waiting?.timer) clearTimeout(this.waiting.timer);
    this.waiting = null;
  }

  /** The run ended: its waiting events go too. */
  reset(): void {
    this.stop();
    this.queue = [];
  }

  private deliver(line: string): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.stop();
    waiting.answer(line);
  }
}

const TK_KEYS: Record<string, string> = {
  ArrowUp: 'Up',
  ArrowDown: 'Down',
  ArrowLeft: 'Left',
  ArrowRight: 'Right',
  ' ': 'space',
  Enter: 'Return',
  Backspace: 'BackSpace',
  PageUp: 'Prior',
  PageDown: 'Next',
  Shift: 'Shift_L',
  Control: 'Control_L',
  Alt: 'Alt_L',
};

/** A browser key as Tk names it (what turtle programs pass to onkey): 'Up', 'space', 'a', 'Return'. */
export function tkKeyName(key: string): string {
  return TK_KEYS[key] ?? key;
}
