import { ask, type AskOptions } from './assistant';
import type { Round } from './chat';
import type { loadLocalModel } from './local-model/client';
import type { SessionManager } from './sessions/manager';

/** What `ask` takes through the public API: the page's own endpoint (Settings → Assistant) is always used. */
export type ApiAskOptions = Omit<AskOptions, 'endpoint'>;

/**
 * The app's public TypeScript API (`window.pytabs`): every method of the SessionManager, plus
 * `ask`, which sits here rather than on the manager so that `src/lib/sessions` never depends on
 * the assistant, and `loadLocalModel`.
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
  /**
   * Loads a GGUF model to run in this tab, in a worker of its own (llama.cpp through wllama), and
   * resolves with it: `chat` streams an answer, `json` samples one under a JSON schema, `unload`
   * ends the worker. One model per page: loading another unloads the first. Its code is fetched
   * on the first call, not with the page.
   *
   * @example
   * ```ts
   * const model = await window.pytabs.loadLocalModel({ kind: 'url', url: 'models/qwen.gguf' });
   * await model.chat([{ role: 'user', content: 'Hello' }], { onText: (text) => console.log(text) });
   * await model.unload();
   * ```
   */
  loadLocalModel: typeof loadLocalModel;
};

/**
 * Makes the public API object from a manager: a view of the manager (its methods bound to it,
 * so they work when passed around) with `ask` and `loadLocalModel` beside them.
 */
export function createApi(manager: SessionManager): PyTabsApi {
  const askInSession = (sessionId: string, question: string, options: ApiAskOptions = {}) => ask(manager, sessionId, question, options);
  const loadModel: typeof loadLocalModel = async (...args) => (await import('./local-model/client')).loadLocalModel(...args);
  const extra: Record<string, unknown> = { ask: askInSession, loadLocalModel: loadModel };
  // A Proxy rather than a copy: the manager's getters (settingsStore, lastCleanup) stay live.
  return new Proxy(manager, {
    get(target, prop) {
      if (Object.hasOwn(extra, prop)) return extra[prop as string];
      const value: unknown = Reflect.get(target, prop, target);
      // Methods are bound; the class itself (`constructor`, with its static `open`) is not a method.
      return typeof value === 'function' && prop !== 'constructor' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    has: (target, prop) => Object.hasOwn(extra, prop) || Reflect.has(target, prop),
  }) as PyTabsApi;
}
