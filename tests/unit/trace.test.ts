import { describe, it, expect, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { loadPyodide } from 'pyodide';
import type { RunResult, Trace, TraceObject, TraceValue, WorkerRunEvent } from '../../src/lib/worker-api';
import { traceStep, withTrace } from '../../src/lib/trace';
import { WorkerSession } from '../../workers/runtime/session';
import { CORPUS } from './trace-corpus';

// The step-through's recorder (workers/python/pytabs/trace.py) in real Pyodide, through the
// worker's own session logic, refereed by Debian's CPython under sys.settrace
// (tests/unit/referee/trace_referee.py) on a corpus of beginner programs.

const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };

interface Step {
  event: string;
  line: number;
  frames: { name: string; line: number; vars: Record<string, unknown> }[];
  stdout: string;
  returned?: unknown;
  exception?: string;
}

/** A value in the referee's canonical form (see trace_referee.py): objects numbered in the order met. */
function canon(value: TraceValue, objects: Map<number, TraceObject>, seen: Map<number, number>): unknown {
  if (Array.isArray(value)) return `${value[0]}:${value[1]}`;
  const known = seen.get(value.ref);
  if (known) return `#${known}`;
  const n = seen.size + 1;
  seen.set(value.ref, n);
  const object = objects.get(value.ref);
  if (!object) throw new Error(`object ${value.ref} is referred to but not drawn`);
  const c = (v: TraceValue) => canon(v, objects, seen);
  if (object.kind === 'dict') return { '#': n, dict: object.entries!.map(([k, v]) => [c(k), c(v)]) };
  if (object.kind === 'set' || object.kind === 'frozenset') return { '#': n, set: object.items!.map(c).sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1)) };
  if (object.kind === 'instance') return { '#': n, instance: object.type, attrs: Object.fromEntries(object.attributes!.map(([k, v]) => [k, c(v)])) };
  return { '#': n, [object.kind]: object.items!.map(c) };
}

/** Every step of a PyTabs trace in the referee's canonical form. */
function canonical(trace: Trace): Step[] {
  return trace.steps.map((_, i) => {
    const view = traceStep(trace, i);
    const seen = new Map<number, number>();
    const frames = view.frames.map((f) => ({ name: f.name, line: f.line, vars: Object.fromEntries(f.variables.map(([k, v]) => [k, canon(v, view.objects, seen)])) }));
    const step: Step = { event: view.event, line: view.line, frames, stdout: view.stdout };
    if (view.returned) step.returned = canon(view.returned, view.objects, seen);
    if (view.exception) step.exception = view.exception.type;
    return step;
  });
}

