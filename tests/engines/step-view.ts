// What the engines' step-through tests read of the step view's drawing, shared by their specs:
// one reader run in the page returns the boxes and the arrows' ends as they are drawn, and the
// checks are made here, in Node.
import type { Person } from './person';

/** The accessible names the drawing is found by, in the language shown. */
export interface StepNames {
  view: string;
  frame: string;
  list: string;
  ref: string;
}

export const ENGLISH_STEP_NAMES: StepNames = { view: 'Step-through', frame: '<module>', list: 'list #1', ref: '→ list #1' };

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

interface Drawing {
  /** Each arrow's start and end, in the page's coordinates. */
  ends: { sx: number; sy: number; ex: number; ey: number }[];
  /** Each object named: its box, and the marks that point to it (buttons "→ name" anywhere in the view). */
  objects: Record<string, { box: Box; marks: Box[] }>;
  /** The frame named: its box, and its own marks of `ref`. */
  frame: { box: Box; refs: Box[] } | null;
}

/**
 * The first step-through in the page as drawn. Arrows are decoration hidden from screen
 * readers, found by their element; the rest by role and name. Run in the page: self-contained,
 * it takes the names as its argument.
 */
function DRAWING({ view: viewName, objects: names, frame: frameName, ref }: { view: string; objects: string[]; frame?: string; ref?: string }): Drawing {
  const box = (el: Element): Box => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
  };
  const group = (within: ParentNode, name: string) => within.querySelector(`[role="group"][aria-label="${CSS.escape(name)}"]`)!;
  const marks = (within: Element, text: string) => [...within.querySelectorAll('button')].filter((b) => b.textContent?.trim() === text).map(box);
  const view = group(document, viewName);
  const ends = [...view.querySelectorAll<SVGPathElement>('svg path.arrow')].map((path) => {
    const layer = path.ownerSVGElement!.getBoundingClientRect();
    const a = path.getPointAtLength(0);
    const b = path.getPointAtLength(path.getTotalLength());
    return { sx: layer.left + a.x, sy: layer.top + a.y, ex: layer.left + b.x, ey: layer.top + b.y };
  });
  const objects: Drawing['objects'] = {};
  for (const name of names) objects[name] = { box: box(group(view, name)), marks: marks(view, `→ ${name}`) };
  const frame = frameName ? group(view, frameName) : null;
  return { ends, objects, frame: frame ? { box: box(frame), refs: marks(frame, ref ?? '') } : null };
}

/** A point on a box, give or take a pixel. */
const on = (x: number, y: number, r: Box) => x >= r.left - 1 && x <= r.right + 1 && y >= r.top - 1 && y <= r.bottom + 1;

/**
 * The arrows to the list of `names`: how many, how many start on each of the frame's references
 * to the list, whether all end on the list's box, whether each runs right to left, and whether
 * the list lies left of the frame.
 */
export async function arrows(person: Person, names: StepNames): Promise<{ arrows: number; fromRefs: number[]; onTheList: boolean; leftward: boolean; listLeftOfFrame: boolean }> {
  const drawn = await person.page.evaluate(DRAWING, { view: names.view, objects: [names.list], frame: names.frame, ref: names.ref });
  const list = drawn.objects[names.list].box;
  const frame = drawn.frame!;
  return {
    arrows: drawn.ends.length,
    fromRefs: frame.refs.map((r) => drawn.ends.filter((e) => on(e.sx, e.sy, r)).length),
    onTheList: drawn.ends.every((e) => on(e.ex, e.ey, list)),
    leftward: drawn.ends.every((e) => e.ex < e.sx),
    listLeftOfFrame: list.right < frame.box.left,
  };
}

/**
 * For each object named: how many marks point to it, how many arrows start on those marks, and
 * whether all of those end on the object's box; with the arrows' total.
 */
export async function arrowsTo(person: Person, names: string[]): Promise<{ total: number; objects: Record<string, { marks: number; arrows: number; onTheObject: boolean }> }> {
  const drawn = await person.page.evaluate(DRAWING, { view: ENGLISH_STEP_NAMES.view, objects: names });
  const objects: Record<string, { marks: number; arrows: number; onTheObject: boolean }> = {};
  for (const [name, { box, marks }] of Object.entries(drawn.objects)) {
    const from = drawn.ends.filter((e) => marks.some((r) => on(e.sx, e.sy, r)));
    objects[name] = { marks: marks.length, arrows: from.length, onTheObject: from.every((e) => on(e.ex, e.ey, box)) };
  }
  return { total: drawn.ends.length, objects };
}
