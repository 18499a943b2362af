import { hasWebLocks } from '../capabilities';
import { sleep } from '../timing';
import { said, SaidError } from '../i18n/said';

/** Whether this tab may run a session: one tab owns it at a time. */
export type Ownership = 'owned' | 'elsewhere';

const CLAIM_RETRIES = 4;
const CLAIM_RETRY_MS = 250;

export class SessionElsewhereError extends SaidError {
  constructor() {
    super(said('libb_session_elsewhere'));
    this.name = 'SessionElsewhereError';
  }
}

/**
 * Web Locks, one per session id: the holder owns the session until it closes or another
 * tab steals the lock ("take over"), at which point `onLost` tells the loser to stop its
 * worker. Without the Locks API (old browsers, Node) every session counts as owned by this
 * tab, and Settings → This browser says so.
 */
export class SessionLocks {
  /** Resolvers that release each held lock, by session id. */
  private readonly held = new Map<string, () => void>();
  /** Claims in flight, by session id: two calls in one page share one request, or the second would see the first's lock as another tab's. */
  private readonly pending = new Map<string, Promise<Ownership>>();

  constructor(
    private readonly scope: string,
    private readonly onLost: (sessionId: string) => void,
  ) {}

  private name(sessionId: string): string {
    return `pytabs:${this.scope}:session:${sessionId}`;
  }

  owns(sessionId: string): boolean {
    return !hasWebLocks() || this.held.has(sessionId);
  }

  /**
   * Takes the session's lock if no other tab holds it. A page that was just reloaded can
   * still see its previous document's lock for a moment, so a refusal is asked again a few
   * times (about a second in all) before the session counts as open elsewhere.
   */
  claim(sessionId: string): Promise<Ownership> {
    const waiting = this.pending.get(sessionId);
    if (waiting) return waiting;
    const attempt = async (): Promise<Ownership> => {
      for (let i = 0; ; i++) {
        const result = await this.acquire(sessionId, { ifAvailable: true });
        if (result === 'owned' || i >= CLAIM_RETRIES) return result;
        await sleep(CLAIM_RETRY_MS);
      }
    };
    const claim = attempt().finally(() => this.pending.get(sessionId) === claim && this.pending.delete(sessionId));
    this.pending.set(sessionId, claim);
    return claim;
  }

  /** Takes the lock from whichever tab holds it. */
  async takeOver(sessionId: string): Promise<void> {
    await this.acquire(sessionId, { steal: true });
  }

  private acquire(sessionId: string, options: LockOptions): Promise<Ownership> {
    if (!hasWebLocks() || this.held.has(sessionId)) return Promise.resolve('owned');
    return new Promise<Ownership>((resolve) => {
      navigator.locks
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
