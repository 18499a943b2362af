import OpenAI from 'openai';
import type { EndpointConnection } from './endpoint';

/** The client is given this instead of a key; the guarded fetch drops it and adds the real one. */
const KEY_PLACEHOLDER = 'added-by-pytabs-guarded-fetch';

/**
 * The official `openai` package in browser mode talks to any OpenAI-compatible server: it reads
 * the SSE stream into typed chunks, turns HTTP failures into typed errors (status, headers, the
 * server's error code) and aborts with a signal, so no SSE parsing of ours. Its own retries are off
 * (the round's retry policy is in retry.ts), its logging too (nothing of a request reaches a log),
 * and it sends through the connection's guarded fetch only. It adds `x-stainless-*` headers to every
 * request, so a server must answer the CORS preflight for them (reflecting the requested headers).
 */
export function createClient(connection: EndpointConnection): OpenAI {
  return new OpenAI({
    baseURL: connection.baseUrl,
    apiKey: KEY_PLACEHOLDER,
    adminAPIKey: null,
    organization: null,
    project: null,
    dangerouslyAllowBrowser: true,
    fetch: connection.fetch,
    maxRetries: 0,
    logLevel: 'off',
  });
}
