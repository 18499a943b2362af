import { gunzippedBody } from './gunzip';

/**
 * Whether `response` carries the file that was asked for: a success that is not a host's HTML
 * page standing in for it (a static host without the file may answer with its fallback page,
 * even with 200).
 */
export function isServedFile(response: Response | null | undefined): response is Response {
  return Boolean(response?.ok) && !(response!.headers.get('Content-Type')?.startsWith('text/html') ?? false);
}

/**
 * The text of Pyodide's module script from the response to its gzip copy (0.26 of 1.25 MB),
 * decoded as it streams in; null when the response is no such file. The page (its copy for
 * the workers) and a worker without that copy read it alike.
 */
export async function gunzippedScript(response: Response | null | undefined): Promise<Blob | null> {
  if (!isServedFile(response) || !response.body) return null;
  return new Response(await gunzippedBody(response.body)).blob();
}
