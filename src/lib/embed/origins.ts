/**
 * The origins whose pages may talk to an embed: the app's own, and those the deployer lists in
 * `embed-origins.json` beside index.html (`{ "origins": ["https://course.example.org"] }`).
 * Read fresh on each embed's start (`no-cache`, and the service worker keeps no copy), so a
 * change to the file applies to the next page load. A missing or malformed file allows no other
 * origin, and the malformed entry is reported.
 */
export const ORIGINS_FILE = 'embed-origins.json';

export interface AllowedOrigins {
  origins: ReadonlySet<string>;
  /** Why the file (or an entry of it) was not used, for the console. */
  problems: string[];
}

/** The entries of the file's JSON that are origins exactly (`scheme://host[:port]`, no path, no wildcard). */
// internal: problems with the deployer's file go to the console, for whoever deploys.
export function parseOrigins(json: unknown): AllowedOrigins {
  const problems: string[] = [];
  const list = typeof json === 'object' && json !== null && Array.isArray((json as { origins?: unknown }).origins) ? (json as { origins: unknown[] }).origins : null;
  if (!list) return { origins: new Set(), problems: [`${ORIGINS_FILE} must be {"origins": ["https://…"]}.`] };
  const origins = new Set<string>();
  for (const entry of list) {
    let origin: string | null = null;
    try {
      if (typeof entry === 'string') origin = new URL(entry).origin;
    } catch {
      origin = null;
    }
    if (origin && origin !== 'null' && origin === entry) origins.add(origin);
    else problems.push(`${ORIGINS_FILE}: ${JSON.stringify(entry).slice(0, 80)} is not an origin like "https://example.org" (no path, no "*").`);
  }
  return { origins, problems };
}

/** The allowed origins for an app served at `appUrl`: its own origin, and the file's. */
// internal: problems with the deployer's file go to the console, for whoever deploys.
export async function loadAllowedOrigins(appUrl: string): Promise<AllowedOrigins> {
  const own = new URL(appUrl).origin;
  let read: AllowedOrigins;
  try {
    const response = await fetch(new URL(ORIGINS_FILE, appUrl), { cache: 'no-cache', credentials: 'same-origin' });
    read = response.ok ? parseOrigins(await response.json()) : { origins: new Set(), problems: response.status === 404 ? [] : [`${ORIGINS_FILE}: HTTP ${response.status}.`] };
  } catch (error) {
    read = { origins: new Set(), problems: [`${ORIGINS_FILE} could not be read: ${(error as Error).message}`] };
  }
  return { origins: new Set([own, ...read.origins]), problems: read.problems };
}
