import { said, type Said, type SaidValue } from '../i18n/said';

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
export function corsFix(baseUrl: string, pageOrigin: string | undefined): Said {
  const url = parseUrl(baseUrl);
  const origin: SaidValue = pageOrigin ?? said('chat_fix_this_origin');
  const fixes: Said[] = [];
  switch (presetFor(baseUrl)) {
    case 'ollama':
      fixes.push(said('chat_fix_cors_ollama', { origin }));
      break;
    case 'lmstudio':
      fixes.push(said('chat_fix_cors_lmstudio'));
      break;
    case 'llamacpp':
      fixes.push(said('chat_fix_cors_llamacpp', { origin }));
      break;
    case 'openai':
      fixes.push(said('chat_fix_cors_openai'));
      break;
    default:
      fixes.push(said('chat_fix_cors_custom', { origin }));
  }
  const page = pageOrigin ? parseUrl(pageOrigin) : null;
  if (url && isLocalNetwork(url.hostname) && !(page && isLocalNetwork(page.hostname))) fixes.push(said('chat_fix_lna'));
  return sentences(fixes);
}

/** Sentences one after the other, as one said text. */
function sentences(parts: Said[]): Said {
  return parts.slice(1).reduce((text, next) => said('chat_sentences', { first: text, then: next }), parts[0]);
}

/** Why a page could not reach an address at all, beyond "is the server running". */
export function reachFix(baseUrl: string, pageOrigin: string | undefined): Said {
  const url = parseUrl(baseUrl);
  const page = pageOrigin ? parseUrl(pageOrigin) : null;
  const fixes: Said[] = [said('chat_fix_reach')];
  if (url && page?.protocol === 'https:' && url.protocol === 'http:' && !isLoopback(url.hostname)) fixes.push(said('chat_fix_https'));
  if (url && isLocalNetwork(url.hostname) && !(page && isLocalNetwork(page.hostname))) fixes.push(said('chat_fix_reach_lna'));
  return sentences(fixes);
}
