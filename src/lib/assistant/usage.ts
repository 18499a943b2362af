import type { Round } from '../chat/types';

/**
 * A round's tokens, summed over its requests; null when the endpoint reported none.
 * `cachedTokens` (of the prompt tokens, those the model did not read again) only when it said.
 */
export function roundUsage(round: Round): { promptTokens: number; completionTokens: number; totalTokens: number; cachedTokens?: number } | null {
  const usage = round.events.filter((e) => e.type === 'usage');
  if (!usage.length) return null;
  const cached = usage.filter((e) => e.cachedTokens !== undefined);
  return {
    promptTokens: usage.reduce((n, e) => n + e.promptTokens, 0),
    completionTokens: usage.reduce((n, e) => n + e.completionTokens, 0),
    totalTokens: usage.reduce((n, e) => n + e.totalTokens, 0),
    ...(cached.length ? { cachedTokens: cached.reduce((n, e) => n + (e.cachedTokens ?? 0), 0) } : {}),
  };
}
