import { expect, type Locator, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

/**
 * What a screen must hold to whatever the text is: nothing past either edge of the window (a
 * right-to-left page overflows to the left) but inside a scroll region made to be scrolled, axe
 * clean, and, in a pseudo-language, no text that no catalog gave.
 */

/** Elements that lie past the window's left or right edge, and how wide the document lays out. */
export async function overflow(page: Page): Promise<{ width: number; scrollWidth: number; past: string[] }> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    // A scroll region made to be scrolled (focusable, as a wide table's is, or the strip of tabs) holds what is past its edge on purpose; the region itself is checked.
    const scroller = '[tabindex]:is([role=region],[role=tablist])';
    const inScrollRegion = (e: Element) => Boolean(e.parentElement?.closest(scroller) && ['auto', 'scroll'].includes(getComputedStyle(e.parentElement!.closest(scroller)!).overflowX));
    const past = [...document.querySelectorAll('body *')]
      .filter((e) => {
        if (e.getClientRects().length === 0 || inScrollRegion(e)) return false;
        const box = e.getBoundingClientRect();
        return box.right > width + 0.5 || box.left < -0.5;
      })
      .map((e) => `${e.tagName.toLowerCase()}.${e.getAttribute('class') ?? ''} ${Math.round(e.getBoundingClientRect().left)}..${Math.round(e.getBoundingClientRect().right)}`);
    return { width, scrollWidth: document.documentElement.scrollWidth, past };
  });
}

export async function expectNoOverflow(page: Page, width: number, when: string): Promise<void> {
  expect(await overflow(page), when).toEqual({ width, scrollWidth: width, past: [] });
}

export async function expectAxeClean(page: Page, when: string): Promise<void> {
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), when).toEqual([]);
}

/**
 * The words of `scope` that no catalog marked: the pseudo-languages wrap every message in ⟦ ⟧,
 * so what is left once the marked spans are cut out (innermost first, a message can hold
 * another) came from somewhere else; accessible names, titles, placeholders, images' alt texts
 * and progress bars' value texts included. Names
 * and values people gave are left out by `skip`.
 */
export async function unmarked(scope: Locator, skip: string): Promise<string[]> {
  return scope.evaluate((root, skip) => {
    const clone = root.cloneNode(true) as HTMLElement;
    if (skip) for (const node of clone.querySelectorAll(skip)) node.remove();
    // A date's full form comes from Intl, which has no pseudo-language.
    for (const time of clone.querySelectorAll('time')) time.removeAttribute('title');
    const named = ['aria-label', 'title', 'placeholder', 'alt', 'aria-valuetext'];
    const texts = [clone.innerText, ...[...clone.querySelectorAll(named.map((a) => `[${a}]`).join(','))].flatMap((el) => named.map((a) => el.getAttribute(a) ?? ''))];
    const left: string[] = [];
    for (let text of texts) {
      let before = '';
      while (before !== text) [before, text] = [text, text.replace(/⟦[^⟦⟧]*⟧/g, '')];
      const words = text.replace(/[\u202B\u202C]/g, '').split(/\s+/).filter((word) => /\p{L}/u.test(word));
      left.push(...words);
    }
    return left;
  }, skip);
}

/**
 * How far the moving bar of a session's start (indeterminate: no figure) travels along x, in px,
 * between two moments of its animation: a right-to-left page's moves left. Null until the bar is
 * shown. Run in the page.
 */
export function startBarTravel(): number | null {
  const bar = document.querySelector('.loading .progress-bar:not(.determinate)');
  const animation = bar?.getAnimations({ subtree: true })[0];
  if (!bar || !animation) return null;
  animation.pause();
  const x = (time: number) => {
    animation.currentTime = time;
    return new DOMMatrix(getComputedStyle(bar, '::after').transform).m41;
  };
  const travel = x(900) - x(300);
  animation.play();
  return travel;
}
