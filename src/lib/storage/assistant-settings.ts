import { said, SaidError } from '../i18n/said';
import type { SettingsStore } from './settings';

/**
 * The assistant's endpoint and per-round limits, kept in the `settings` store under a key
 * of their own (apart from `Settings`, whose validation knows nothing of them).
 */
export interface AssistantSettings {
  /** Where the model runs: an endpoint (a server), or a model kept in this browser. */
  provider: 'endpoint' | 'local';
  /** The kept model Ask uses when `provider` is 'local' (its id in local-model/store.ts), or ''. */
  localModel: string;
  /** OpenAI-compatible base URL, e.g. `http://localhost:11434/v1`; empty until set. */
  baseUrl: string;
  model: string;
  /** Code runs per round at most. */
  maxRuns: number;
  /** A round stops after this many failed runs in a row. */
  maxFailedRuns: number;
  /** A round stops when one error (type and message) comes back this many times. */
  maxSameError: number;
  /** Requests to the model per round at most (tool calls that run no code count too). */
  maxTurns: number;
  /** Budget of the context sent with a question (workspace, variables), in estimated tokens. */
  contextTokens: number;
  /** Budget of the session's earlier rounds sent with a question, in estimated tokens. */
  memoryTokens: number;
}

export const DEFAULT_ASSISTANT_SETTINGS: AssistantSettings = {
  provider: 'endpoint',
  localModel: '',
  baseUrl: '',
  model: '',
  maxRuns: 8,
  maxFailedRuns: 3,
  maxSameError: 2,
  maxTurns: 16,
  contextTokens: 2000,
  memoryTokens: 1500,
};

/** A key the person asked to remember, with the origin it was given for. */
export interface StoredKey {
  origin: string;
  apiKey: string;
}

/** What a session keeps of the assistant: the composer's mode and whether code runs without asking. */
export interface AssistantSessionPrefs {
  mode?: 'ask' | 'code';
  autoRun: boolean;
}

const SETTINGS_KEY = 'assistant';
const KEY_KEY = 'assistant-key';
/** Session prefs live under the session's id, and go when the session does (storage/sessions.ts). */
export const sessionPrefsKey = (sessionId: string) => `assistant-session:${sessionId}`;

export async function readAssistantSettings(store: SettingsStore): Promise<AssistantSettings> {
  const stored = await store.get<Partial<AssistantSettings>>(SETTINGS_KEY);
  return { ...DEFAULT_ASSISTANT_SETTINGS, ...(stored ?? {}) };
}

export async function writeAssistantSettings(store: SettingsStore, settings: AssistantSettings): Promise<void> {
  validateAssistantSettings(settings);
  await store.put(SETTINGS_KEY, settings);
}

export function validateAssistantSettings(s: AssistantSettings): void {
  // internal: the page offers only these values; a wrong one is a caller's bug, read in the console.
  if (s.provider !== 'endpoint' && s.provider !== 'local') throw new Error(`The assistant's provider must be 'endpoint' or 'local', not ${String(s.provider)}`);
  // internal: as above.
  if (typeof s.localModel !== 'string') throw new Error('The local model must be named by its id');
  if (s.baseUrl) {
    let url: URL;
    try {
      url = new URL(s.baseUrl);
    } catch {
      throw new SaidError(said('libb_assistant_url_invalid', { url: s.baseUrl }));
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SaidError(said('libb_assistant_url_scheme'));
    if (url.username || url.password) throw new SaidError(said('libb_assistant_url_key'));
  }
  const counts: (keyof AssistantSettings)[] = ['maxRuns', 'maxFailedRuns', 'maxSameError', 'maxTurns', 'contextTokens', 'memoryTokens'];
  for (const key of counts) {
    const v = s[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new SaidError(said('libb_assistant_count', { setting: key }));
  }
}

export async function readStoredKey(store: SettingsStore): Promise<StoredKey | undefined> {
  const value = await store.get<StoredKey>(KEY_KEY);
  return value && typeof value.apiKey === 'string' && typeof value.origin === 'string' ? value : undefined;
}

export async function writeStoredKey(store: SettingsStore, key: StoredKey): Promise<void> {
  await store.put(KEY_KEY, key);
}

export async function deleteStoredKey(store: SettingsStore): Promise<void> {
  await store.delete(KEY_KEY);
}

export async function readSessionPrefs(store: SettingsStore, sessionId: string): Promise<AssistantSessionPrefs> {
  const stored = await store.get<Partial<AssistantSessionPrefs>>(sessionPrefsKey(sessionId));
  return { autoRun: true, ...(stored ?? {}) };
}

export async function writeSessionPrefs(store: SettingsStore, sessionId: string, change: Partial<AssistantSessionPrefs>): Promise<AssistantSessionPrefs> {
  const next = { ...(await readSessionPrefs(store, sessionId)), ...change };
  // internal: the page offers only Ask and Code; another mode is a caller's bug, read in the console.
  if (next.mode !== undefined && next.mode !== 'ask' && next.mode !== 'code') throw new Error(`Unknown message mode: ${String(next.mode)}`);
  await store.put(sessionPrefsKey(sessionId), next);
  return next;
}
