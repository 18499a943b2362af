import type { Said } from '../i18n/said';

/** The message the page sends its service worker to keep the app for offline use (src/sw.ts). */
export const KEEP_APP = 'KEEP_APP';

export interface KeepAppRequest {
  type: typeof KEEP_APP;
  /** Download what is not kept yet; false only counts it. */
  fill: boolean;
}

/** Files in the app's precache list and how many of them are still not kept; `error` is the browser's own message, or PyTabs' said one. */
export type KeepAppReport = { files: number; missing: number } | { error: string | Said };
