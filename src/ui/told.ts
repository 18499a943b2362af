import type { Text } from '../lib/i18n/text';
import { tell } from './i18n.svelte';

/** A kept text in the language shown: a person's words (or an older English one) as they are, a said one in words, followed as `m` is. */
export function told(text: Text): string {
  return typeof text === 'string' ? text : tell(text);
}
