import { countRuns } from '../storage/commit';
import type { PyTabsDB } from '../storage/db';

/**
 * Runs that changed nothing, counted by the page rather than by their worker: the count is
 * all such a run writes, and opening its transaction in the worker, with the events that
 * follow, cost ~0.1 ms of the run's round trip. The page writes them from a task of its own,
 * while the worker is busy with the next run or idle. Held by session id until then.
 */
export class RunCounts {
  private readonly pending = new Map<string, number>();
  /** The last write under way, so `written` can wait for it. */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly db: () => PyTabsDB) {}

  add(sessionId: string, runs: number): void {
    if (runs > 0) this.pending.set(sessionId, (this.pending.get(sessionId) ?? 0) + runs);
  }

  /**
   * Writes the pending counts in one transaction, opened now: any read of the sessions
   * store opened after this call sees them. A write that fails gives its counts back, for
   * the next flush. Resolves once every write so far has settled.
   */
  flush(): Promise<void> {
    if (this.pending.size) {
      const batch = new Map(this.pending);
      this.pending.clear();
      const write = countRuns(this.db(), batch).catch(() => {
        for (const [sessionId, runs] of batch) this.add(sessionId, runs);
      });
      this.writing = Promise.all([this.writing, write]).then(() => undefined);
    }
    return this.writing;
  }
}
