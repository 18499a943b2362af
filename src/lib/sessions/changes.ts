/**
 * What of a session a change touched, so a page re-reads only that:
 * - `record`: its stored record (name, counters, storage figure), or that it was made or deleted;
 * - `files`, `variables`, `sessionVars`: what the panels of the same names show;
 * - `imports`: what an import left for the person (held saved variables, the link it came from);
 * - `state`: only this tab's side of it (its worker's state, who owns it): nothing stored.
 */
export type ChangePart = 'record' | 'files' | 'variables' | 'sessionVars' | 'imports' | 'state';

export const ALL_PARTS: readonly ChangePart[] = ['record', 'files', 'variables', 'sessionVars', 'imports', 'state'];

/**
 * A change the manager reports. Without a session id anything may have changed (another
 * tab's message, settings, the cleanup policy). `runs` are runs that changed nothing stored
 * but their count, which this page writes later (run-counts.ts): a page can add them to the
 * count it shows without reading the record.
 */
export interface Change {
  sessionId: string | null;
  parts: readonly ChangePart[];
  runs?: number;
}

/** Changes gathered until a page reads storage again (once a frame): what to read, by session. */
export class ChangeSet {
  /** Set by a change without a session id: read everything. */
  everything = false;
  readonly parts = new Map<string, Set<ChangePart>>();
  readonly runs = new Map<string, number>();

  add(change: Change): void {
    if (change.sessionId === null) {
      this.everything = true;
      return;
    }
    let parts = this.parts.get(change.sessionId);
    if (!parts) this.parts.set(change.sessionId, (parts = new Set()));
    for (const part of change.parts) parts.add(part);
    if (change.runs) this.runs.set(change.sessionId, (this.runs.get(change.sessionId) ?? 0) + change.runs);
  }

  /** Adds what `other` gathered. */
  merge(other: ChangeSet): void {
    this.everything ||= other.everything;
    // Every session with runs has an entry in `parts`, if only an empty one.
    for (const [sessionId, parts] of other.parts) this.add({ sessionId, parts: [...parts], runs: other.runs.get(sessionId) });
  }

  /** What to re-read of one session. */
  of(sessionId: string): ReadonlySet<ChangePart> {
    return this.everything ? new Set(ALL_PARTS) : (this.parts.get(sessionId) ?? new Set());
  }

  /** Whether some session's record (or the list itself) must be read again. */
  get records(): boolean {
    return this.everything || [...this.parts.values()].some((parts) => parts.has('record'));
  }
}
