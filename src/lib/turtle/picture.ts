import type { MimeBundle } from '../worker-api';

/**
 * A turtle screen as the page draws it while a run goes on: the items the worker's turtle
 * (workers/python/pytabs/turtle_picture.py) made, kept up to date by the changes it sends.
 * Coordinates are the canvas's (x right, y down, pixels, the origin at the window's centre).
 * The worker bounds the picture (it deletes the oldest items past its cap), so this one is too.
 */

export const TURTLE_MIME = 'application/vnd.pytabs.turtle+json';

export type TurtleItem =
  | { id: number; kind: 'line'; pts: number[]; color: string; width: number }
  | { id: number; kind: 'poly'; pts: number[]; fill: string; outline: string; width: number }
  | { id: number; kind: 'dot'; x: number; y: number; size: number; color: string }
  | {
      id: number;
      kind: 'text';
      x: number;
      y: number;
      text: string;
      align: 'left' | 'center' | 'right';
      font: [string, number, string];
      color: string;
    };

/** A polygon of a turtle's shape, in canvas coordinates. */
export interface TurtleShapePart {
  pts: number[];
  fill: string;
  outline: string;
  width: number;
}

/** A turtle's own shape where it stands (a compound shape's polygons in `parts`), with the line it is drawing during an animated step. */
export interface TurtleSprite extends TurtleShapePart {
  parts?: TurtleShapePart[];
  trail?: { pts: number[]; color: string; width: number };
}

/** A background picture (bgpic), centred on the screen's origin. */
export interface TurtleImage {
  href: string;
  width: number;
  height: number;
}

/** One batch of a screen's changes, as the worker sends it. */
export interface TurtleChanges {
  screen: string;
  ops: Record<string, unknown>[];
}

/** Reads a batch of changes; null when it is not one (nothing is drawn from it). */
export function parseTurtleChanges(json: string): TurtleChanges | null {
  try {
    const value = JSON.parse(json) as Partial<TurtleChanges> | null;
    if (typeof value?.screen !== 'string' || !Array.isArray(value.ops)) return null;
    return { screen: value.screen, ops: value.ops.filter((op) => typeof op === 'object' && op !== null) };
  } catch {
    return null;
  }
}

/** The screen a picture kept in a reply was drawn on (from its bundle), or null for any other output. */
export function turtleScreenOf(bundle: MimeBundle): string | null {
  const json = bundle[TURTLE_MIME];
  if (json === undefined) return null;
  try {
    const screen = (JSON.parse(json) as { screen?: unknown }).screen;
    return typeof screen === 'string' ? screen : null;
  } catch {
    return null;
  }
}

/** A background picture from the worker: a data URL of an image and its size; anything else is none. */
function imageOf(value: unknown): TurtleImage | null {
  const image = value as Partial<TurtleImage> | null;
  if (typeof image?.href !== 'string' || !image.href.startsWith('data:image/')) return null;
  if (typeof image.width !== 'number' || typeof image.height !== 'number') return null;
  return { href: image.href, width: image.width, height: image.height };
}

const isNumbers = (value: unknown): value is number[] => Array.isArray(value) && value.every((v) => typeof v === 'number');

export class TurtlePicture {
  readonly items = new Map<number, TurtleItem>();
  readonly sprites = new Map<string, TurtleSprite>();
  bg = 'white';
  bgpic: TurtleImage | null = null;
  view: [number, number, number, number] = [-320, -300, 640, 600];
  // internal: CPython's turtle window's own default title, what the program shows until it sets one (screen.title()).
  title = 'Python Turtle Graphics';
  /** Items the worker deleted to stay within its bound (the oldest). */
  dropped = 0;
  /** Whether the run's event loop waits for clicks and keys on this screen (the worker says so with its changes). */
  listening = false;
  /** Counts applied batches, so a view can tell that it has something new to draw. */
  version = 0;

  constructor(readonly screen: string) {}

  apply(changes: TurtleChanges): void {
    for (const op of changes.ops) this.applyOne(op);
    this.version++;
  }

