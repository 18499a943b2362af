import type { Round } from '../chat/types';

/** A round's tokens, summed over its requests; null when the endpoint reported none. */
export function roundUsage(round: Round): { promptTokens: number; completionTokens: number; totalTokens: number } | null {
  const usage = round.events.filter((e) => e.type === 'usage');
  if (!usage.length) return null;
  return {
    promptTokens: usage.reduce((n, e) => n + e.promptTokens, 0),
    completionTokens: usage.reduce((n, e) => n + e.completionTokens, 0),
    totalTokens: usage.reduce((n, e) => n + e.totalTokens, 0),
  };
}
