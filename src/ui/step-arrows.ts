/**
 * The arrows of a step-through's heap view, Python Tutor's way: one from every name and element
 * that refers to an object to that object. Hand-written: it is a few boxes and one curve each,
 * measured from the laid-out page, so it follows whatever the layout is (side by side, stacked
 * on a phone, mirrored right to left).
 */

/** A box in the arrows' layer's coordinates. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** One arrow: the object it points to, and its SVG path. */
export interface Arrow {
  ref: number;
  d: string;
}

/** How far a curve runs straight out of its start and into its end, in px. */
const BEND = 24;
/** Where arrows enter an object: this far from its corner, by its name. */
const INTO = 12;

const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), Math.max(low, high));

/**
 * The path from a reference's box to its object's box, inside a layer `width` × `height` (no
 * point leaves it). `end` is 1 where the inline end is on the right (left to right), -1 where
 * it is on the left (right to left). An object beside the reference is entered by its facing
 * side, by its name; one above or below by its top or bottom, near where the arrow leaves.
 */
export function arrowPath(from: Box, to: Box, end: 1 | -1, width: number, height: number): string {
  const x = (v: number) => clamp(v, 0, width);
  const y = (v: number) => clamp(v, 0, height);
  const midY = (from.top + from.bottom) / 2;
  let points: [number, number][];
  if (to.left >= from.right || to.right <= from.left) {
    const toward = to.left >= from.right ? 1 : -1;
    const sx = toward > 0 ? from.right : from.left;
    const ex = toward > 0 ? to.left : to.right;
    const ey = to.top + Math.min(INTO, (to.bottom - to.top) / 2);
    const bend = Math.max(BEND, Math.abs(ex - sx) / 2) * toward;
    points = [
      [sx, midY],
      [sx + bend, midY],
      [ex - bend, ey],
      [ex, ey],
    ];
  } else {
    const sx = end > 0 ? from.right : from.left;
    const ex = clamp(sx + end * BEND, to.left + INTO, to.right - INTO);
    // Above the reference: into the object's bottom; below it, or around it (an object holding itself): into its top.
    const above = to.bottom <= from.top;
    const ey = above ? to.bottom : to.top;
    points = [
      [sx, midY],
      [sx + end * BEND, midY],
      [ex, above ? ey + BEND : ey - BEND],
      [ex, ey],
    ];
  }
  const [start, c1, c2, stop] = points.map(([px, py]) => `${round(x(px))} ${round(y(py))}`);
  return `M ${start} C ${c1}, ${c2}, ${stop}`;
}

const round = (v: number) => Math.round(v * 10) / 10;

function boxOf(element: Element, origin: DOMRect): Box {
  const r = element.getBoundingClientRect();
  return { left: r.left - origin.left, top: r.top - origin.top, right: r.right - origin.left, bottom: r.bottom - origin.top };
}

/**
 * The arrows of `layer` as it is laid out now: from each element marked `data-ref` to the
 * element marked `data-object` with the same number. A reference whose object is not drawn
 * (past the object limit) or that is not laid out gets none.
 */
export function measureArrows(layer: HTMLElement): Arrow[] {
  const origin = layer.getBoundingClientRect();
  if (!origin.width) return [];
  const end = getComputedStyle(layer).direction === 'rtl' ? -1 : 1;
  const objects = new Map<string, Box>();
  for (const element of layer.querySelectorAll<HTMLElement>('[data-object]')) objects.set(element.dataset.object!, boxOf(element, origin));
  const arrows: Arrow[] = [];
  for (const element of layer.querySelectorAll<HTMLElement>('[data-ref]')) {
    const to = objects.get(element.dataset.ref!);
    if (!to || !element.getClientRects().length) continue;
    arrows.push({ ref: Number(element.dataset.ref), d: arrowPath(boxOf(element, origin), to, end, origin.width, origin.height) });
  }
  return arrows;
}
