import type { RoundHistory } from '../storage/session-store';
import type { MimeBundle } from '../worker-api';
import { parseTurtleChanges, TurtlePicture, turtleScreenOf } from '../turtle/picture';
import type { Round, RoundEvent, RoundState } from './types';
import type { Text } from '../i18n/text';
import { said } from '../i18n/said';

/** The turtle screens each running round draws on, by screen id; gone with the round object. */
const livePictures = new WeakMap<Round, Map<string, TurtlePicture>>();

/**
 * Stdout plus stderr shown per round, in characters, from the start. A page that draws
 * megabytes of text stops responding; the whole output is kept for download instead.
 */
export const OUTPUT_CAP = 200_000;
/** The end of a cut output, shown under the note: where a long loop's last lines are. */
export const OUTPUT_TAIL = 20_000;
/** Output kept for download per round, in characters: bounded so an endless print cannot exhaust memory. */
export const FULL_OUTPUT_CAP = 32 * 1024 * 1024;
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

type OutputNote = Extract<RoundEvent, { type: 'truncated' }> & { total: number; tail: string };

/** Counts text past the cap in the round's one output note, keeping its last OUTPUT_TAIL characters. */
function overflow(round: Round, block: number, text: string): OutputNote {
  let note = round.events.find((e): e is OutputNote => e.type === 'truncated' && e.what === 'output');
  if (!note) {
    note = { type: 'truncated', block, what: 'output', limit: OUTPUT_CAP, total: round.outputChars, tail: '' };
    round.events.push(note);
  }
  note.total += text.length;
  note.tail = text.length >= OUTPUT_TAIL ? text.slice(-OUTPUT_TAIL) : (note.tail + text).slice(-OUTPUT_TAIL);
  return note;
}

/**
 * Adds an event to a round, keeping the round bounded: consecutive stream text of
 * the same kind is merged into one event, and output beyond the caps is replaced
 * by a single note (for stream text, one that counts it and keeps its end). Returns
 * what was actually recorded (null when dropped, the note when text went into it),
 * so a listener sees exactly what history will hold.
 */
export function appendEvent(round: Round, event: RoundEvent): RoundEvent | null {
  if (event.type === 'turtle') return drawTurtle(round, event.block, event.changes);
  if (event.type === 'stdout' || event.type === 'stderr') {
    const room = Math.max(0, OUTPUT_CAP - round.outputChars);
    const text = event.text.length > room ? event.text.slice(0, room) : event.text;
    if (text) {
      round.outputChars += text.length;
      const last = round.events.at(-1);
      if (last && last.type === event.type && last.block === event.block) last.text += text;
      else round.events.push({ ...event, text });
    }
    if (text.length === event.text.length) return { ...event, text };
    return overflow(round, event.block, text ? event.text.slice(text.length) : event.text);
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
    // A turtle's picture takes the place where it was drawn live.
    const screen = event.type === 'display' ? turtleScreenOf(event.bundle) : null;
    const at = screen === null ? -1 : round.events.findIndex((e) => e.type === 'turtle_live' && e.screen === screen);
    if (at >= 0) {
      round.events[at] = event;
      livePictures.get(round)?.delete(screen as string);
      return event;
    }
  }
  round.events.push(event);
  return event;
}

/**
 * Applies a turtle screen's changes to the round's live picture of it; the first changes of a
 * screen put its place in the reply. Returns the place, with the picture, for listeners to draw.
 */
function drawTurtle(round: Round, block: number, json: string): RoundEvent | null {
  const changes = parseTurtleChanges(json);
  if (!changes) return null;
  let pictures = livePictures.get(round);
  if (!pictures) livePictures.set(round, (pictures = new Map()));
  let picture = pictures.get(changes.screen);
  if (!picture) pictures.set(changes.screen, (picture = new TurtlePicture(changes.screen)));
  picture.apply(changes);
  if (!round.events.some((e) => e.type === 'turtle_live' && e.screen === changes.screen)) {
    round.events.push({ type: 'turtle_live', block, screen: changes.screen });
  }
  return { type: 'turtle_live', block, screen: changes.screen, picture };
}

/**
 * Puts each turtle picture still drawn live (its run ended before Python showed it: a worker
 * ended by Stop) in the reply as far as it got.
 */
function keepLivePictures(round: Round): void {
  const pictures = livePictures.get(round);
  round.events = round.events.flatMap((event) => {
    if (event.type !== 'turtle_live') return [event];
    const picture = pictures?.get(event.screen);
    if (!picture) return [];
    const bundle = picture.bundle();
    if (round.richChars + bundleChars(bundle) > RICH_CAP) return [];
    round.richChars += bundleChars(bundle);
    return [{ type: 'display', block: event.block, bundle }];
  });
  livePictures.delete(round);
}

/**
 * The whole stdout and stderr of a round in arrival order, for the download offered
 * when the shown output was cut. Kept in memory while the round runs, up to
 * FULL_OUTPUT_CAP characters.
 */
export class OutputTranscript {
  private chunks: string[] = [];
  private chars = 0;

  add(text: string): void {
    const room = FULL_OUTPUT_CAP - this.chars;
    if (room <= 0) return;
    const kept = text.length > room ? text.slice(0, room) : text;
    this.chunks.push(kept);
    this.chars += kept.length;
  }

  blob(): Blob {
    return new Blob(this.chunks, { type: 'text/plain;charset=utf-8' });
  }
}

/**
 * Ends a round, typed code or a question alike: its state and duration, the whole output
 * when the shown one was cut (stored with the round: IndexedDB keeps Blobs, so the download
 * survives a reload), the end event, and the round's place in history. A failed save still
 * leaves the reply on screen; the person is told its place in history is lost.
 */
export async function finishRound(
  round: Round,
  state: RoundState,
  startedAt: number,
  transcript: OutputTranscript,
  history: RoundHistory,
  emit: (event: RoundEvent) => void,
  describe: (error: unknown) => Text,
): Promise<Round> {
  keepLivePictures(round);
  round.state = state;
  round.durationMs = performance.now() - startedAt;
  if (round.events.some((e) => e.type === 'truncated' && e.what === 'output')) round.fullOutput = transcript.blob();
  emit({ type: 'round_end', durationMs: round.durationMs, state });
  try {
    await history.put(round);
  } catch (error) {
    emit({ type: 'round_error', message: said('chat_not_saved_to_history', { error: describe(error) }) });
  }
  return round;
}
