import type { MimeBundle } from '../worker-api';
import type { Round, RoundEvent } from './types';

/** Stdout plus stderr kept per round, in characters: enough for any reading, small enough for IndexedDB. */
export const OUTPUT_CAP = 1_000_000;
/** Rich output (HTML, images) kept per round, in characters of the MIME bundles. */
export const RICH_CAP = 8_000_000;

export function newRound(sessionId: string, seq: number, message: string, files: string[], now = Date.now()): Round {
  return {
    id: `${sessionId}:${seq}`,
    sessionId,
    seq,
    createdAt: now,
    message,
    files,
    state: 'running',
    events: [],
    outputChars: 0,
    richChars: 0,
  };
}

function bundleChars(bundle: MimeBundle): number {
  let n = 0;
  for (const value of Object.values(bundle)) n += value.length;
  return n;
}

function noteTruncated(round: Round, block: number, what: 'output' | 'rich', limit: number): RoundEvent | null {
  if (round.events.some((e) => e.type === 'truncated' && e.what === what)) return null;
  const note: RoundEvent = { type: 'truncated', block, what, limit };
  round.events.push(note);
  return note;
}

/**
 * Adds an event to a round, keeping the round bounded: consecutive stream text of
 * the same kind is merged into one event, and output beyond the caps is replaced
 * by a single note. Returns what was actually recorded (null when dropped), so a
 * listener sees exactly what history will hold.
 */
export function appendEvent(round: Round, event: RoundEvent): RoundEvent | null {
  if (event.type === 'stdout' || event.type === 'stderr') {
    const room = OUTPUT_CAP - round.outputChars;
    if (room <= 0) return noteTruncated(round, event.block, 'output', OUTPUT_CAP);
    const text = event.text.length > room ? event.text.slice(0, room) : event.text;
    round.outputChars += text.length;
    const last = round.events.at(-1);
    if (last && last.type === event.type && last.block === event.block) last.text += text;
    else round.events.push({ ...event, text });
    if (text.length < event.text.length) noteTruncated(round, event.block, 'output', OUTPUT_CAP);
    return { ...event, text };
  }
  if (event.type === 'display' || event.type === 'result') {
    const size = bundleChars(event.bundle);
    if (round.richChars + size > RICH_CAP) {
      // The plain-text form is small and still tells the reader what was there.
      const plain = event.bundle['text/plain'] ?? '';
      const fallback = { 'text/plain': plain.slice(0, 10_000) };
      if (round.richChars + bundleChars(fallback) > RICH_CAP) return noteTruncated(round, event.block, 'rich', RICH_CAP);
      noteTruncated(round, event.block, 'rich', RICH_CAP);
      event = { ...event, bundle: fallback };
    }
    round.richChars += bundleChars(event.bundle);
  }
  round.events.push(event);
  return event;
}
