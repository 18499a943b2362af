import type { RunEvent, RunResult } from '../worker-api';

/** Characters of each part of a run's output that go back to the model. */
export const SUMMARY_LIMITS = { stream: 2000, value: 1500, tracebackLines: 12 };

const IMAGE_TYPES = ['image/png', 'image/svg+xml', 'image/jpeg', 'image/gif'];

function tail(text: string, limit: number): string {
  return text.length > limit ? `…${text.slice(-limit)}` : text;
}

function head(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** Collects a run's streamed output, for the summary the model gets. */
export class RunOutput {
  stdout = '';
  stderr = '';
  figures = 0;
  displayed: string[] = [];

  add(event: RunEvent): void {
    if (event.type === 'stdout') this.stdout = tail(this.stdout + event.text, SUMMARY_LIMITS.stream * 2);
    else if (event.type === 'stderr') this.stderr = tail(this.stderr + event.text, SUMMARY_LIMITS.stream * 2);
    else if (event.type === 'display') {
      if (IMAGE_TYPES.some((t) => t in event.bundle)) this.figures++;
      else this.displayed.push(head(event.bundle['text/plain'] ?? '', 500));
    }
  }
}

/**
 * What a run gives back to the model: the ends of stdout and stderr, what was displayed
 * ("[figure shown]" for an image), the last value's text/plain, the error's last lines and the
 * files it wrote. Bounded, so a loop that prints a million lines costs a few hundred tokens.
 */
export function summarizeRun(result: RunResult, output: RunOutput): string {
  const parts: string[] = [];
  parts.push(result.status === 'ok' ? 'The code ran without error.' : `The code failed: ${result.error?.ename ?? 'Error'}: ${result.error?.evalue ?? ''}`.trimEnd());
  if (output.stdout) parts.push(`stdout:\n${tail(output.stdout, SUMMARY_LIMITS.stream)}`);
  if (output.stderr) parts.push(`stderr:\n${tail(output.stderr, SUMMARY_LIMITS.stream)}`);
  for (const text of output.displayed.slice(-5)) parts.push(`displayed:\n${text}`);
  if (output.figures) parts.push(output.figures === 1 ? '[figure shown]' : `[${output.figures} figures shown]`);
  const value = result.result?.['text/plain'];
  if (value !== undefined) parts.push(`value of the last expression:\n${head(value, SUMMARY_LIMITS.value)}`);
  if (result.error?.traceback) {
    const lines = result.error.traceback.trimEnd().split('\n');
    parts.push(`traceback (last lines):\n${lines.slice(-SUMMARY_LIMITS.tracebackLines).join('\n')}`);
  }
  if (result.filesChanged.length) parts.push(`files written: ${result.filesChanged.join(', ')}`);
  if (result.filesDeleted.length) parts.push(`files deleted: ${result.filesDeleted.join(', ')}`);
  if (!output.stdout && !output.stderr && value === undefined && result.status === 'ok' && !output.figures && !output.displayed.length) {
    parts.push('(no output)');
  }
  return parts.join('\n\n');
}
