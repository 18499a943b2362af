import { describe, it, expect, beforeAll } from 'vitest';
import { loadPyodide } from 'pyodide';
import type { RunEvent, WorkerRunEvent } from '../../src/lib/worker-api';
import { MAX_LINE_BYTES, sharedInputBuffer, waitShared, writeShared, type WorkerAnswer } from '../../src/lib/stdin-protocol';
import { setLocale } from '../../src/lib/i18n/catalog';
import { tell } from '../../src/lib/i18n/said';
import { WorkerSession } from '../../workers/runtime/session';
import { ASSISTANT_INPUT } from '../../src/lib/assistant/ask';

// input(), sys.stdin and getpass in a real Pyodide (Node), through the worker's own session
// logic: each request for a line reaches the run's events, and the answer comes back from a
// line source the test plays the page for.

const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };

interface Played {
  events: WorkerRunEvent[];
  output: () => string;
}

/** Runs `code`, answering each request with the next of `answers`, as the page would. */
async function play(session: WorkerSession, code: string, answers: WorkerAnswer[], options = {}): Promise<Played & { result: Awaited<ReturnType<WorkerSession['run']>> }> {
  const events: WorkerRunEvent[] = [];
  const queue = [...answers];
  session.setInputChannel((_id, asked) => {
    asked();
    return queue.shift() ?? { kind: 'eof' };
  });
  const result = await session.run(code, (e) => events.push(e), {}, limits, options);
  const output = () => events.filter((e): e is Extract<RunEvent, { type: 'stdout' }> => e.type === 'stdout').map((e) => e.text).join('');
  return { result, events, output };
}

