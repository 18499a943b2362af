import type { PyTabsDB } from '../storage/db';
import { deleteSessionData, listSessionRecords, putSession } from '../storage/sessions';
import type { Settings } from '../storage/settings';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface CleanupReport {
  markedInactive: string[];
  deleted: string[];
}

/** Marks sessions unused for `inactiveAfterDays` inactive and deletes those unused for `deleteAfterDays`. */
export async function applyCleanup(
  db: PyTabsDB,
  settings: Pick<Settings, 'inactiveAfterDays' | 'deleteAfterDays'>,
  now = Date.now(),
  keep: (sessionId: string) => boolean = () => false,
): Promise<CleanupReport> {
  const report: CleanupReport = { markedInactive: [], deleted: [] };
  // Embeds' sessions too: nothing else ever deletes one left unused.
  for (const record of await listSessionRecords(db, { embeds: true })) {
    if (keep(record.id)) continue;
    const idle = now - record.lastActiveAt;
    if (idle >= settings.deleteAfterDays * DAY_MS) {
      await deleteSessionData(db, record.id);
      report.deleted.push(record.id);
    } else if (idle >= settings.inactiveAfterDays * DAY_MS && record.status !== 'inactive') {
      await putSession(db, { ...record, status: 'inactive' });
      report.markedInactive.push(record.id);
    }
  }
  return report;
}
