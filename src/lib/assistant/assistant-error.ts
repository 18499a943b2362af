import { SaidError, type Said } from '../i18n/said';

export type AssistantErrorKind =
  /** 401 */
  | 'key_refused'
  /** 403 */
  | 'forbidden'
  /** 429 insufficient_quota: the account has no credit; waiting does not help. */
  | 'quota'
  | 'rate_limited'
  | 'server'
  | 'model_not_found'
  /** 404 for the path itself: the Base URL is wrong. */
  | 'not_found'
  /** The server refused the request's tools (a model without tool support). */
  | 'tools_unsupported'
  | 'bad_request'
  /** No answer at all (down, wrong address, CORS: the browser does not say which). */
  | 'network'
  | 'timeout'
  | 'origin_refused'
  /** The stream broke off before the model finished. */
  | 'cut'
  /** The stream did not parse as Chat Completions chunks. */
  | 'malformed'
  /** The model in this browser could not load or answer (its message says why). */
  | 'local_model'
  | 'aborted';

/**
 * A failure of a request to the model, said for the person (never holding the key); its
 * message is the English, for logs. A SaidError, so errorText tells it in the reader's language.
 */
export class AssistantError extends SaidError {
  constructor(
    readonly kind: AssistantErrorKind,
    said: Said,
    readonly status?: number,
    /** From `retry-after-ms` / `retry-after` when the server sent (and CORS exposed) them. */
    readonly retryAfterMs?: number,
  ) {
    super(said);
    this.name = 'AssistantError';
  }

  /** Worth asking again (at most twice, see retry.ts). */
  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'server';
  }
}
