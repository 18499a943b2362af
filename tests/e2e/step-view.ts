import { expect, type Locator, type Page } from '@playwright/test';
import { FIRST_RUN, reply } from './app';

// What the Chromium suite's step-through tests do and read of the step view, shared by their specs.

export interface Point {
  x: number;
  y: number;
}
export type Box = { x: number; y: number; width: number; height: number };

/** Types `code` in the composer, presses Step through, and gives the step view of reply `seq`, once shown. */
export async function stepThrough(page: Page, code: string, seq = 1): Promise<Locator> {
  await page.getByRole('textbox', { name: 'Message' }).fill(code);
  await page.getByRole('button', { name: 'Step through' }).click();
  const view = reply(page, seq).getByRole('group', { name: 'Step-through' });
  await expect(view).toBeVisible(FIRST_RUN);
  return view;
}

/**
 * The two ends of each arrow drawn over the view, in the page's coordinates. The arrows are
 * decoration, hidden from screen readers (the "→ list #1" words say the same), so they are
 * found by their element; where they start and end is what they mean.
 */
export function arrowEnds(view: Locator): Promise<{ start: Point; end: Point }[]> {
  return view.locator('svg path.arrow').evaluateAll((paths) =>
    paths.map((element) => {
      const path = element as SVGPathElement;
      const layer = path.ownerSVGElement!.getBoundingClientRect();
      const start = path.getPointAtLength(0);
      const end = path.getPointAtLength(path.getTotalLength());
      return { start: { x: layer.left + start.x, y: layer.top + start.y }, end: { x: layer.left + end.x, y: layer.top + end.y } };
    }),
  );
}

/** Whether `p` lies on `box`, give or take a pixel. */
export const inside = (p: Point, box: Box) => p.x >= box.x - 1 && p.x <= box.x + box.width + 1 && p.y >= box.y - 1 && p.y <= box.y + box.height + 1;
