import { said } from '../i18n/said';
import type { Trace } from '../worker-api';
import { ImportError } from './errors';
import { flag, integer, list, record, text } from './checks';
import { MAX_HISTORY_BYTES, MAX_MESSAGE_CHARS } from './limits';

/** Entries of one table of a kept step-through; the history file's own size cap bounds them first. */
const MAX_TABLE = 10_000_000;
const EVENTS = new Set(['call', 'line', 'return', 'exception']);
const KINDS = new Set(['list', 'tuple', 'dict', 'set', 'frozenset', 'instance']);
const LIMITS = ['maxSteps', 'maxObjects', 'maxItems', 'maxRepr'] as const;

function pair(value: unknown, what: string): [unknown, unknown] {
  const both = list(value, what, 2);
  if (both.length !== 2) throw new ImportError(said('lib_trace_pair', { what }));
  return both as [unknown, unknown];
}

/** A value as a step shows it: `[type, repr]` inline, or `{ ref }` to an object. */
function checkValue(value: unknown, what: string): void {
  if (Array.isArray(value)) {
    const [type, repr] = pair(value, what);
    text(type, `${what} type`, 1000);
    text(repr, `${what} repr`, MAX_MESSAGE_CHARS);
  } else integer(record(value, what).ref, `${what} "ref"`);
}

function checkObject(value: unknown, what: string): void {
  const object = record(value, what);
  integer(object.id, `${what} "id"`);
  if (!KINDS.has(text(object.kind, `${what} "kind"`, 20))) throw new ImportError(said('lib_trace_unknown', { what, field: '"kind"' }));
  text(object.type, `${what} "type"`, 1000);
  if (object.items !== undefined) list(object.items, `${what} "items"`, MAX_TABLE).forEach((v) => checkValue(v, `${what} item`));
  if (object.entries !== undefined) {
    for (const entry of list(object.entries, `${what} "entries"`, MAX_TABLE)) pair(entry, `${what} entry`).forEach((v) => checkValue(v, `${what} entry`));
  }
  if (object.attributes !== undefined) {
    for (const attribute of list(object.attributes, `${what} "attributes"`, MAX_TABLE)) {
      const [name, v] = pair(attribute, `${what} attribute`);
      text(name, `${what} attribute name`, 1000);
      checkValue(v, `${what} attribute`);
    }
  }
  if (object.more !== undefined) integer(object.more, `${what} "more"`);
}

/**
 * A step-through kept in a round (a `trace` event), checked whole as a file from elsewhere
 * brings it: every index a step holds points into its tables, so the view can draw any step.
 */
export function checkTrace(value: unknown, what: string): Trace {
  const trace = record(value, what);
  const objects = list(trace.objects, `${what} "objects"`, MAX_TABLE);
  objects.forEach((o, i) => checkObject(o, `${what} object ${i + 1}`));
  const scopes = list(trace.scopes, `${what} "scopes"`, MAX_TABLE);
  for (const scope of scopes) {
    for (const variable of list(scope, `${what} scope`, MAX_TABLE)) {
      const [name, v] = pair(variable, `${what} variable`);
      text(name, `${what} variable name`, 1000);
      checkValue(v, `${what} variable`);
    }
  }
  const heaps = list(trace.heaps, `${what} "heaps"`, MAX_TABLE);
  for (const heap of heaps) for (const at of list(heap, `${what} heap`, MAX_TABLE)) integer(at, `${what} heap entry`, 0, objects.length - 1);
  const stdout = text(trace.stdout, `${what} "stdout"`, MAX_HISTORY_BYTES);
  const steps = list(trace.steps, `${what} "steps"`, MAX_TABLE);
  steps.forEach((s, i) => {
    const at = `${what} step ${i + 1}`;
    const step = record(s, at);
    integer(step.line, `${at} "line"`);
    if (!EVENTS.has(text(step.event, `${at} "event"`, 20))) throw new ImportError(said('lib_trace_unknown', { what: at, field: '"event"' }));
    for (const f of list(step.frames, `${at} "frames"`, MAX_TABLE)) {
      const frame = record(f, `${at} frame`);
      text(frame.name, `${at} frame "name"`, 1000);
      integer(frame.line, `${at} frame "line"`);
      integer(frame.scope, `${at} frame "scope"`, 0, scopes.length - 1);
    }
    integer(step.heap, `${at} "heap"`, 0, heaps.length - 1);
    integer(step.stdout, `${at} "stdout"`, 0, stdout.length);
    if (step.returned !== undefined) checkValue(step.returned, `${at} "returned"`);
    if (step.exception !== undefined) {
      const exception = record(step.exception, `${at} "exception"`);
      text(exception.type, `${at} exception "type"`, 1000);
      text(exception.message, `${at} exception "message"`, MAX_MESSAGE_CHARS);
    }
  });
  for (const i of list(trace.inputs, `${what} "inputs"`, MAX_TABLE)) {
    const input = record(i, `${what} input`);
    integer(input.step, `${what} input "step"`);
    text(input.text, `${what} input "text"`, MAX_MESSAGE_CHARS);
  }
  const limits = record(trace.limits, `${what} "limits"`);
  for (const name of LIMITS) integer(limits[name], `${what} "limits.${name}"`);
  flag(trace.stepLimitReached, `${what} "stepLimitReached"`);
  flag(trace.objectLimitReached, `${what} "objectLimitReached"`);
  return trace as unknown as Trace;
}
