import { getContext, setContext } from 'svelte';
import type { RunError } from '../lib/worker-api';

/** What an error shown in a session's chat may offer there (SessionView provides it). */
export interface ErrorHelp {
  /** False when the session's assignment turned help off for a test. */
  readonly explanations: boolean;
  /** An assistant is set, and allowed: "Explain this error" asks it. */
  readonly canAsk: boolean;
  /** Asks the assistant about the error of a run of `code`. */
  explainError(error: RunError, code: string): void;
}

const KEY = Symbol('error-help');

/**
 * Gives the rounds drawn inside the caller the help of its session. A getter, read where the
 * error is drawn: the caller's session may change, and its help with it.
 */
export function provideErrorHelp(help: () => ErrorHelp): void {
  setContext(KEY, help);
}

/** The help of the session an error is drawn in; null where none was provided (an embed: explanations, no assistant). */
export function errorHelp(): () => ErrorHelp | null {
  return getContext<(() => ErrorHelp) | undefined>(KEY) ?? (() => null);
}
