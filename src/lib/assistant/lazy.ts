import type { ask as askNow, prepareAsk as prepareNow } from './ask';
import type { testConnection as testNow } from './connection';

// The model client (the `openai` package, ~390 kB) loads with the first question or connection
// test, not with the app: most sessions never ask.

/** `ask` from ask.ts, loaded on first use. */
export async function ask(...args: Parameters<typeof askNow>): ReturnType<typeof askNow> {
  return (await import('./ask')).ask(...args);
}

/** `prepareAsk` from ask.ts, loaded on first use. */
export async function prepareAsk(...args: Parameters<typeof prepareNow>): ReturnType<typeof prepareNow> {
  return (await import('./ask')).prepareAsk(...args);
}

/** `testConnection` from connection.ts, loaded on first use. */
export async function testConnection(...args: Parameters<typeof testNow>): ReturnType<typeof testNow> {
  return (await import('./connection')).testConnection(...args);
}
