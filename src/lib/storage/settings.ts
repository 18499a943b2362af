import { said, SaidError } from '../i18n/said';
import type { PyTabsDB } from './db';

export interface Settings {
  /** Largest pickled variable that is persisted (bytes). */
  variableLimitBytes: number;
  /** Largest total of pickled variables persisted per session (bytes). */
  sessionLimitBytes: number;
  /** Sessions not used for this many days are marked inactive. */
  inactiveAfterDays: number;
  /** Sessions not used for this many days are deleted. */
  deleteAfterDays: number;
  /** Pyodide package index (directory of pyodide-lock.json); empty means the official CDN for the shipped version. */
  packageIndexUrl: string;
  /** Per-run time limit in seconds; 0 means none. */
  runTimeoutSeconds: number;
  /** Live workers kept at once; the least recently used sleep beyond it. */
  maxLiveWorkers: number;
}

export const DEFAULT_SETTINGS: Settings = {
  variableLimitBytes: 10 * 1024 * 1024,
  sessionLimitBytes: 100 * 1024 * 1024,
  inactiveAfterDays: 7,
  deleteAfterDays: 30,
  packageIndexUrl: '',
  runTimeoutSeconds: 0,
  maxLiveWorkers: 4,
};

const KEY = 'settings';

export async function readSettings(db: PyTabsDB): Promise<Settings> {
  const stored = (await db.get('settings', KEY))?.value as Partial<Settings> | undefined;
  return { ...DEFAULT_SETTINGS, ...(stored ?? {}) };
}

export async function writeSettings(db: PyTabsDB, change: Partial<Settings>): Promise<Settings> {
  const next = { ...(await readSettings(db)), ...change };
  validateSettings(next);
  await db.put('settings', { key: KEY, value: next });
  return next;
}

function validateSettings(s: Settings): void {
  const positive: (keyof Settings)[] = ['variableLimitBytes', 'sessionLimitBytes', 'inactiveAfterDays', 'deleteAfterDays', 'maxLiveWorkers'];
  for (const key of positive) {
    const v = s[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new SaidError(said('libb_setting_positive', { setting: key }));
  }
  if (s.deleteAfterDays < s.inactiveAfterDays) throw new SaidError(said('libb_setting_delete_before_inactive'));
  if (!Number.isFinite(s.runTimeoutSeconds) || s.runTimeoutSeconds < 0) throw new SaidError(said('libb_setting_time_limit'));
  if (s.packageIndexUrl) {
    try {
      new URL(s.packageIndexUrl);
    } catch {
      throw new SaidError(said('libb_setting_index_url', { url: s.packageIndexUrl }));
    }
  }
}

/**
 * The `settings` store alone, for modules with settings of their own (the assistant's): they
 * are given this instead of the database.
 */
export class SettingsStore {
  constructor(private readonly db: PyTabsDB) {}

  async get<T>(key: string): Promise<T | undefined> {
    return (await this.db.get('settings', key))?.value as T | undefined;
  }

  async put(key: string, value: unknown): Promise<void> {
    await this.db.put('settings', { key, value });
  }

  async delete(key: string): Promise<void> {
    await this.db.delete('settings', key);
  }
}
