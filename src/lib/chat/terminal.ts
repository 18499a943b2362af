import type { RoundEvent } from './types';

type Stream = Extract<RoundEvent, { type: 'stdout' | 'stderr' | 'input' }>;

/**
 * What a terminal shows for an answered line: the typing and the Enter after it (a
 * password's typing never shows). Stdout never holds it: a reader that wants the session
 * as a terminal showed it (a transcript, a notebook, a grader's view) adds it here.
 */
export function typedLine(event: { text: string; password?: boolean }): string {
  return `${event.password ? '' : event.text}\n`;
}

/** An event's text as a terminal shows it, '' for events that are not text of the console. */
export function terminalText(event: RoundEvent): string {
  if (event.type === 'stdout' || event.type === 'stderr') return event.text;
  if (event.type === 'input') return typedLine(event);
  return '';
}

/** A run of one block's stdout and typed lines, shown together as one terminal's text. */
export interface ConsoleRun {
  kind: 'console';
  block: number;
  parts: { text: string; typed: boolean }[];
}

/**
 * A round's events for the page: consecutive stdout and answered lines of one block joined
 * into one ConsoleRun, so "Your name? Ada" reads as one line as in a terminal, the typed part
 * marked; every other event stays as it is.
 */
export function consoleRuns(events: RoundEvent[]): (ConsoleRun | { kind: 'event'; event: RoundEvent })[] {
  const out: (ConsoleRun | { kind: 'event'; event: RoundEvent })[] = [];
  for (const event of events) {
    if (event.type !== 'stdout' && event.type !== 'input') {
      out.push({ kind: 'event', event });
      continue;
    }
    const last = out.at(-1);
    const run: ConsoleRun = last?.kind === 'console' && last.block === event.block ? last : { kind: 'console', block: event.block, parts: [] };
    if (run !== last) out.push(run);
    run.parts.push({ text: terminalText(event as Stream), typed: event.type === 'input' });
  }
  return out;
}
