import { abortUnfinished } from '../storage/db';
import type { SessionManager } from './manager';

/**
 * Ties `manager` to its page's life: when the page goes, its workers end and storage is let
 * go. A page kept in the back/forward cache (Safari, Firefox; Chromium too) is frozen as it
 * is, so its unfinished transactions are aborted at once, or they would hold their stores
 * against the next page until the cache drops it; shown again from there, it reloads, since
 * what it holds was ended.
 */
export function endWithPage(manager: SessionManager): void {
  addEventListener('pagehide', (event) => {
    const { persisted } = event as PageTransitionEvent;
    void manager.dispose();
    if (persisted) abortUnfinished();
  });
  addEventListener('pageshow', (event) => {
    if ((event as PageTransitionEvent).persisted) location.reload();
  });
}
