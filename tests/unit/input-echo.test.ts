import { describe, it, expect } from 'vitest';
import { strFromU8 } from 'fflate';
import { appendEvent, newRound } from '../../src/lib/chat/round';
import type { Round, RoundEvent } from '../../src/lib/chat/types';
import { consoleRuns, terminalText } from '../../src/lib/chat/terminal';
import { HISTORY, historyEntries, readHistory } from '../../src/lib/portability/history';
import { notebookFromHistory } from '../../src/lib/portability/notebook';
import { ImportError } from '../../src/lib/portability/errors';

// The line a person typed in answer to input() is an event of its own in a round: kept apart
// from stdout in history.json, shown with stdout as one terminal's text, joined to stdout where
// a format has no place for it (a notebook), and refused when malformed.

function roundWith(events: RoundEvent[]): Round {
  const round = newRound('s1', 1, "name = input('Your name? ')\nprint('Hello,', name)", [], 1000);
  for (const e of events) appendEvent(round, e);
  round.state = 'finished';
  return round;
}

const asked: RoundEvent[] = [
  { type: 'code_start', block: 0, total: 1, code: '' },
  { type: 'stdout', block: 0, text: 'Your name? ' },
  { type: 'input', block: 0, request: 'r1', prompt: 'Your name? ', text: 'Ada' },
  { type: 'stdout', block: 0, text: 'Key: ' },
  { type: 'input', block: 0, request: 'r2', prompt: 'Key: ', text: '', password: true },
  { type: 'stdout', block: 0, text: 'Hello, Ada\n' },
  { type: 'stderr', block: 0, text: 'warning\n' },
];

describe('an answered line in a round', () => {
  it('stays apart from stdout in the round, and reads as one terminal on the page', () => {
    const round = roundWith(asked);
    // appendEvent merges stdout with stdout only: the typed line is not folded into it.
    expect(round.events.filter((e) => e.type === 'stdout').map((e) => (e as { text: string }).text)).toEqual(['Your name? ', 'Key: ', 'Hello, Ada\n']);
    const items = consoleRuns(round.events);
    const terminal = items.find((i) => i.kind === 'console');
    expect(terminal).toEqual({
      kind: 'console',
      block: 0,
      parts: [
        { text: 'Your name? ', typed: false },
        { text: 'Ada\n', typed: true },
        { text: 'Key: ', typed: false },
        { text: '\n', typed: true },
        { text: 'Hello, Ada\n', typed: false },
      ],
    });
    // stderr stays its own block, as before.
    expect(items.filter((i) => i.kind === 'event' && i.event.type === 'stderr')).toHaveLength(1);
    expect(round.events.map(terminalText).join('')).toBe('Your name? Ada\nKey: \nHello, Ada\nwarning\n');
  });

  it('travels in history.json as its own event and comes back so; an older file with the echo in stdout still opens', async () => {
    const entries = await historyEntries([roundWith(asked)]);
    const back = readHistory(entries.get(HISTORY)!, 's2', entries);
    expect(back[0].events.filter((e) => e.type === 'input')).toEqual([
      { type: 'input', block: 0, request: 'r1', prompt: 'Your name? ', text: 'Ada' },
      { type: 'input', block: 0, request: 'r2', prompt: 'Key: ', text: '', password: true },
    ]);
    const older = roundWith([
      { type: 'code_start', block: 0, total: 1, code: '' },
      { type: 'stdout', block: 0, text: 'Your name? Ada\nHello, Ada\n' },
    ]);
    const oldEntries = await historyEntries([older]);
    const opened = readHistory(oldEntries.get(HISTORY)!, 's3', oldEntries);
    expect(consoleRuns(opened[0].events).find((i) => i.kind === 'console')).toEqual({ kind: 'console', block: 0, parts: [{ text: 'Your name? Ada\nHello, Ada\n', typed: false }] });
  });

  it('refuses a malformed input event in a file', async () => {
    const entries = await historyEntries([roundWith(asked)]);
    const bad = strFromU8(entries.get(HISTORY)!).replace(/"request":\s*"r1"/, '"request": 7');
    expect(() => readHistory(new TextEncoder().encode(bad), 's2', entries)).toThrow(ImportError);
    const badPassword = strFromU8(entries.get(HISTORY)!).replace(/"password":\s*true/, '"password": "yes"');
    expect(() => readHistory(new TextEncoder().encode(badPassword), 's2', entries)).toThrow(/invalid "password"/);
  });

  it('joins stdout in a notebook, which has no place for typed lines', () => {
    const nb = notebookFromHistory([roundWith(asked)]) as { cells: { cell_type: string; outputs?: { name?: string; text?: string }[] }[] };
    const outputs = nb.cells.find((c) => c.cell_type === 'code')!.outputs!;
    expect(outputs[0]).toMatchObject({ name: 'stdout', text: 'Your name? Ada\nKey: \nHello, Ada\n' });
  });
});