  private applyOne(op: Record<string, unknown>): void {
    switch (op.o) {
      case 'add': {
        const item = op.item as TurtleItem | undefined;
        if (item && typeof item.id === 'number') this.items.set(item.id, item);
        break;
      }
      case 'pts': {
        const item = this.items.get(op.id as number);
        if (item && 'pts' in item && isNumbers(op.add)) item.pts.push(...op.add);
        break;
      }
      case 'set': {
        const item = this.items.get(op.id as number);
        if (item && typeof op.fields === 'object' && op.fields) Object.assign(item, op.fields);
        break;
      }
      case 'del':
        if (isNumbers(op.ids)) for (const id of op.ids) this.items.delete(id);
        if (typeof op.dropped === 'number') this.dropped = op.dropped;
        break;
      case 'clear':
        this.items.clear();
        this.sprites.clear();
        this.dropped = 0;
        break;
      case 'bg':
        if (typeof op.color === 'string') this.bg = op.color;
        break;
      case 'bgpic':
        this.bgpic = imageOf(op.image);
        break;
      case 'view':
        if (isNumbers(op.view) && op.view.length === 4) this.view = op.view as [number, number, number, number];
        break;
      case 'listen':
        this.listening = op.on === true;
        break;
      case 'sprite':
        if (op.sprite) this.sprites.set(String(op.turtle), op.sprite as TurtleSprite);
        else this.sprites.delete(String(op.turtle));
        break;
      case 'all': {
        const all = op.picture as { bg: string; bgpic?: unknown; view: number[]; title: string; items: TurtleItem[]; sprites: Record<string, TurtleSprite>; dropped: number; listening?: boolean };
        this.items.clear();
        for (const item of all.items) this.items.set(item.id, item);
        this.sprites.clear();
        for (const [turtle, sprite] of Object.entries(all.sprites)) this.sprites.set(turtle, sprite);
        this.bg = all.bg;
        this.bgpic = imageOf(all.bgpic);
        if (isNumbers(all.view) && all.view.length === 4) this.view = all.view as [number, number, number, number];
        this.title = all.title;
        this.dropped = all.dropped;
        this.listening = all.listening === true;
        break;
      }
    }
  }

  /**
   * The picture as far as it got, as a reply keeps one: used when a run ended without
   * Python showing it (its worker was ended by Stop where Python cannot be interrupted).
   */
  bundle(): MimeBundle {
    const note = this.dropped ? `, the first ${this.dropped.toLocaleString('en')} items left out` : '';
    return {
      'image/svg+xml': this.svg(),
      // internal: the drawing's repr, the twin of the one pytabs/turtle_picture.py gives a finished drawing: an output's text form, kept as outputs are (the page shows the SVG).
      'text/plain': `<turtle drawing "${this.title}" as far as it got: ${this.items.size} items${note}>`,
      [TURTLE_MIME]: JSON.stringify({ screen: this.screen, title: this.title, dropped: this.dropped }),
    };
  }

  svg(): string {
    const [x, y, w, h] = this.view.map(num);
    const parts = [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="${x} ${y} ${w} ${h}">`,
      `<title>${escapeXml(this.title)}</title>`,
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${escapeXml(this.bg)}"/>`,
    ];
    if (this.bgpic) {
      const { href, width, height } = this.bgpic;
      parts.push(`<image href="${escapeXml(href)}" x="${num(-width / 2)}" y="${num(-height / 2)}" width="${width}" height="${height}"/>`);
    }
    for (const item of this.items.values()) parts.push(svgItem(item));
    parts.push('</svg>');
    return parts.filter(Boolean).join('\n');
  }
}

function svgItem(item: TurtleItem): string {
  switch (item.kind) {
    case 'line':
      if (item.pts.length < 4) return '';
      return `<polyline points="${points(item.pts)}" fill="none" stroke="${escapeXml(item.color)}" stroke-width="${num(item.width)}" stroke-linecap="round" stroke-linejoin="round"/>`;
    case 'poly':
      if (item.pts.length < 6) return '';
      return `<polygon points="${points(item.pts)}" fill="${escapeXml(item.fill || 'none')}" stroke="${escapeXml(item.outline || 'none')}" stroke-width="${num(item.width)}" fill-rule="evenodd"/>`;
    case 'dot':
      return `<circle cx="${num(item.x)}" cy="${num(item.y)}" r="${num(item.size / 2)}" fill="${escapeXml(item.color)}"/>`;
    case 'text': {
      const [family, size, style] = item.font;
      const anchor = { left: 'start', center: 'middle', right: 'end' }[item.align];
      const weight = style.includes('bold') ? ' font-weight="bold"' : '';
      const slant = style.includes('italic') ? ' font-style="italic"' : '';
      return `<text x="${num(item.x)}" y="${num(item.y)}" fill="${escapeXml(item.color)}" font-family="${escapeXml(family)}" font-size="${num((size * 4) / 3)}"${weight}${slant} text-anchor="${anchor}">${escapeXml(item.text)}</text>`;
    }
  }
}

function num(value: number): string {
  const text = value.toFixed(2).replace(/\.?0+$/, '');
  return text === '-0' || text === '' ? '0' : text;
}

function points(pts: number[]): string {
  const pairs: string[] = [];
  for (let i = 0; i + 1 < pts.length; i += 2) pairs.push(`${num(pts[i])},${num(pts[i + 1])}`);
  return pairs.join(' ');
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}
