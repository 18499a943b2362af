import type { SettingsStore } from '../storage/settings';
import { formatBytes } from '../format';
import {
  deleteStoredKey,
  readAssistantSettings,
  readStoredKey,
  writeAssistantSettings,
  writeStoredKey,
  type AssistantSettings,
} from '../storage/assistant-settings';
import { guardedFetch, probeReachable } from './guarded-fetch';
import { originOf } from './presets';
import { localModelHost } from '../local-model/host';
import { localFetch, type LocalTransport } from './local-fetch';
import type { AssistantNoteKind } from './events';
import { said, SaidError, tell, type Said } from '../i18n/said';

/** The address the `openai` client is given for the model in this browser: never fetched (.invalid), answered by localFetch. */
export const LOCAL_BASE_URL = 'http://model-in-this-browser.invalid/v1';
/** How messages name the model in this browser where they would name an endpoint's origin. */
export const LOCAL_ORIGIN = 'the model in this browser';

/** What a round or a connection test needs to talk to the model; carries no key in sight. */
export interface EndpointConnection {
  baseUrl: string;
  origin: string;
  model: string;
  /** Sends only to `origin`, adding the key when there is one (guarded-fetch.ts). */
  fetch: typeof fetch;
  /** Whether anything answers at a URL of `origin`, ignoring CORS (guarded-fetch.ts). */
  probe(url: string, signal?: AbortSignal): Promise<boolean>;
  /** Hides the key in a text bound for the person (error messages). */
  scrub(text: string): string;
  /**
   * A small model whose every prompt token costs (the model in this browser): the round sends
   * a short system message and smaller budgets of context and earlier rounds.
   */
  small?: { contextTokens: number; memoryTokens: number };
}

/**
 * The assistant's endpoint on this page: its settings (stored) and the API key. The key lives in
 * this object's private field, in page memory, unless the person asks to remember it, and then
 * also in the settings store with the origin it was given for. It is dropped when the Base URL's
 * origin changes, and it reaches the network only through the guarded fetch of `connection()`.
 */
export class AssistantEndpoint {
  #key: string | null = null;
  /** The origin the key was given for; the key is never sent anywhere else. */
  #keyOrigin: string | null = null;
  #remembered = false;
  #settings: AssistantSettings;

  private constructor(
    private readonly store: SettingsStore,
    settings: AssistantSettings,
  ) {
    this.#settings = settings;
  }

