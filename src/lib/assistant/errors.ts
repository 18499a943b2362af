import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { OriginRefusedError } from './guarded-fetch';
import { AssistantError } from './assistant-error';

export interface ErrorContext {
  origin: string;
  model: string;
  scrub: (text: string) => string;
}

/** The server's own words, scrubbed and short. */
function serverSays(error: APIError, ctx: ErrorContext): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : '';
  const clean = ctx.scrub(text).replace(/\s+/g, ' ').trim();
  return clean ? ` The server said: “${clean.length > 300 ? clean.slice(0, 299) + '…' : clean}”` : '';
}

export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** An error thrown by a request (before any of its reply arrived), in the person's terms. */
export function classifyRequestError(error: unknown, ctx: ErrorContext): AssistantError {
  if (error instanceof AssistantError) return error;
  if (error instanceof APIUserAbortError) return new AssistantError('aborted', 'Stopped.');
  if (error instanceof APIConnectionTimeoutError) {
    return new AssistantError('timeout', `The model endpoint at ${ctx.origin} did not answer in time.`);
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof OriginRefusedError) return new AssistantError('origin_refused', cause.message);
    // The model in this browser's own failures, already in the person's words (local-fetch.ts).
    if (cause instanceof AssistantError) return cause;
    return new AssistantError(
      'network',
      `Could not reach the model endpoint at ${ctx.origin}: the server may be down, the Base URL wrong, or the browser blocked the request (CORS or local network access). Settings → Assistant → Test connection tells which.`,
    );
  }
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const code = String(error.code ?? (error.error as { code?: unknown } | undefined)?.code ?? '');
    const type = String(error.type ?? '');
    if (status === 401) {
      // The server's words are left out: some echo the key they were sent.
      return new AssistantError('key_refused', `The endpoint refused the API key (401). Check the API key in Settings → Assistant; it must be a key for ${ctx.origin}.`, 401);
    }
    if (status === 403) {
      return new AssistantError(
        'forbidden',
        `The endpoint refused access (403): the key is valid but may not use this model or project. Check the key’s permissions, or choose another model.`,
        403,
      );
    }
    if (code === 'insufficient_quota' || type === 'insufficient_quota') {
      return new AssistantError('quota', 'The account behind this API key has no quota left (insufficient_quota). Add credit or a plan with the provider, or use another key; waiting will not help.', status);
    }
    if (status === 429) {
      return new AssistantError('rate_limited', `The endpoint is limiting requests (429).${serverSays(error, ctx)}`, 429, parseRetryAfter(error.headers));
    }
    if (status >= 500) {
      return new AssistantError('server', `The model endpoint failed (${status}).${serverSays(error, ctx)}`, status, parseRetryAfter(error.headers));
    }
    const said = serverSays(error, ctx);
    const aboutModel = /model/i.test(said) || code === 'model_not_found';
    if (aboutModel && (status === 404 || /not (found|exist)|does not exist|unknown|no such/i.test(said))) {
      return new AssistantError('model_not_found', `The endpoint has no model named “${ctx.model}” (${status}). Check the Model in Settings → Assistant; Test connection lists the models it has.${said}`, status);
    }
    if (status === 404) {
      return new AssistantError('not_found', `The endpoint answered 404 (not found) at ${ctx.origin}: check the Base URL, which usually ends in /v1.${said}`, 404);
    }
    if (status === 400 && /tool/i.test(said) && /support/i.test(said)) {
      return new AssistantError('tools_unsupported', `The model does not take tools.${said}`, status);
    }
    return new AssistantError('bad_request', `The endpoint refused the request (${status}).${said}`, status);
  }
  return streamError(error, ctx);
}

/** An error raised while a reply streamed in. */
export function classifyStreamError(error: unknown, ctx: ErrorContext): AssistantError {
  if (error instanceof AssistantError) return error;
  if (error instanceof APIUserAbortError) return new AssistantError('aborted', 'Stopped.');
  if (error instanceof APIError && error.status === undefined && !(error instanceof APIConnectionError)) {
    // An error event inside the stream (the server gave up mid-reply).
    const code = String(error.code ?? '');
    if (code === 'insufficient_quota') return classifyRequestError(new APIError(429, error.error, undefined, error.headers), ctx);
    return new AssistantError('server', `The model endpoint reported an error in the middle of its reply.${serverSays(error, ctx)}`);
  }
  if (error instanceof APIError && error.status !== undefined) return classifyRequestError(error, ctx);
  return streamError(error, ctx);
}

function streamError(error: unknown, ctx: ErrorContext): AssistantError {
  if (error instanceof SyntaxError) {
    return new AssistantError('malformed', `The model endpoint sent a reply that is not a valid Chat Completions stream (${ctx.scrub(error.message)}). Check that the Base URL points at an OpenAI-compatible /v1 API.`);
  }
  if (error instanceof Error && error.name === 'AbortError') return new AssistantError('aborted', 'Stopped.');
  const detail = error instanceof Error ? ctx.scrub(error.message) : ctx.scrub(String(error));
  return new AssistantError('cut', `The connection to the model broke off before its reply was complete (${detail}). What arrived is kept; ask again to go on.`);
}
