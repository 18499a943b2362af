// What the engines' step-through tests read of the step view's drawing, shared by their specs.

/** The accessible names the drawing is found by, in the language shown. */
export interface StepNames {
  view: string;
  frame: string;
  list: string;
  ref: string;
}

export const ENGLISH_STEP_NAMES: StepNames = { view: 'Step-through', frame: '<module>', list: 'list #1', ref: '→ list #1' };

/**
 * The arrows of the first step-through in the page: how many, how many start on each of the
 * frame's references to the list, whether all end on the list's box, whether each runs right to
 * left, and whether the list lies left of the frame. Arrows are decoration hidden from screen
 * readers, found by their element; the rest by role and name. Run in the page: it takes its
 * names as its argument.
 */
export function ARROWS(names: StepNames): { arrows: number; fromRefs: number[]; onTheList: boolean; leftward: boolean; listLeftOfFrame: boolean } {
  const group = (within: ParentNode, name: string) => within.querySelector(`[role="group"][aria-label="${CSS.escape(name)}"]`)!;
  const view = group(document, names.view);
  const frame = group(view, names.frame);
  const refs = [...frame.querySelectorAll('button')].filter((b) => b.textContent?.trim() === names.ref).map((b) => b.getBoundingClientRect());
  const list = group(view, names.list).getBoundingClientRect();
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
    leftward: ends.every((e) => e.ex < e.sx),
    listLeftOfFrame: list.right < frame.getBoundingClientRect().left,
  };
}
