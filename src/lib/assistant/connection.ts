import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { createClient } from './client';
import type { AssistantEndpoint, EndpointConnection } from './endpoint';
import { classifyRequestError } from './errors';
import { OriginRefusedError } from './guarded-fetch';
import { corsFix, reachFix } from './presets';
import { said, SaidError, tellInEnglish, type Said } from '../i18n/said';

export type ConnectionStatus = 'ok' | 'unreachable' | 'blocked' | 'key_refused' | 'model_not_found' | 'error';

export interface ConnectionReport {
  status: ConnectionStatus;
  /** What happened and what to do, for the person (told where it is shown); never holds the key. */
  said: Said;
  /** The same in English, for logs. */
  message: string;
  /** The model's name as the server gave it, when working. */
  model?: string;
  /** The models the endpoint listed, when it lists them. */
  models?: string[];
}

const MODELS_SHOWN = 20;

function listed(models: string[] | undefined): Said | '' {
  if (!models?.length) return '';
  const shown = models.slice(0, MODELS_SHOWN).join(', ');
  return models.length > MODELS_SHOWN ? said('chat_conn_has_more', { models: shown, more: models.length - MODELS_SHOWN }) : said('chat_conn_has', { models: shown });
}

function report(status: ConnectionStatus, text: Said, more: Omit<ConnectionReport, 'status' | 'said' | 'message'> = {}): ConnectionReport {
  return { status, said: text, message: tellInEnglish(text), ...more };
}

/** An error's said text, or its words as they came. */
function saidOf(error: unknown): Said {
  if (error instanceof SaidError) return error.said;
  return said('chat_conn_error', { error: error instanceof Error ? error.message : String(error) });
}

/** Whether a failed request got no answer the page could read (down, or refused by the browser). */
function noAnswer(error: unknown): boolean {
  return error instanceof APIConnectionError && !((error as { cause?: unknown }).cause instanceof OriginRefusedError);
}

/**
 * Tests the endpoint as a round would use it (same client, same headers, so the same CORS
 * preflight): lists `/models`, and when the model is not listed (or nothing is), asks it for one
 * token. A request that gets no readable answer is followed by a `no-cors` probe
 * (guarded-fetch.ts `probeReachable`): if a response came, as an opaque answer or, on this
 * cross-origin isolated page, as the browser's COEP report of one it refused, the browser is
 * what refused (CORS or local network permission); if not, nothing answered. The browser gives
 * both the same TypeError, so the probe is the only honest way to tell them apart from a page.
 */
export async function testConnection(
  endpoint: AssistantEndpoint | EndpointConnection,
  options: { signal?: AbortSignal; pageOrigin?: string } = {},
): Promise<ConnectionReport> {
  let connection: EndpointConnection;
  try {
    connection = 'connection' in endpoint ? endpoint.connection() : endpoint;
  } catch (error) {
    return report('error', saidOf(error));
  }
  const pageOrigin = options.pageOrigin ?? globalThis.location?.origin;
  const client = createClient(connection);
  const ctx = { origin: connection.origin, model: connection.model, scrub: connection.scrub };
  const unanswered = async (): Promise<ConnectionReport> => {
    const url = `${connection.baseUrl.replace(/\/+$/, '')}/models`;
    if (await connection.probe(url, options.signal)) {
      return report('blocked', said('chat_conn_blocked', { origin: connection.origin, fix: corsFix(connection.baseUrl, pageOrigin) }));
    }
    return report('unreachable', said('chat_conn_unreachable', { origin: connection.origin, fix: reachFix(connection.baseUrl, pageOrigin) }));
  };
  const failed = (error: unknown): ConnectionReport => {
    const classified = classifyRequestError(error, ctx);
    if (classified.kind === 'key_refused' || classified.kind === 'forbidden') return report('key_refused', classified.said);
    return report('error', classified.said);
  };

  let models: string[] | undefined;
  try {
    const page = await client.models.list({ signal: options.signal });
    models = page.data.map((m) => m.id);
  } catch (error) {
    if (error instanceof APIUserAbortError) throw error;
    if (noAnswer(error)) return unanswered();
    if (error instanceof APIError && (error.status === 401 || error.status === 403)) return failed(error);
    // Some servers have no model list (404, 405): the one-token request below decides.
  }
  const model = connection.model.trim();
  if (!model) return report('model_not_found', said('chat_conn_no_model', { models: listed(models) }), { models });
  if (models?.includes(model)) return report('ok', said('chat_conn_working', { model, origin: connection.origin }), { model, models });

  try {
    const reply = await client.chat.completions.create(
      // to the model: the test question, which asks for one token.
      { model, messages: [{ role: 'user', content: 'Reply with OK.' }], max_tokens: 1, stream: false },
      { signal: options.signal },
    );
    const name = reply.model || model;
    return report('ok', said('chat_conn_working', { model: name, origin: connection.origin }), { model: name, ...(models ? { models } : {}) });
  } catch (error) {
    if (error instanceof APIUserAbortError) throw error;
    if (noAnswer(error)) return unanswered();
    const refused = failed(error);
    if (refused.status === 'key_refused') return refused;
    const classified = classifyRequestError(error, ctx);
    if (classified.kind === 'model_not_found' || (models && !models.includes(model))) {
      return report('model_not_found', said('chat_conn_model_missing', { model, models: listed(models) }), models ? { models } : {});
    }
    return refused;
  }
}
