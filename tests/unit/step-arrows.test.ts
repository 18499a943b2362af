import { describe, it, expect } from 'vitest';
import { arrowPath } from '../../src/ui/step-arrows';

// The arrows' geometry, from boxes as the page lays them out: where each curve starts and ends.

/** The four points of a path `M x y C x y, x y, x y`. */
function points(d: string): [number, number][] {
  const numbers = d.match(/-?\d+(\.\d+)?/g)!.map(Number);
  return [0, 2, 4, 6].map((i) => [numbers[i], numbers[i + 1]]);
}

const name = { left: 100, top: 40, right: 160, bottom: 60 };

describe('arrowPath', () => {
  it('runs from a name to the facing side of an object beside it, entering by its title', () => {
    const [start, , , end] = points(arrowPath(name, { left: 300, top: 20, right: 420, bottom: 120 }, 1, 500, 300));
    expect(start).toEqual([160, 50]);
    expect(end).toEqual([300, 32]);
  });

  it('runs the other way when the object is at the left, as in a right-to-left page', () => {
    const [start, , , end] = points(arrowPath(name, { left: 0, top: 20, right: 80, bottom: 120 }, -1, 500, 300));
    expect(start).toEqual([100, 50]);
    expect(end).toEqual([80, 32]);
  });

  it('leaves by the inline end and enters the top of an object stacked below (a phone), or the bottom of one above', () => {
    const below = { left: 10, top: 200, right: 370, bottom: 280 };
    expect(points(arrowPath(name, below, 1, 380, 300))).toEqual([
      [160, 50],
      [184, 50],
      [184, 176],
      [184, 200],
    ]);
    const [rtlStart, , , rtlEnd] = points(arrowPath(name, below, -1, 380, 300));
    expect(rtlStart).toEqual([100, 50]);
    expect(rtlEnd).toEqual([76, 200]);
    const above = { left: 10, top: 0, right: 370, bottom: 30 };
    expect(points(arrowPath(name, above, 1, 380, 300)).at(-1)).toEqual([184, 30]);
  });

  it('keeps every point inside its layer, even for an object that holds itself', () => {
    const around = { left: 0, top: 5, right: 200, bottom: 100 };
    for (const [x, y] of points(arrowPath({ left: 170, top: 10, right: 200, bottom: 30 }, around, 1, 200, 100))) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(200);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(100);
    }
  });
});
