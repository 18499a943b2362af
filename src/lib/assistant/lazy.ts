import type { ask as askNow } from './ask';
import type { testConnection as testNow } from './connection';

// The model client (the `openai` package, ~390 kB) loads with the first question or connection
// test, not with the app: most sessions never ask.

/** `ask` from ask.ts, loaded on first use. */
export async function ask(...args: Parameters<typeof askNow>): ReturnType<typeof askNow> {
  return (await import('./ask')).ask(...args);
}

/** `testConnection` from connection.ts, loaded on first use. */
export async function testConnection(...args: Parameters<typeof testNow>): ReturnType<typeof testNow> {
  return (await import('./connection')).testConnection(...args);
}
