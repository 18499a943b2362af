import type { RunResult, Trace, TraceObject, TraceStep, TraceValue, WorkerRunResult } from './worker-api';

/** One step of a trace with its indexes resolved: what a view draws, or a test compares. */
export interface TraceStepView {
  line: number;
  event: TraceStep['event'];
  /** The student's frames, the outermost first, each with its variables in order. */
  frames: { name: string; line: number; variables: [string, TraceValue][] }[];
  /** The objects drawn at this step, by their number (what `{ ref }` values point to). */
  objects: Map<number, TraceObject>;
  /** Everything printed up to this step. */
  stdout: string;
  returned?: TraceValue;
  exception?: { type: string; message: string };
}

/** Step `index` of `trace`, expanded from the shared tables it is kept in. */
export function traceStep(trace: Trace, index: number): TraceStepView {
  const step = trace.steps[index];
  // internal: a step the view never offers (it moves within the trace's steps); a fault of the code, not of the person.
  if (!step) throw new RangeError(`The trace has no step ${index}: it has ${trace.steps.length}.`);
  const view: TraceStepView = {
    line: step.line,
    event: step.event,
    frames: step.frames.map((frame) => ({ name: frame.name, line: frame.line, variables: trace.scopes[frame.scope] })),
    objects: new Map(trace.heaps[step.heap].map((at) => [trace.objects[at].id, trace.objects[at]])),
    stdout: trace.stdout.slice(0, step.stdout),
  };
  if (step.returned) view.returned = step.returned;
  if (step.exception) view.exception = step.exception;
  return view;
}

/** A worker's run result with its trace parsed, as the page hands it on. */
export function withTrace(sent: WorkerRunResult): RunResult {
  const { traceJson, ...result } = sent;
  return traceJson === undefined ? result : { ...result, trace: JSON.parse(traceJson) as Trace };
}
