import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/lib/storage/db';
import { RoundHistory } from '../../src/lib/storage/session-store';
import { sendMessage } from '../../src/lib/chat/send';
import type { Round, RoundEvent } from '../../src/lib/chat/types';
import { traceStep } from '../../src/lib/trace';
import { PyodideEngine } from './assistant-engine';

// Step through's round on real Pyodide and (fake) IndexedDB: the record is kept with the round.

type TraceEvent = Extract<RoundEvent, { type: 'trace' }>;
let engine: PyodideEngine;

beforeAll(async () => {
  engine = new PyodideEngine(await openDb('step-round-test'));
  await engine.open('main');
}, 120_000);

describe('a Code message sent with trace', () => {
  it('keeps each block’s record in the stored round, and a plain send records none', async () => {
    const message = '```python\na = [1, 2]\nb = a\n```\n\n```python\nb.append(3)\n```';
    const round = await sendMessage(engine, 'main', message, { trace: { maxSteps: 100 } });
    const plain = await sendMessage(engine, 'main', 'c = 1');
    const stored = await new RoundHistory(engine.db, 'main').list<Round>();
    const traces = stored.find((r) => r.id === round.id)!.events.filter((e): e is TraceEvent => e.type === 'trace');
    expect(traces.map((e) => e.block)).toEqual([0, 1]);
    const first = traces[0].trace;
    const last = traceStep(first, first.steps.length - 1);
    const vars = Object.fromEntries(last.frames[0].variables);
    expect(vars.b).toEqual(vars.a);
    const second = traces[1].trace;
    const after = traceStep(second, second.steps.length - 1);
    expect([...after.objects.values()].map((o) => o.items)).toContainEqual([['int', '1'], ['int', '2'], ['int', '3']]);
    expect(stored.find((r) => r.id === plain.id)!.events.some((e) => e.type === 'trace')).toBe(false);
  }, 120_000);
});
