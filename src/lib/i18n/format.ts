/** Sizes, durations and dates in the language shown: numbers and dates through Intl, units from the catalog. */
import { currentLocale, messages } from './catalog';

function decimal(value: number, fractionDigits: number): string {
  return new Intl.NumberFormat(currentLocale(), { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }).format(value);
}

export function formatBytes(n: number): string {
  const m = messages();
  if (n < 1024) return m.size_bytes({ size: decimal(n, 0) });
  const units = [m.size_kb, m.size_mb, m.size_gb];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return units[unit]({ size: value < 10 ? decimal(value, 1) : decimal(Math.round(value), 0) });
}

export function formatDuration(ms: number): string {
  const m = messages();
  if (ms < 1000) return m.duration_ms({ ms: decimal(Math.max(1, Math.round(ms)), 0) });
  if (ms < 60_000) return m.duration_s({ s: decimal(ms / 1000, ms < 10_000 ? 2 : 1) });
  return m.duration_min_s({ min: decimal(Math.floor(ms / 60_000), 0), s: decimal(Math.round((ms % 60_000) / 1000), 0) });
}

export function formatDateTime(ms: number): string {
  return new Intl.DateTimeFormat(currentLocale(), { dateStyle: 'medium', timeStyle: 'short' }).format(ms);
}

/** "just now", "5 min ago", "3 days ago", or the date when older. */
export function formatAgo(ms: number, now = Date.now()): string {
  const m = messages();
  const s = Math.round((now - ms) / 1000);
  if (s < 45) return m.ago_now();
  if (s < 3600) return m.ago_minutes({ count: Math.round(s / 60) });
  if (s < 86_400) return m.ago_hours({ count: Math.round(s / 3600) });
  if (s < 30 * 86_400) return m.ago_days({ count: Math.round(s / 86_400) });
  return formatDateTime(ms);
}

/** A count in the language's digits and separators, for messages that take one. */
export function formatCount(n: number): string {
  return new Intl.NumberFormat(currentLocale()).format(n);
}
