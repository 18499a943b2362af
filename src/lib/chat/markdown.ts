import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { said, type Said } from '../i18n/said';

// The assistant's replies are Markdown written by a model that may have read a hostile file:
// they are parsed by marked and sanitized by a DOMPurify of their own, and nothing in them
// loads from the network when shown (remote images would tell a server what was read).

const marked = new Marked({ gfm: true, breaks: false, async: false });
const purify = DOMPurify(window);

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code',
  'em', 'strong', 'del', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'img', 'span',
];
const ALLOWED_ATTR = ['href', 'title', 'alt', 'src', 'align', 'start'];
/** Inline images only: a data URL of a bitmap carries its bytes and asks no server for anything. */
const INLINE_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,/i;

/** Who wrote the Markdown: an image without alt text is named after it. */
export type MarkdownSource = 'assistant' | 'instructions';

/**
 * Markdown as sanitized HTML: no scripts or styles, remote images replaced by a note, links open
 * apart from the app. `tell` puts PyTabs' own words in it (alt texts, the notes) in the reader's language.
 */
export function renderMarkdown(text: string, source: MarkdownSource, tell: (text: Said) => string): string {
  const html = marked.parse(text) as string;
  const fragment = purify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, RETURN_DOM_FRAGMENT: true });
  for (const img of Array.from(fragment.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? '';
    if (INLINE_IMAGE.test(src)) {
      // Markdown's ![](…) gives an empty alt, which would hide the image from a screen reader: it is named as one without.
      if (!img.getAttribute('alt')) img.setAttribute('alt', tell(said(source === 'assistant' ? 'lib2_md_image_assistant' : 'lib2_md_image_instructions')));
      continue;
    }
    const note = document.createElement('span');
    note.className = 'blocked-image';
    note.textContent = tell(said('lib2_md_image_not_loaded', { what: img.getAttribute('alt') || src || said('lib2_md_no_address') }));
    img.replaceWith(note);
  }
  for (const a of Array.from(fragment.querySelectorAll('a'))) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer');
  }
  const box = document.createElement('div');
  box.append(fragment);
  return box.innerHTML;
}
