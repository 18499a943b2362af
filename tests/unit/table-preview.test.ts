import { beforeAll, describe, expect, it } from 'vitest';
import type { PyodideInterface } from 'pyodide';
import { loadRuntime } from './load-runtime';

// A DataFrame's preview names its shape, columns and dtypes: the variables panel shows it and
// the assistant's context sends it. pandas cannot be loaded on this machine (no reachable
// package index, see FACTS), so the table here is a plain class with the attributes the
// preview reads (shape, columns, dtypes), iterated as pandas' Index and Series iterate.
let pyodide: PyodideInterface;

const preview = (setup: string, expr: string) => pyodide.runPython(`${setup}\nfrom pytabs.display import preview\npreview(${expr})`, { globals: pyodide.toPy({}) }) as string;

const TABLE = `
class Dtype:
    def __init__(self, name): self.name = name
    def __str__(self): return self.name
class Table:
    def __init__(self, rows, cols):
        self.shape = (rows, len(cols))
        self.columns = [c for c, _ in cols]
        self.dtypes = [Dtype(d) for _, d in cols]
    def __repr__(self): return 'a long table repr'
`;

beforeAll(async () => {
  pyodide = await loadRuntime();
});

describe('table previews', () => {
  it('names the shape, columns and dtypes of a table', () => {
    expect(preview(TABLE, "Table(3, [('tag', 'object'), ('n', 'int64')])")).toBe('3 rows × 2 columns: tag (object), n (int64)');
  });

  it('bounds a wide table and says how many columns it left out', () => {
    const text = preview(TABLE, "Table(10, [(f'column_{i}', 'float64') for i in range(100)])");
    expect(text.length).toBeLessThanOrEqual(400);
    expect(text).toMatch(/^10 rows × 100 columns: column_0 \(float64\), column_1 \(float64\), .*, … \d+ more$/);
  });

  it('leaves other values as they were, also ones with a shape but no columns', () => {
    expect(preview('class Grid:\n    shape = (2, 2)\n    def __repr__(self): return "Grid()"', 'Grid()')).toBe('Grid()');
    expect(preview('', '[1, 2]')).toBe('[1, 2]');
  });
});
