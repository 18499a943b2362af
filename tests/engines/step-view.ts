// What the engines' step-through tests read of the step view's drawing, shared by their specs.

/**
 * The arrows of the first step-through in the page: how many, how many start on each of the
 * <module> frame's "→ list #1" marks, and whether all end on list #1's box. Arrows are
 * decoration hidden from screen readers, found by their element; the rest by role and name.
 */
export function ARROWS(): { arrows: number; fromRefs: number[]; onTheList: boolean } {
  const view = document.querySelector('[role="group"][aria-label="Step-through"]')!;
  const frame = view.querySelector('[role="group"][aria-label="<module>"]')!;
  const refs = [...frame.querySelectorAll('button')].filter((b) => b.textContent?.trim() === '→ list #1').map((b) => b.getBoundingClientRect());
  const list = view.querySelector('[role="group"][aria-label="list #1"]')!.getBoundingClientRect();
  const within = (x: number, y: number, r: DOMRect) => x >= r.left - 1 && x <= r.right + 1 && y >= r.top - 1 && y <= r.bottom + 1;
  const ends = [...view.querySelectorAll<SVGPathElement>('svg path.arrow')].map((path) => {
    const layer = path.ownerSVGElement!.getBoundingClientRect();
    const a = path.getPointAtLength(0);
    const b = path.getPointAtLength(path.getTotalLength());
    return { sx: layer.left + a.x, sy: layer.top + a.y, ex: layer.left + b.x, ey: layer.top + b.y };
  });
  return {
    arrows: ends.length,
    fromRefs: refs.map((r) => ends.filter((e) => within(e.sx, e.sy, r)).length),
    onTheList: ends.every((e) => within(e.ex, e.ey, list)),
  };
}
