import { test, expect } from './fixtures';
import { FIRST_RUN } from './person';
import { arrowsTo } from './step-view';

// Step through in the chat, in each engine: arrows from the elements of a list of lists to the
// inner lists, a name and an element sharing one drawn list (layout is where engines differ).

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
    .poll(() => arrowsTo(person, ['list #1', 'list #2', 'list #3', 'dict #4', 'list #5']), { timeout: 10_000 })
    .toEqual({ total: 6, objects: { 'list #1': one, 'list #2': { arrows: 2, marks: 2, onTheObject: true }, 'list #3': one, 'dict #4': one, 'list #5': one } });
});
