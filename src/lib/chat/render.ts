import DOMPurify from 'dompurify';
import type { MimeBundle } from '../worker-api';
import { said, type Said } from '../i18n/said';

/** How a MIME bundle is shown: markup only ever leaves here sanitized. */
export type Rendering =
  | { kind: 'html'; html: string }
  | { kind: 'image'; src: string; alt: string }
  | { kind: 'text'; text: string };

const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

// A private DOMPurify instance, so the hook below applies to output only.
const purify = DOMPurify(window);
/** The alt text of the sanitize under way: set just before it, which runs synchronously. */
let imageAlt = '';
// Images in output rarely carry alt text; a generic one keeps them announced as images.
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'IMG' && !node.hasAttribute('alt')) node.setAttribute('alt', imageAlt);
});

/**
 * Renderings by bundle, with the alt text they were made with: a reply is drawn again as it runs
 * and when it is stored, with the same bundle objects, and sanitizing a large picture again (a
 * turtle's SVG) costs its frame each time. A change of language makes them again.
 */
const rendered = new WeakMap<MimeBundle, { alt: string; rendering: Rendering }>();

/**
 * Picks the richest form of a bundle, in Jupyter's order. HTML and SVG go through
 * DOMPurify (no scripts, no event handlers, no <style> that could restyle the
 * page); bitmaps become data URLs only when their payload is plain base64. `tell` puts the
 * alt text of an image that has none in the reader's words.
 */
export function renderBundle(bundle: MimeBundle, tell: (text: Said) => string): Rendering {
  const alt = tell(said('lib2_output_image'));
  let kept = rendered.get(bundle);
  if (kept?.alt !== alt) rendered.set(bundle, (kept = { alt, rendering: pick(bundle, alt) }));
  return kept.rendering;
}

function pick(bundle: MimeBundle, imageText: string): Rendering {
  imageAlt = imageText;
  const alt = (bundle['text/plain'] ?? imageText).slice(0, 200);
  if (bundle['text/html'] != null) {
    return { kind: 'html', html: purify.sanitize(bundle['text/html'], { FORBID_TAGS: ['style'] }) };
  }
  if (bundle['image/svg+xml'] != null) {
    const svg = purify.sanitize(bundle['image/svg+xml'], {
      USE_PROFILES: { svg: true, svgFilters: true },
      FORBID_TAGS: ['style'],
    });
    return { kind: 'html', html: svg };
  }
  for (const type of ['image/png', 'image/jpeg', 'image/gif', 'image/webp']) {
    const data = bundle[type];
    if (data != null && BASE64.test(data)) return { kind: 'image', src: `data:${type};base64,${data.replace(/\s/g, '')}`, alt };
  }
  return { kind: 'text', text: bundle['text/plain'] ?? '' };
}