describe('input() in a session', () => {
  let s: WorkerSession;

  beforeAll(async () => {
    s = new WorkerSession(await loadPyodide(), null);
    await s.start();
  });

  it('shows the prompt before it asks; the answered line is an input event, never stdout', async () => {
    const { result, events, output } = await play(s, "name = input('Your name? ')\nprint('Hello,', name)\nname", [{ kind: 'line', text: 'Ada' }]);
    expect(result.result?.['text/plain']).toBe("'Ada'");
    // Stdout holds what the program printed, as with its input piped in CPython.
    expect(output()).toBe('Your name? Hello, Ada\n');
    // The prompt reached the page before the request for a line.
    const asked = events.findIndex((e) => e.type === 'input_request');
    expect(events.slice(0, asked).map((e) => (e.type === 'stdout' ? e.text : '')).join('')).toBe('Your name? ');
    const request = events[asked];
    expect(request).toMatchObject({ type: 'input_request', request: { password: false } });
    // The answer follows its request, names it, and carries the prompt it answered.
    const id = request.type === 'input_request' ? request.request.id : '';
    expect(events[asked + 1]).toEqual({ type: 'input', request: id, prompt: 'Your name? ', text: 'Ada' });
    expect(events.slice(asked + 2).map((e) => e.type)).toEqual(['stdout']);
  });

  it("an input event's prompt is the line the program printed before it, wherever that came from", async () => {
    const { events } = await play(s, "print('Total so far: 3')\nprint('Next', end=': ')\nimport sys\na = sys.stdin.readline()\nb = input()\nc = input('c? ')", [
      { kind: 'line', text: '1' },
      { kind: 'line', text: '2' },
      { kind: 'line', text: '3' },
    ]);
    expect(events.flatMap((e) => (e.type === 'input' ? [[e.prompt, e.text]] : []))).toEqual([
      ['Next: ', '1'],
      ['', '2'],
      ['c? ', '3'],
    ]);
  });

  it('asks ten times in a loop, each request with an id of its own', async () => {
    const lines = Array.from({ length: 10 }, (_, i): WorkerAnswer => ({ kind: 'line', text: String(i * i) }));
    const { result, events } = await play(s, "total = 0\nfor i in range(10):\n    total += int(input(f'{i}? '))\ntotal", lines);
    expect(result.result?.['text/plain']).toBe('285');
    const ids = events.flatMap((e) => (e.type === 'input_request' ? [e.request.id] : []));
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
    // Each answered line names the request it answered.
    expect(events.flatMap((e) => (e.type === 'input' ? [e.request] : []))).toEqual(ids);
  });

  it('reads sys.stdin by line and to the end of input, where input() raises EOFError', async () => {
    const { result, output } = await play(
      s,
      "import sys\nnothing = sys.stdin.readline(0)\nfirst = sys.stdin.readline()\nrest = sys.stdin.read()\ntry:\n    input()\nexcept EOFError:\n    ended = True\n(nothing, first, rest, ended)",
      [{ kind: 'line', text: 'one' }, { kind: 'line', text: 'two' }, { kind: 'line', text: 'three' }, { kind: 'eof' }, { kind: 'eof' }],
    );
    expect(result.result?.['text/plain']).toBe("('', 'one\\n', 'two\\nthree\\n', True)");
    expect(output()).toBe('');
  });

  it('getpass asks for a masked line and never writes it to the output', async () => {
    const { result, events, output } = await play(s, "import getpass\nsecret = getpass.getpass('Key: ')\nlen(secret)", [{ kind: 'line', text: 'hunter2' }]);
    expect(result.result?.['text/plain']).toBe('7');
    expect(events.find((e) => e.type === 'input_request')).toMatchObject({ request: { password: true } });
    expect(events.find((e) => e.type === 'input')).toMatchObject({ prompt: 'Key: ', text: '', password: true });
    expect(output()).toBe('Key: ');
    expect(JSON.stringify(events)).not.toContain('hunter2');
    expect(events.some((e) => e.type === 'stderr')).toBe(false);
  });

  it('a stop while it waits is a KeyboardInterrupt, and the session keeps its variables', async () => {
    await play(s, 'kept = 42', []);
    const { result } = await play(s, "lost = input('Wait: ')", [{ kind: 'cancelled' }]);
    expect(result.error?.ename).toBe('KeyboardInterrupt');
    expect((await play(s, "(kept, 'lost' in globals())", [])).result.result?.['text/plain']).toBe('(42, False)');
  });

  it('in code the assistant runs, raises an EOFError that says nobody is at the keyboard, without asking', async () => {
    const { result, events } = await play(s, "input('Your name? ')", [{ kind: 'line', text: 'never' }], { noInput: ASSISTANT_INPUT });
    expect(result.error?.ename).toBe('EOFError');
    expect(result.error?.evalue).toContain('input() is not available in code the assistant runs');
    expect(events.some((e) => e.type === 'input_request' || e.type === 'input')).toBe(false);
  });

  it('waits on shared memory for the answer the page writes, and takes a stop from the interrupt byte', async () => {
    const buffer = sharedInputBuffer();
    const interrupt = new Uint8Array(new SharedArrayBuffer(1));
    s.setInterruptBuffer(interrupt);
    s.setInputChannel({ kind: 'shared', buffer });
    const answers = ['héllo wörld ✓', 'second'];
    const events: WorkerRunEvent[] = [];
    // Node has one thread: the "page" answers as the request is posted, before the worker blocks.
    const r = await s.run('[input(), input()]', (e) => {
      events.push(e);
      if (e.type === 'input_request') writeShared(buffer, { kind: 'line', text: answers.shift()! });
    }, {}, limits);
    expect(r.result?.['text/plain']).toBe("['héllo wörld ✓', 'second']");
    const stopped = await s.run('input()', (e) => {
      if (e.type === 'input_request') interrupt[0] = 2;
    }, {}, limits);
    expect(stopped.error?.ename).toBe('KeyboardInterrupt');
    // The stop was taken by input(): no second KeyboardInterrupt is pending for the next run.
    expect(interrupt[0]).toBe(0);
    expect((await s.run('1 + 1', () => {}, {}, limits)).result?.['text/plain']).toBe('2');
  });

  it('without a channel, input() says it cannot wait instead of an I/O error', async () => {
    const bare = new WorkerSession(await loadPyodide(), null);
    await bare.start();
    bare.setInputChannel({ kind: 'none', reason: 'input() cannot wait for you here: no shared memory and no service worker.' });
    const r = await bare.run('input()', () => {}, {}, limits);
    expect(r.error?.ename).toBe('EOFError');
    expect(r.error?.evalue).toContain('no shared memory and no service worker');
  });
});

describe('the shared buffer', () => {
  it('refuses a line longer than it holds without writing it, with a said text the page tells in the language shown', async () => {
    const buffer = sharedInputBuffer();
    const refusal = writeShared(buffer, { kind: 'line', text: 'é'.repeat(MAX_LINE_BYTES / 2 + 1) });
    expect(refusal).toEqual({ key: 'lib2_input_line_too_long', params: { megabytes: 1 } });
    // Nothing reached the worker: it still waits.
    expect(waitShared(buffer, 0)).toBeNull();
    await setLocale('fr');
    try {
      expect(tell(refusal!)).toBe('Une ligne de saisie peut contenir au plus 1 Mo.');
    } finally {
      await setLocale('en');
    }
    expect(writeShared(buffer, { kind: 'line', text: 'é'.repeat(MAX_LINE_BYTES / 2) })).toBeNull();
    expect(waitShared(buffer, 0)).toEqual({ kind: 'line', text: 'é'.repeat(MAX_LINE_BYTES / 2) });
  });
});
