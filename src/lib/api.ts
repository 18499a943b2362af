import { ask, type AskOptions } from './assistant';
import type { Round } from './chat';
import type { SessionManager } from './sessions/manager';

/** What `ask` takes through the public API: the page's own endpoint (Settings → Assistant) is always used. */
export type ApiAskOptions = Omit<AskOptions, 'endpoint'>;

/**
 * The app's public TypeScript API (`window.pytabs`): every method of the SessionManager, plus
 * `ask`, which sits here rather than on the manager so that `src/lib/sessions` never depends on
 * the assistant.
 */
export type PyTabsApi = SessionManager & {
  /**
   * Asks the session's assistant a question in plain words and resolves with the finished round
   * (stored with the session's history, `kind: 'ask'`). Uses the endpoint and key set in
   * Settings → Assistant; code runs without asking unless the session turned that off, and then
   * `approve` is required.
   *
   * @example
   * ```ts
   * const stop = new AbortController();
   * const round = await window.pytabs.ask(sessionId, 'what are the unique tags in data.xlsx?', {
   *   files: [{ name: 'data.xlsx', data: bytes }],
   *   onEvent: (event) => event.type === 'assistant_text' && console.log(event.text),
   *   signal: stop.signal,
   * });
   * console.log(round.state); // 'finished', 'failed' or 'stopped'
   * ```
   */
  ask(sessionId: string, question: string, options?: ApiAskOptions): Promise<Round>;
};

/**
 * Makes the public API object from a manager: a view of the manager (its methods bound to it,
 * so they work when passed around) with `ask` beside them.
 */
export function createApi(manager: SessionManager): PyTabsApi {
  const askInSession = (sessionId: string, question: string, options: ApiAskOptions = {}) => ask(manager, sessionId, question, options);
  // A Proxy rather than a copy: the manager's getters (settingsStore, lastCleanup) stay live.
  return new Proxy(manager, {
    get(target, prop) {
      if (prop === 'ask') return askInSession;
      const value: unknown = Reflect.get(target, prop, target);
      // Methods are bound; the class itself (`constructor`, with its static `open`) is not a method.
      return typeof value === 'function' && prop !== 'constructor' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    has: (target, prop) => prop === 'ask' || Reflect.has(target, prop),
  }) as PyTabsApi;
}
