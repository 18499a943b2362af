import type { RoundHistory } from '../storage/session-store';
import type { Round } from './types';

/** The part of the session engine that holds chat history: one session's history by id. */
export interface HistorySource {
  history(sessionId: string): RoundHistory;
}

/** A session's chat history, oldest first. */
export function listRounds(source: HistorySource, sessionId: string): Promise<Round[]> {
  return source.history(sessionId).list<Round>();
}
