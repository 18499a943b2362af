import { messageParts } from './blocks';
import type { Round, RoundEvent } from './types';

/**
 * The lines of a Code round's message where its runs stopped with an error (from 1), for the
 * reply to mark: a run's error line counts in its own block, which starts further down a
 * Markdown message. An Ask round's code is the assistant's, shown in its cards (`cardErrorLines`): none.
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

/** The lines of an Ask round's code card (its `block`) where its run stopped with an error, counted in the card's code. */
export function cardErrorLines(events: readonly RoundEvent[], block: number): number[] {
  return events.flatMap((event) => (event.type === 'exec_error' && event.block === block && event.error.line ? [event.error.line] : []));
}
