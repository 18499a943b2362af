/**
 * A Svelte action for a box capped in height or width: while its content scrolls (a long
 * output, a wide table on a phone), it joins the tab order, so a keyboard can scroll it too.
 */
export function focusableWhenScrolling(node: HTMLElement): { destroy: () => void } {
  const update = () => {
    if (node.scrollHeight > node.clientHeight || node.scrollWidth > node.clientWidth) node.tabIndex = 0;
    else node.removeAttribute('tabindex');
  };
  const observer = new ResizeObserver(update);
  observer.observe(node);
  return { destroy: () => observer.disconnect() };
}