  static async load(store: SettingsStore): Promise<AssistantEndpoint> {
    const endpoint = new AssistantEndpoint(store, await readAssistantSettings(store));
    const stored = await readStoredKey(store);
    const origin = originOf(endpoint.#settings.baseUrl);
    if (stored && origin && stored.origin === origin) {
      endpoint.#key = stored.apiKey;
      endpoint.#keyOrigin = origin;
      endpoint.#remembered = true;
    } else if (stored) {
      await deleteStoredKey(store);
    }
    return endpoint;
  }

  get settings(): AssistantSettings {
    return { ...this.#settings };
  }

  /** A Base URL and a model are set, or a kept model is chosen: Ask can be offered. */
  get configured(): boolean {
    if (this.#settings.provider === 'local') return Boolean(this.#settings.localModel);
    return Boolean(originOf(this.#settings.baseUrl) && this.#settings.model.trim());
  }

  get hasKey(): boolean {
    return this.#key !== null;
  }

  /** Whether the key is kept in this browser's storage. */
  get remembered(): boolean {
    return this.#remembered;
  }

  /** Saves settings; a Base URL on another origin forgets the key (in memory and in storage). */
  async update(change: Partial<AssistantSettings>): Promise<AssistantSettings> {
    const next = { ...this.#settings, ...change, baseUrl: (change.baseUrl ?? this.#settings.baseUrl).trim() };
    next.model = next.model.trim();
    await writeAssistantSettings(this.store, next);
    const origin = originOf(next.baseUrl);
    this.#settings = next;
    if (this.#keyOrigin !== null && this.#keyOrigin !== origin) await this.forgetKey();
    return this.settings;
  }

  /**
   * Holds `apiKey` for the current Base URL's origin; with `remember`, stores it too (and without,
   * removes a stored one). An empty key forgets it.
   */
  async setKey(apiKey: string, remember: boolean): Promise<void> {
    const key = apiKey.trim();
    if (!key) return this.forgetKey();
    const origin = originOf(this.#settings.baseUrl);
    if (!origin) throw new SaidError(said('chat_err_key_needs_base'));
    if (/\s/.test(key)) throw new SaidError(said('chat_err_key_spaces'));
    if (remember) await writeStoredKey(this.store, { origin, apiKey: key });
    else await deleteStoredKey(this.store);
    this.#key = key;
    this.#keyOrigin = origin;
    this.#remembered = remember;
  }

  async forgetKey(): Promise<void> {
    this.#key = null;
    this.#keyOrigin = null;
    this.#remembered = false;
    await deleteStoredKey(this.store);
  }

  /**
   * The current settings as a connection; throws with what is missing when there is no Base URL.
   * `onNote` hears what a round should show of the model in this browser (loading it, what was
   * cut to fit its context).
   */
  connection(overrides: { model?: string; onNote?: (kind: AssistantNoteKind, note: Said) => void; session?: string; background?: boolean } = {}): EndpointConnection {
    if (this.#settings.provider === 'local') return hostedConnection(this.#settings.localModel, overrides);
    const { baseUrl } = this.#settings;
    const origin = originOf(baseUrl);
    if (!origin) throw new SaidError(said('chat_err_no_base'));
    return {
      baseUrl,
      origin,
      model: overrides.model ?? this.#settings.model,
      fetch: guardedFetch(
        origin,
        () => this.#key,
        () => this.#keyOrigin,
      ),
      probe: (url, signal) => probeReachable(origin, url, signal),
      scrub: (text) => scrubSecret(text, this.#key),
    };
  }
}

/** The model in this browser as a connection: no network, no key; the page's one model host loads it. */
function hostedConnection(
  id: string,
  { onNote, session, background }: { onNote?: (kind: AssistantNoteKind, note: Said) => void; session?: string; background?: boolean },
): EndpointConnection {
  if (!id) throw new SaidError(said('chat_err_no_local_model'));
  return localConnection(id, {
    model: () => localModelHost.use(id, (name, bytes) => onNote?.('model_loading', said('chat_note_model_loading', { name, size: formatBytes(bytes) }))),
    onCut: (note) => onNote?.('context_cut', note),
    session,
    background,
  });
}

/** A connection to a model in this browser through `transport` (the page's host, or a test's). */
export function localConnection(id: string, transport: LocalTransport): EndpointConnection {
  return {
    baseUrl: LOCAL_BASE_URL,
    origin: LOCAL_ORIGIN,
    model: id,
    fetch: localFetch(transport),
    probe: async () => false,
    scrub: (text) => text,
    small: { contextTokens: SMALL_CONTEXT_TOKENS, memoryTokens: SMALL_MEMORY_TOKENS },
  };
}

/**
 * Budgets for a model in this browser (estimated tokens): its context is a few thousand, read at
 * about ten a second. Earlier rounds go to it word for word and stay read from one question to the
 * next (memory.ts buildVerbatimMemory), so their budget costs only when the oldest are let go.
 */
const SMALL_CONTEXT_TOKENS = 500;
const SMALL_MEMORY_TOKENS = 1500;

/** Removes a secret (and any bearer token) from text meant for people. */
export function scrubSecret(text: string, secret: string | null): string {
  let out = text.replace(/Bearer\s+[^\s"',;]+/gi, () => `Bearer ${tell(said('lib2_token_hidden'))}`);
  if (secret) out = out.split(secret).join(tell(said('lib2_key_hidden')));
  return out;
}

const endpoints = new WeakMap<SettingsStore, Promise<AssistantEndpoint>>();

/**
 * The page's one endpoint for a database (its key is per device, not per session): Settings and
 * `ask` share it, so a key typed in Settings is the one a round uses.
 */
export function assistantEndpoint(store: SettingsStore): Promise<AssistantEndpoint> {
  let endpoint = endpoints.get(store);
  if (!endpoint) {
    endpoint = AssistantEndpoint.load(store);
    endpoints.set(store, endpoint);
    endpoint.catch(() => endpoints.delete(store));
  }
  return endpoint;
}
