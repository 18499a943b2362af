import type { SessionHost } from './host';

/**
 * Bounds how many session workers are live at once (each holds a whole Python).
 *
 * Every operation on a session goes through `use`, which makes that session the most
 * recently used. Beyond the limit, the least recently used sessions are put to sleep
 * (their worker terminated); a session sleeps only when nothing of it is in flight, so a
 * run, a start or a file operation is never cut off. A sleeping session wakes from its
 * last commit on its next use. When every other session is busy the limit is exceeded
 * for a while and restored as soon as one of them settles; the most recently used session
 * is never the one put to sleep.
 */
export class WorkerPool {
  // Weak, so a deleted session's host is not kept alive by the pool.
  private readonly inFlight = new WeakMap<SessionHost, number>();
  private readonly usedAt = new WeakMap<SessionHost, number>();
  /** A counter rather than a clock: two uses within one millisecond still have an order. */
  private uses = 0;

  constructor(
    private readonly limit: () => number,
    private readonly hosts: () => Iterable<SessionHost>,
  ) {}

  async use<T>(host: SessionHost, op: (host: SessionHost) => Promise<T>): Promise<T> {
    this.usedAt.set(host, ++this.uses);
    this.inFlight.set(host, (this.inFlight.get(host) ?? 0) + 1);
    // Room is made before a sleeping session wakes, so two Pythons never overlap needlessly.
    this.rebalance(host);
    try {
      return await op(host);
    } finally {
      this.inFlight.set(host, (this.inFlight.get(host) ?? 1) - 1);
      this.rebalance(null);
    }
  }

  /** Puts least recently used idle sessions to sleep until the live count (counting `waking`) is within the limit. */
  private rebalance(waking: SessionHost | null): void {
    const live = [...this.hosts()].filter((h) => h.isLive || h === waking);
    let excess = live.length - Math.max(1, Math.floor(this.limit()));
    if (excess <= 0) return;
    // The most recently used session never sleeps: it is the one the user is working in.
    const idle = live
      .filter((h) => this.usedAt.get(h) !== this.uses && h.isLive && !this.inFlight.get(h) && !h.isRunning && h.state !== 'starting')
      .sort((a, b) => (this.usedAt.get(a) ?? 0) - (this.usedAt.get(b) ?? 0));
    for (const host of idle) {
      if (excess-- <= 0) break;
      host.terminate();
    }
  }
}
