import { test, expect } from './fixtures';
import { FIRST_RUN } from './person';

// Step through in the chat, in each engine: arrows from the elements of a list of lists to the
// inner lists, a name and an element sharing one drawn list (layout is where engines differ).

/**
 * For each object named in `to`: how many marks in the step view refer to it, how many arrows
 * start on those marks, and whether all of those end on the object's box. Arrows are decoration
 * hidden from screen readers, found by their element; the rest by role and name. Run in the page.
 */
function ARROWS_TO(to: string[]): { total: number; objects: Record<string, { marks: number; arrows: number; onTheObject: boolean }> } {
  const view = document.querySelector('[role="group"][aria-label="Step-through"]')!;
  const within = (x: number, y: number, r: DOMRect) => x >= r.left - 1 && x <= r.right + 1 && y >= r.top - 1 && y <= r.bottom + 1;
  const ends = [...view.querySelectorAll<SVGPathElement>('svg path.arrow')].map((path) => {
    const layer = path.ownerSVGElement!.getBoundingClientRect();
    const a = path.getPointAtLength(0);
    const b = path.getPointAtLength(path.getTotalLength());
    return { sx: layer.left + a.x, sy: layer.top + a.y, ex: layer.left + b.x, ey: layer.top + b.y };
  });
  const objects: Record<string, { marks: number; arrows: number; onTheObject: boolean }> = {};
  for (const name of to) {
    const box = view.querySelector(`[role="group"][aria-label="${CSS.escape(name)}"]`)!.getBoundingClientRect();
    const marks = [...view.querySelectorAll('button')].filter((b) => b.textContent?.trim() === `→ ${name}`).map((b) => b.getBoundingClientRect());
    const from = ends.filter((e) => marks.some((r) => within(e.sx, e.sy, r)));
    objects[name] = { marks: marks.length, arrows: from.length, onTheObject: from.every((e) => within(e.ex, e.ey, box)) };
  }
  return { total: ends.length, objects };
}

test('Step through a list of lists and a dict holding a list: an arrow from each element and value to its inner object, row and grid[0] to one list', async ({ person, host }) => {
  await person.open(host.url);
  await person.fill({ role: 'textbox', name: 'Message' }, "grid = [[1, 2], [3, 4]]\nrow = grid[0]\nbook = {'pages': [10, 20]}\ndone = True");
  await person.click({ role: 'button', name: 'Step through' });
  const view = { role: 'group', name: 'Step-through', within: person.reply(1) };
  await person.find(view, { timeout: FIRST_RUN });
  await person.click({ role: 'button', name: 'Last', within: view });
  expect(await person.count({ role: 'group', name: 'list #2', within: view })).toBe(1);
  expect(await person.count({ role: 'button', name: '→ list #2', within: { role: 'group', name: '<module>', within: view } })).toBe(1);
  expect(await person.count({ role: 'button', name: '→ list #2', within: { role: 'group', name: 'list #1', within: view } })).toBe(1);
  expect(await person.count({ role: 'button', name: '→ list #5', within: { role: 'group', name: 'dict #4', within: view } })).toBe(1);

  const one = { arrows: 1, marks: 1, onTheObject: true };
  await expect
    .poll(() => person.page.evaluate(ARROWS_TO, ['list #1', 'list #2', 'list #3', 'dict #4', 'list #5']), { timeout: 10_000 })
    .toEqual({ total: 6, objects: { 'list #1': one, 'list #2': { arrows: 2, marks: 2, onTheObject: true }, 'list #3': one, 'dict #4': one, 'list #5': one } });
});