/** The same program under Debian's CPython and sys.settrace. */
function referee(source: string, input: string[]): { version: string; steps: Step[]; error: string | null } {
  const out = spawnSync('/usr/bin/python3', [path.resolve('tests/unit/referee/trace_referee.py')], {
    input: JSON.stringify({ source, input: input.map((l) => `${l}\n`).join('') }),
    env: { ...process.env, PYTHONPATH: path.resolve('workers/python') },
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
}

/**
 * The referee's steps as Python 3.12+ makes them. Debian's CPython is 3.11, Pyodide's 3.14:
 * since 3.12 (PEP 709) a list, dict or set comprehension runs inline in its function's frame,
 * where 3.11 calls a frame of its own (`<listcomp>`, its iterator in the variable `.0`). So
 * 3.11's comprehension frame, its call, its return and its first line event (taken before the
 * first item, where 3.12 has none) are left out, and its variables join its parent's.
 * This is the only difference between the two versions this corpus meets.
 */
function inlineComprehensions(steps: Step[]): Step[] {
  const comprehension = (name: string) => /^<(list|dict|set)comp>$/.test(name);
  return steps.flatMap((step, i) => {
    const inner = step.frames.at(-1)!;
    if (!comprehension(inner.name)) return [step];
    const entered = steps[i - 1]?.event === 'call' && step.event === 'line';
    if (step.event !== 'line' || entered) return [];
    const parent = step.frames.at(-2)!;
    const { '.0': _, ...own } = inner.vars;
    const frames = [...step.frames.slice(0, -2), { ...parent, vars: { ...parent.vars, ...own } }];
    return [{ ...step, frames }];
  });
}

/** Steps with reprs' memory addresses (`<generator object counter at 0x…>`) masked: no two interpreters share them. */
function withoutAddresses(steps: Step[]): Step[] {
  return JSON.parse(JSON.stringify(steps).replace(/ at 0x[0-9a-f]+/g, ' at 0x…')) as Step[];
}

/** Runs `code` recording it, in a session whose input() answers with `answers`. */
async function traced(session: WorkerSession, code: string, answers: string[] = [], trace = {}): Promise<{ result: RunResult; events: WorkerRunEvent[] }> {
  const queue = [...answers];
  session.setInputChannel((_id, asked) => {
    asked();
    const text = queue.shift();
    return text === undefined ? { kind: 'eof' } : { kind: 'line', text };
  });
  const events: WorkerRunEvent[] = [];
  const result = withTrace(await session.run(code, (e) => events.push(e), {}, limits, { trace }));
  return { result, events };
}

describe('the recorder against CPython', () => {
  let s: WorkerSession;

  beforeAll(async () => {
    s = new WorkerSession(await loadPyodide(), null);
    await s.start();
  });

  for (const program of CORPUS) {
    it(program.name, async () => {
      // The module frame shows the session's variables: none from the program before.
      await s.clear();
      const { result } = await traced(s, program.source, program.input);
      const ours = canonical(result.trace!);
      const theirs = referee(program.source, program.input);
      expect(theirs.version).toMatch(/^3\.11\./);
      expect(ours.length).toBeGreaterThan(5);
      expect(withoutAddresses(ours)).toEqual(withoutAddresses(inlineComprehensions(theirs.steps)));
      expect(result.status === 'error' ? result.error?.ename : null).toBe(theirs.error);
    });
  }
});

describe('a recording', () => {
  let s: WorkerSession;

  beforeAll(async () => {
    s = new WorkerSession(await loadPyodide(), null);
    await s.start();
  });

  it('draws an aliased list once, with both names referring to its one id', async () => {
    const { result } = await traced(s, 'a = [1, 2]\nb = a\nb.append(3)\nc = [a, a]\nz = 0');
    const trace = result.trace!;
    const last = traceStep(trace, trace.steps.length - 2);
    const vars = Object.fromEntries(last.frames[0].variables);
    expect(vars.a).toEqual(vars.b);
    const id = (vars.a as { ref: number }).ref;
    expect(last.objects.get(id)).toEqual({ id, kind: 'list', type: 'list', items: [['int', '1'], ['int', '2'], ['int', '3']] });
    const outer = last.objects.get((vars.c as { ref: number }).ref)!;
    expect(outer.items).toEqual([{ ref: id }, { ref: id }]);
    // One list, two versions of it (before and after the append): each snapshot stored once.
    expect(trace.objects.filter((o) => o.id === id)).toHaveLength(2);
  });

  it("keeps input()'s answers, echoed in the output as a terminal shows them, and the step each was read at", async () => {
    const { result, events } = await traced(s, "name = input('Name? ')\nprint('Hi', name)", ['Ada']);
    const trace = result.trace!;
    expect(trace.stdout).toBe('Name? Ada\nHi Ada\n');
    expect(trace.inputs).toEqual([{ step: 2, text: 'Ada' }]);
    expect(traceStep(trace, 2).stdout).toBe('Name? Ada\n');
    // The run's own events are as without recording: the answer is an input event, never stdout.
    expect(events.filter((e) => e.type === 'stdout').map((e) => (e as { text: string }).text).join('')).toBe('Name? Hi Ada\n');
    expect(events.some((e) => e.type === 'input' && e.text === 'Ada')).toBe(true);
  });

  it('past maxSteps the run goes on to its end unrecorded, and the record says so', async () => {
    const { result } = await traced(s, "total = 0\nfor i in range(1000):\n    total += i\nprint('done')\ntotal", [], { maxSteps: 50 });
    expect(result.status).toBe('ok');
    expect(result.result?.['text/plain']).toBe('499500');
    expect(result.trace!.steps).toHaveLength(50);
    expect(result.trace!.stepLimitReached).toBe(true);
    expect(result.trace!.limits.maxSteps).toBe(50);
    // What was printed after the limit is not part of the record.
    expect(result.trace!.stdout).toBe('');
    const { result: within } = await traced(s, 'x = 1');
    expect(within.trace!.stepLimitReached).toBe(false);
  });

  it('cuts what one step draws at maxObjects and maxItems, and says how much was left out', async () => {
    const { result } = await traced(s, 'big = list(range(500))\nmany = [[i] for i in range(10)]\nz = 0', [], { maxObjects: 5, maxItems: 100, maxRepr: 10 });
    const trace = result.trace!;
    const last = traceStep(trace, trace.steps.length - 2);
    const big = last.objects.get((Object.fromEntries(last.frames[0].variables).big as { ref: number }).ref)!;
    expect(big.items).toHaveLength(100);
    expect(big.more).toBe(400);
    expect(last.objects.size).toBe(5);
    expect(trace.objectLimitReached).toBe(true);
    const { result: long } = await traced(s, "word = 'abcdefghijklmnop'\nz = 0", [], { maxRepr: 10 });
    expect(Object.fromEntries(traceStep(long.trace!, 2).frames[0].variables).word).toEqual(['str', "'abcdefghij'…"]);
  });

  it('shows only the student\'s frames and variables, not PyTabs\' or the standard library\'s', async () => {
    await s.clear();
    await s.run('earlier = 1', undefined, {}, limits);
    const { result } = await traced(s, 'import json\ndef key(x):\n    return -x\nout = sorted([1, 3, 2], key=key)\ntext = json.dumps(out)');
    const trace = result.trace!;
    const names = new Set(trace.steps.flatMap((step) => step.frames.map((f) => f.name)));
    expect([...names].sort()).toEqual(['<module>', 'key']);
    // sorted() is C, json.dumps Python of the standard library: key's frame sits right under the cell's.
    expect(trace.steps.filter((st) => st.event === 'call' && st.frames.at(-1)!.name === 'key')).toHaveLength(3);
    const vars = Object.fromEntries(traceStep(trace, trace.steps.length - 1).frames[0].variables);
    expect(Object.keys(vars).sort()).toEqual(['earlier', 'json', 'key', 'out', 'text']);
    expect(vars.json).toEqual(['module', 'json']);
  });

  it('keeps a 10,000-step loop compact: an unchanged list is one snapshot, not one per step', async () => {
    await s.clear();
    const code = 'data = [1, 2, 3]\ntotal = 0\nfor i in range(5000):\n    total = total + data[i % 3]';
    const { result } = await traced(s, code, [], { maxSteps: 20_000 });
    const trace = result.trace!;
    expect(trace.steps.length).toBeGreaterThan(10_000);
    expect(trace.objects).toHaveLength(1);
    expect(trace.heaps).toHaveLength(2);
    // The variables change at each step (i, total), so scopes are as many as their values.
    expect(traceStep(trace, trace.steps.length - 1).frames[0].variables).toEqual([
      ['data', { ref: trace.objects[0].id }],
      ['total', ['int', '9999']],
      ['i', ['int', '4999']],
    ]);
  });

  it('Stop (the interrupt) ends a recording run; the steps until the stop come back and the session goes on', async () => {
    const buffer = new Uint8Array(new SharedArrayBuffer(1));
    s.setInterruptBuffer(buffer);
    const global = globalThis as { stopButton?: Uint8Array };
    global.stopButton = buffer;
    try {
      for (const maxSteps of [100_000, 20]) {
        // The cell presses stop itself: JS cannot run while the loop holds the thread.
        const { result } = await traced(s, 'import js\nfor k in range(30):\n    pass\njs.stopButton[0] = 2\nwhile True:\n    k += 1', [], { maxSteps });
        expect(result.error?.ename).toBe('KeyboardInterrupt');
        const trace = result.trace!;
        expect(trace.steps.length).toBeGreaterThan(3);
        expect(trace.stepLimitReached).toBe(maxSteps === 20);
        if (maxSteps === 20) expect(trace.steps).toHaveLength(20);
        else expect(trace.steps.at(-1)!.line).toBeGreaterThanOrEqual(4);
      }
      const { result } = await traced(s, 'after = 2');
      expect(result.status).toBe('ok');
      expect(result.trace!.steps.map((st) => st.event)).toEqual(['call', 'line', 'return']);
    } finally {
      delete global.stopButton;
    }
  });
});
