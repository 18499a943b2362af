import type { Round } from '../lib/chat';
import { traceStep, type TraceStepView } from '../lib/trace';
import type { Trace, TraceObject, TraceValue } from '../lib';
import { language, m } from './i18n.svelte';

/** The code a block of a round ran: what its step-through shows. */
export function blockCode(round: Round, block: number): string {
  const start = round.events.find((e) => e.type === 'code_start' && e.block === block);
  return start?.type === 'code_start' ? start.code : round.message;
}

/** An object's name on screen and in words: "list #1" (one name per object, so aliases read alike). */
export function objectName(object: Pick<TraceObject, 'type' | 'id'>): string {
  return m.step_object({ type: object.type, id: object.id });
}

/** A value in words: its repr, or the name of the object it refers to. */
export function valueWords(value: TraceValue, objects: ReadonlyMap<number, TraceObject>): string {
  if (!Array.isArray(value)) {
    const object = objects.get(value.ref);
    return object ? objectName(object) : m.step_object({ type: '?', id: value.ref });
  }
  return value[1];
}

/** An object's contents in one short line, as a screen reader says it after a change. */
function contentsWords(object: TraceObject, objects: ReadonlyMap<number, TraceObject>): string {
  const words = (v: TraceValue) => valueWords(v, objects);
  const parts = object.items?.map(words) ?? object.entries?.map(([k, v]) => `${words(k)}: ${words(v)}`) ?? object.attributes?.map(([k, v]) => `${k}=${words(v)}`) ?? [];
  return parts.join(', ');
}

function listWords(parts: string[]): string {
  return new Intl.ListFormat(language.locale, { type: 'conjunction' }).format(parts);
}

/**
 * One step-through's place and what each step means, for one block of one round (each view
 * holds its own: nothing here outlives the component that shows it).
 */
export class StepView {
  index = $state(0);
  readonly last: number;
  readonly step: TraceStepView = $derived.by(() => traceStep(this.trace, this.index));
  /** The line picked in the code for "Next time this line runs"; none: the line about to run. */
  chosen = $state<number | null>(null);
  /** Said instead of the step's change until the next move: that a jump found no step. */
  private notice = $state<string | null>(null);
  /** The step's change, said in words for the live region: "Line 4: total is 10". */
  readonly said: string = $derived.by(() => this.notice ?? this.describe(this.index));

  constructor(readonly trace: Trace) {
    this.last = Math.max(0, trace.steps.length - 1);
  }

  go(index: number): void {
    this.notice = null;
    this.index = Math.max(0, Math.min(this.last, Math.round(index)));
  }

  /** Picks `line` for "Next time this line runs", or, picked already, goes back to the line about to run. */
  choose(line: number): void {
    this.chosen = this.chosen === line ? null : line;
  }

  /** The line "Next time this line runs" looks for. */
  get target(): number | null {
    return this.chosen ?? this.next;
  }

  /** Moves to the next step at which the target line is about to run, or says there is none. */
  runToNext(): void {
    const line = this.target;
    if (line === null) return;
    const at = this.trace.steps.findIndex((step, i) => i > this.index && step.event === 'line' && step.line === line);
    if (at < 0) this.notice = m.stepv_not_again({ line });
    else this.go(at);
  }

  /** The line that ran to reach this step, if a line of the same code did. */
  get justRan(): number | null {
    const before = this.trace.steps[this.index - 1];
    return before && before.event === 'line' ? before.line : null;
  }

  /** The line about to run. */
  get next(): number | null {
    const step = this.trace.steps[this.index];
    return step && step.event === 'line' ? step.line : null;
  }

  private describe(index: number): string {
    const step = this.trace.steps[index];
    if (!step) return m.step_empty();
    const view = traceStep(this.trace, index);
    const frame = view.frames.at(-1);
    if (step.event === 'call') return index === 0 ? m.step_said_start() : m.step_said_call({ name: frame?.name ?? '' });
    if (step.event === 'return') return m.step_said_return({ name: frame?.name ?? '', value: step.returned ? valueWords(step.returned, view.objects) : 'None' });
    if (step.event === 'exception') return m.step_said_exception({ line: step.line, error: `${step.exception?.type}: ${step.exception?.message}` });
    const before = this.trace.steps[index - 1];
    if (!before || before.event !== 'line') return m.step_said_next({ line: step.line });
    return m.step_said_change({ line: before.line, change: this.changes(index) || m.step_said_nothing() });
  }

  /** What changed from the step before: the innermost frame's names, then objects whose contents changed. */
  private changes(index: number): string {
    const now = this.trace.steps[index];
    const before = this.trace.steps[index - 1];
    const view = traceStep(this.trace, index);
    const parts: string[] = [];
    const frame = now.frames.at(-1);
    const old = before.frames[now.frames.length - 1];
    if (frame) {
      const was = new Map((old ? this.trace.scopes[old.scope] : []).map(([name, value]) => [name, JSON.stringify(value)]));
      for (const [name, value] of this.trace.scopes[frame.scope]) {
        if (was.get(name) !== JSON.stringify(value)) parts.push(m.step_said_is({ name, value: valueWords(value, view.objects) }));
      }
    }
    // Each distinct snapshot is stored once: an object whose snapshot index moved has changed.
    const snapshotOf = new Map(this.trace.heaps[before.heap].map((at) => [this.trace.objects[at].id, at]));
    for (const at of this.trace.heaps[now.heap]) {
      const object = this.trace.objects[at];
      const was = snapshotOf.get(object.id);
      if (was !== undefined && was !== at) parts.push(m.step_said_holds({ object: objectName(object), contents: contentsWords(object, view.objects) }));
    }
    return listWords(parts);
  }
}
