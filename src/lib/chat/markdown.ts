import DOMPurify from 'dompurify';
import { Marked } from 'marked';

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

/** Markdown as sanitized HTML: no scripts or styles, remote images replaced by a note, links open apart from the app. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  const fragment = purify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, RETURN_DOM_FRAGMENT: true });
  for (const img of Array.from(fragment.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? '';
    if (INLINE_IMAGE.test(src)) {
      if (!img.hasAttribute('alt')) img.setAttribute('alt', 'Image from the assistant');
      continue;
    }
    const note = document.createElement('span');
    note.className = 'blocked-image';
    note.textContent = `[image not loaded: ${img.getAttribute('alt') || src || 'no address'}]`;
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
