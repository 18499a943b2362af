import { messageParts } from './blocks';
import type { Round } from './types';

/**
 * The lines of a Code round's message where its runs stopped with an error (from 1), for the
 * reply to mark: a run's error line counts in its own block, which starts further down a
 * Markdown message. An Ask round's code is the assistant's, shown in its cards: none.
 */
export function errorLines(round: Pick<Round, 'kind' | 'message' | 'events'>): number[] {
  if (round.kind === 'ask') return [];
  const starts = messageParts(round.message).flatMap((part) => (part.kind === 'code' ? [part.line] : []));
  const lines: number[] = [];
  for (const event of round.events) {
    if (event.type !== 'exec_error' || !event.error.line || starts[event.block] === undefined) continue;
    lines.push(starts[event.block] + event.error.line - 1);
  }
  return lines;
}
