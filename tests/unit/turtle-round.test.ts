import { describe, it, expect } from 'vitest';
import { appendEvent, finishRound, newRound, OutputTranscript } from '../../src/lib/chat/round';
import type { Round, RoundEvent } from '../../src/lib/chat/types';
import type { RoundHistory } from '../../src/lib/storage/session-store';
import { TURTLE_MIME, TurtleEvents, tkKeyName } from '../../src/lib/turtle';

// A turtle's place in a reply: its live view while the run draws, then the picture Python
// shows in that same place; or, when the run's worker was ended, the page's picture so far.

const changes = (screen: string, ops: object[]): RoundEvent => ({ type: 'turtle', block: 0, changes: JSON.stringify({ screen, ops }) });
const LINE = { o: 'add', item: { id: 1, kind: 'line', owner: 1, pts: [0, 0, 50, 0], color: '#ff0000', width: 2 } };

function history(): RoundHistory & { saved: Round[] } {
  const saved: Round[] = [];
  return { saved, put: async (round: Round) => void saved.push(structuredClone(round)) } as unknown as RoundHistory & { saved: Round[] };
}

describe('turtle drawings in a round', () => {
  it('keeps one place per screen while drawing, hands listeners the live picture, and stores none of it', () => {
    const round = newRound('s', 1, 'draw', []);
    appendEvent(round, { type: 'stdout', block: 0, text: 'before\n' });
    const first = appendEvent(round, changes('screen-1', [LINE]));
    const second = appendEvent(round, changes('screen-1', [{ o: 'pts', id: 1, add: [50, -50] }]));
    expect(round.events.map((e) => e.type)).toEqual(['stdout', 'turtle_live']);
    expect(round.events[1]).toEqual({ type: 'turtle_live', block: 0, screen: 'screen-1' });
    expect(first?.type === 'turtle_live' && first.picture).toBe(second?.type === 'turtle_live' && second.picture);
    const picture = second?.type === 'turtle_live' ? second.picture : undefined;
    expect(picture?.items.get(1)).toMatchObject({ pts: [0, 0, 50, 0, 50, -50] });
    expect(appendEvent(round, { type: 'turtle', block: 0, changes: 'not json' })).toBeNull();
  });

  it("puts Python's picture where the drawing was, not at the end", () => {
    const round = newRound('s', 1, 'draw', []);
    appendEvent(round, changes('screen-1', [LINE]));
    appendEvent(round, { type: 'stdout', block: 0, text: 'after\n' });
    const bundle = { 'image/svg+xml': '<svg/>', 'text/plain': 'drawing', [TURTLE_MIME]: JSON.stringify({ screen: 'screen-1' }) };
    appendEvent(round, { type: 'display', block: 0, bundle });
    expect(round.events.map((e) => e.type)).toEqual(['display', 'stdout']);
  });

  it('keeps the picture as far as it got when the run ended before Python showed it', async () => {
    const round = newRound('s', 1, 'draw', []);
    appendEvent(round, changes('screen-1', [LINE, { o: 'bg', color: '#add8e6' }]));
    const store = history();
    await finishRound(round, 'stopped', 0, new OutputTranscript(), store, () => undefined, String);
    const [display] = store.saved[0].events;
    expect(display.type).toBe('display');
    const bundle = display.type === 'display' ? display.bundle : {};
    expect(bundle['image/svg+xml']).toContain('<polyline points="0,0 50,0" fill="none" stroke="#ff0000" stroke-width="2"');
    expect(bundle['image/svg+xml']).toContain('fill="#add8e6"');
    expect(JSON.parse(bundle[TURTLE_MIME]).screen).toBe('screen-1');
  });
});

describe('clicks and keys for a turtle event loop', () => {
  const request = (waitMs: number | null) => ({ id: 'r', password: false, turtle: { waitMs } });

  it('answers a waiting request with the next event, keeps a short queue while the run is busy, and times out', async () => {
    const events = new TurtleEvents();
    const answers: string[] = [];
    events.wait(request(null), (line) => answers.push(line));
    events.send({ kind: 'key', key: tkKeyName('ArrowUp') });
    expect(answers).toEqual(['{"kind":"key","key":"Up"}']);
    for (let i = 0; i < 40; i++) events.send({ kind: 'key', key: tkKeyName(' '), up: true });
    events.wait(request(null), (line) => answers.push(line));
    await Promise.resolve();
    expect(answers[1]).toBe('{"kind":"key","key":"space","up":true}');
    events.reset();
    events.wait(request(10), (line) => answers.push(line));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(answers[2]).toBe('{"kind":"timer"}');
    events.send({ kind: 'click', x: 1, y: 2, button: 1 });
    // Nobody waits: it is queued, not sent to the request that timed out.
    expect(answers).toHaveLength(3);
  });
});
