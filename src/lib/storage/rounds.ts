import { sessionRange, type PyTabsDB } from './db';
import type { Round } from '../chat/types';

/**
 * Stores a new round under the session's next sequence number. Reading the last
 * number and writing the round share one transaction, so two messages sent at
 * once (from two tabs, say) never get the same number.
 */
export async function insertRound(db: PyTabsDB, sessionId: string, make: (seq: number) => Round): Promise<Round> {
  const tx = db.transaction('rounds', 'readwrite');
  const last = await tx.store.openCursor(sessionRange(sessionId), 'prev');
  const round = make(last ? last.value.seq + 1 : 1);
  await tx.store.put(round);
  await tx.done;
  return round;
}

export async function putRound(db: PyTabsDB, round: Round): Promise<void> {
  await db.put('rounds', round);
}

/** A session's history, oldest first (the key order). */
export async function listRounds(db: PyTabsDB, sessionId: string): Promise<Round[]> {
  return (await db.getAll('rounds', sessionRange(sessionId))) as Round[];
}
