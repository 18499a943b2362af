/** Servers the Settings can fill in; `custom` leaves the Base URL to the person. */
export type PresetId = 'openai' | 'ollama' | 'lmstudio' | 'llamacpp' | 'custom';

export interface EndpointPreset {
  id: PresetId;
  label: string;
  baseUrl: string;
  /** Whether the server wants a key (local servers do not, unless set up to). */
  needsKey: boolean;
}

export const PRESETS: readonly EndpointPreset[] = [
  { id: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', needsKey: true },
  { id: 'ollama', label: 'Ollama', baseUrl: 'http://localhost:11434/v1', needsKey: false },
  { id: 'lmstudio', label: 'LM Studio', baseUrl: 'http://localhost:1234/v1', needsKey: false },
  { id: 'llamacpp', label: 'llama.cpp server', baseUrl: 'http://localhost:8080/v1', needsKey: false },
  { id: 'custom', label: 'Custom', baseUrl: '', needsKey: false },
];

/** The preset a base URL belongs to (by host and port), or `custom`. */
export function presetFor(baseUrl: string): PresetId {
  const url = parseUrl(baseUrl);
  if (!url) return 'custom';
  for (const preset of PRESETS) {
    const known = parseUrl(preset.baseUrl);
    if (known && known.host === url.host) return preset.id;
  }
  if (isLoopback(url.hostname)) {
    const byPort: Record<string, PresetId> = { '11434': 'ollama', '1234': 'lmstudio', '8080': 'llamacpp' };
    return byPort[url.port] ?? 'custom';
  }
  return 'custom';
}

export function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** The origin requests (and the key) may go to; null when the base URL is not a URL. */
export function originOf(baseUrl: string): string | null {
  return parseUrl(baseUrl)?.origin ?? null;
}

export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\./.test(h);
}

/** Loopback or a private-range address: what Chrome's Local Network Access guards. */
export function isLocalNetwork(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return isLoopback(h) || /^10\./.test(h) || /^192\.168\./.test(h) || /^172\.(1[6-9]|2\d|3[01])\./.test(h) || /^f[cd]/i.test(h) || h.endsWith('.local');
}

/**
 * What to change so that a browser page may call the server: each server's own CORS switch
 * (facts from their documentation), and Chrome's Local Network Access when a page that is not
 * itself local calls a local address.
 */
export function corsFix(baseUrl: string, pageOrigin: string | undefined): string {
  const url = parseUrl(baseUrl);
  const origin = pageOrigin ?? 'this page’s origin';
  const fixes: string[] = [];
  switch (presetFor(baseUrl)) {
    case 'ollama':
      fixes.push(`Ollama accepts pages on localhost by default; for others start it with OLLAMA_ORIGINS set, e.g. OLLAMA_ORIGINS=${origin} ollama serve.`);
      break;
    case 'lmstudio':
      fixes.push('Switch on CORS in LM Studio: lms server start --cors (or Developer → Settings → Enable CORS).');
      break;
    case 'llamacpp':
      fixes.push(`llama-server answers browser pages by default; if it was started with --cors-origins, add ${origin} to it.`);
      break;
    case 'openai':
      fixes.push('api.openai.com accepts browser calls; a proxy, firewall or browser extension in between may be blocking them.');
      break;
    default:
      fixes.push(
        `The server must answer CORS for ${origin}: reply to the OPTIONS preflight with Access-Control-Allow-Origin and allow the requested headers (Authorization, Content-Type and the x-stainless-* headers the client sends).`,
      );
  }
  const page = pageOrigin ? parseUrl(pageOrigin) : null;
  if (url && isLocalNetwork(url.hostname) && !(page && isLocalNetwork(page.hostname))) {
    fixes.push('Chrome asks before a website reaches your local network (Local Network Access): allow it in the prompt or in this site’s settings.');
  }
  return fixes.join(' ');
}

/** Why a page could not reach an address at all, beyond "is the server running". */
export function reachFix(baseUrl: string, pageOrigin: string | undefined): string {
  const url = parseUrl(baseUrl);
  const page = pageOrigin ? parseUrl(pageOrigin) : null;
  const fixes = ['Check that the server is running and that the Base URL (host, port, /v1) is right.'];
  if (url && page?.protocol === 'https:' && url.protocol === 'http:' && !isLoopback(url.hostname)) {
    fixes.push('This page is served over https, so the browser refuses plain http:// addresses other than localhost.');
  }
  if (url && isLocalNetwork(url.hostname) && !(page && isLocalNetwork(page.hostname))) {
    fixes.push('If it is running, Chrome may be keeping this site off your local network (Local Network Access): allow it in the prompt or in this site’s settings.');
  }
  return fixes.join(' ');
}
