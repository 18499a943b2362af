/** Whether this tab may run a session: one tab owns it at a time. */
export type Ownership = 'owned' | 'elsewhere';

export class SessionElsewhereError extends Error {
  constructor() {
    super('This session is open in another tab. Take it over to use it here; the other tab keeps everything it saved.');
    this.name = 'SessionElsewhereError';
  }
}

/**
 * Web Locks, one per session id: the holder owns the session until it closes or another
 * tab steals the lock ("take over"), at which point `onLost` tells the loser to stop its
 * worker. Without the Locks API (old browsers, Node) every session counts as owned.
 */
export class SessionLocks {
  /** Resolvers that release each held lock, by session id. */
  private readonly held = new Map<string, () => void>();

  constructor(
    private readonly scope: string,
    private readonly onLost: (sessionId: string) => void,
  ) {}

  private name(sessionId: string): string {
    return `pytabs:${this.scope}:session:${sessionId}`;
  }

  owns(sessionId: string): boolean {
    return !globalThis.navigator?.locks || this.held.has(sessionId);
  }

  /** Takes the session's lock if no other tab holds it. */
  claim(sessionId: string): Promise<Ownership> {
    return this.acquire(sessionId, { ifAvailable: true });
  }

  /** Takes the lock from whichever tab holds it. */
  async takeOver(sessionId: string): Promise<void> {
    await this.acquire(sessionId, { steal: true });
  }

  private acquire(sessionId: string, options: LockOptions): Promise<Ownership> {
    const locks = globalThis.navigator?.locks;
    if (!locks || this.held.has(sessionId)) return Promise.resolve('owned');
    return new Promise<Ownership>((resolve) => {
      locks
        .request(this.name(sessionId), options, (lock) => {
          if (!lock) {
            resolve('elsewhere');
            return undefined;
          }
          resolve('owned');
          return new Promise<void>((release) => this.held.set(sessionId, release));
        })
        .catch(() => {
          // Stolen by another tab: the request's promise rejects with an AbortError.
          if (this.held.delete(sessionId)) this.onLost(sessionId);
        });
    });
  }

  release(sessionId: string): void {
    const release = this.held.get(sessionId);
    this.held.delete(sessionId);
    release?.();
  }
}
