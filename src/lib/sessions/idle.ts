/**
 * Runs `task` once the page's thread is idle, at most `within` ms from now; where the browser
 * cannot be asked (no `requestIdleCallback`, as in Safari), after `otherwise` ms. The task is
 * best-effort work off a start's path: its failure is dropped. Resolves once it has run.
 */
export function whenIdle(task: () => unknown, { within, otherwise }: { within: number; otherwise: number }): Promise<void> {
  return new Promise<void>((ran) => {
    const run = () => void Promise.resolve().then(task).then(() => ran(), () => ran());
    if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: within });
    else setTimeout(run, otherwise);
  });
}
