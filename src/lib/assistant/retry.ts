import type { AssistantError } from './assistant-error';

export interface RetryPolicy {
  /** Retries after the first attempt, for 429 and 5xx only. */
  retries: number;
  /** First back-off when the server named no wait; doubled for each retry. */
  baseMs: number;
  /** A named wait longer than this is not waited for: the round ends with the error. */
  maxWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 2, baseMs: 1000, maxWaitMs: 60_000 };

/**
 * How long to wait before retry number `attempt` (from 1), or null when the error is not to be
 * retried: only 429 and 5xx, at most `retries` times, honouring the server's `retry-after`.
 */
export function retryDelay(error: AssistantError, attempt: number, policy: RetryPolicy): number | null {
  if (!error.retryable || attempt > policy.retries) return null;
  const wait = error.retryAfterMs ?? policy.baseMs * 2 ** (attempt - 1);
  return wait <= policy.maxWaitMs ? wait : null;
}
