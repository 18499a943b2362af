import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { OriginRefusedError } from './guarded-fetch';
import { AssistantError } from './assistant-error';
import { said, type Said } from '../i18n/said';

export interface ErrorContext {
  origin: string;
  model: string;
  scrub: (text: string) => string;
}

/** The server's own words, scrubbed and short, as they stand in a message ('' when it said none). */
function serverSays(error: APIError, ctx: ErrorContext): Said | '' {
  const clean = serverText(error, ctx);
  return clean ? said('chat_err_server_said', { text: clean }) : '';
}

function serverText(error: APIError, ctx: ErrorContext): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : '';
  const clean = ctx.scrub(text).replace(/\s+/g, ' ').trim();
  return clean.length > 300 ? clean.slice(0, 299) + '…' : clean;
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
  if (error instanceof APIUserAbortError) return new AssistantError('aborted', said('chat_err_stopped'));
  if (error instanceof APIConnectionTimeoutError) {
    return new AssistantError('timeout', said('chat_err_timeout', { origin: ctx.origin }));
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof OriginRefusedError) return new AssistantError('origin_refused', said('chat_err_origin_refused', { refused: cause.refused, allowed: cause.allowed }));
    // The model in this browser's own failures, already in the person's words (local-fetch.ts).
    if (cause instanceof AssistantError) return cause;
    return new AssistantError('network', said('chat_err_network', { origin: ctx.origin }));
  }
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const code = String(error.code ?? (error.error as { code?: unknown } | undefined)?.code ?? '');
    const type = String(error.type ?? '');
    if (status === 401) {
      // The server's words are left out: some echo the key they were sent.
      return new AssistantError('key_refused', said('chat_err_key_refused', { origin: ctx.origin }), 401);
    }
    if (status === 403) {
      return new AssistantError('forbidden', said('chat_err_forbidden'), 403);
    }
    if (code === 'insufficient_quota' || type === 'insufficient_quota') {
      return new AssistantError('quota', said('chat_err_quota'), status);
    }
    if (status === 429) {
      return new AssistantError('rate_limited', said('chat_err_rate_limited', { server: serverSays(error, ctx) }), 429, parseRetryAfter(error.headers));
    }
    if (status >= 500) {
      return new AssistantError('server', said('chat_err_server', { status, server: serverSays(error, ctx) }), status, parseRetryAfter(error.headers));
    }
    const text = serverText(error, ctx);
    const server = serverSays(error, ctx);
    const aboutModel = /model/i.test(text) || code === 'model_not_found';
    if (aboutModel && (status === 404 || /not (found|exist)|does not exist|unknown|no such/i.test(text))) {
      return new AssistantError('model_not_found', said('chat_err_model_not_found', { model: ctx.model, status, server }), status);
    }
    if (status === 404) {
      return new AssistantError('not_found', said('chat_err_not_found', { origin: ctx.origin, server }), 404);
    }
    if (status === 400 && /tool/i.test(text) && /support/i.test(text)) {
      return new AssistantError('tools_unsupported', said('chat_err_tools_unsupported', { server }), status);
    }
    return new AssistantError('bad_request', said('chat_err_bad_request', { status, server }), status);
  }
  return streamError(error, ctx);
}

/** An error raised while a reply streamed in. */
export function classifyStreamError(error: unknown, ctx: ErrorContext): AssistantError {
  if (error instanceof AssistantError) return error;
  if (error instanceof APIUserAbortError) return new AssistantError('aborted', said('chat_err_stopped'));
  if (error instanceof APIError && error.status === undefined && !(error instanceof APIConnectionError)) {
    // An error event inside the stream (the server gave up mid-reply).
    const code = String(error.code ?? '');
    if (code === 'insufficient_quota') return classifyRequestError(new APIError(429, error.error, undefined, error.headers), ctx);
    return new AssistantError('server', said('chat_err_mid_reply', { server: serverSays(error, ctx) }));
  }
  if (error instanceof APIError && error.status !== undefined) return classifyRequestError(error, ctx);
  return streamError(error, ctx);
}

function streamError(error: unknown, ctx: ErrorContext): AssistantError {
  if (error instanceof SyntaxError) {
    return new AssistantError('malformed', said('chat_err_malformed', { detail: ctx.scrub(error.message) }));
  }
  if (error instanceof Error && error.name === 'AbortError') return new AssistantError('aborted', said('chat_err_stopped'));
  const detail = error instanceof Error ? ctx.scrub(error.message) : ctx.scrub(String(error));
  return new AssistantError('cut', said('chat_err_cut', { detail }));
}
