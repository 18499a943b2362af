/**
 * Excel's numbers that mean dates, times and durations. A cell holds only a number (a
 * serial: days since the workbook's epoch); its number format says what the number means.
 * The rules follow openpyxl's readers, the tests' referee: a date format makes a serial
 * below 1 a time of day and anything else a date and time; an elapsed format (`[h]`,
 * `[mm]`, `[ss]`) makes it a duration. Times are kept to the millisecond both ways.
 */

export type FormatKind = 'number' | 'date' | 'duration';

const MS_PER_DAY = 86_400_000;

/** The parts of a format section that are never date codes: quoted text, escaped and padding characters, brackets other than [h], [mm], [ss] ([Red], [$-409]). */
const NOT_CODES = /"[^"]*"|\\.|[_*].|\[(?![hms]{1,2}\])[^\]]*\]/gi;
const ELAPSED = /\[(h{1,2}|m{1,2}|s{1,2})\]/i;
const DATE_CODES = /[dmyhs]/i;

const kinds = new Map<string, FormatKind>();

/** What a number with this format means. Only the first section (positive numbers) decides, as in Excel. */
export function formatKind(format: string | undefined): FormatKind {
  if (!format || format === 'General') return 'number';
  let kind = kinds.get(format);
  if (kind === undefined) {
    const first = format.split(';')[0].replace(NOT_CODES, '');
    kind = ELAPSED.test(first) ? 'duration' : DATE_CODES.test(first) ? 'date' : 'number';
    kinds.set(format, kind);
  }
  return kind;
}

/** A date/time serial as it crosses to Python: wall-clock ISO text without a zone, or a time of day in ms. */
export type DateValue = { date: string } | { time: number };

// Serials count from 1899-12-30 in the 1900 system (so that serial 61 is 1 March 1900 after
// Lotus's phantom 29 February 1900, serial 60) and from 1904-01-01 in the 1904 system.
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** Years Python's datetime can hold. */
const FIRST = Date.parse('0001-01-01T00:00:00Z');
const LAST = Date.parse('+010000-01-01T00:00:00Z');

/**
 * A serial under a date format. Serials 1-59 of the 1900 system lie before the phantom
 * day and are one day later than a plain count; serial 60 itself (29 Feb 1900, which never
 * was) reads as 28 February, as openpyxl reads it. Null when the date is out of range.
 */
export function serialToDate(serial: number, date1904: boolean): DateValue | null {
  const day = Math.floor(serial);
  const ms = Math.round((serial - day) * MS_PER_DAY);
  if (serial >= 0 && serial < 1 && ms < MS_PER_DAY) return { time: ms };
  const shift = !date1904 && serial > 0 && serial < 60 ? 1 : 0;
  const utc = (date1904 ? EPOCH_1904 : EPOCH_1900) + (day + shift) * MS_PER_DAY + ms;
  if (!(utc >= FIRST && utc < LAST)) return null;
  return { date: isoWallClock(utc) };
}

/** A duration serial in whole milliseconds. */
export function serialToDuration(serial: number): number {
  return Math.round(serial * MS_PER_DAY);
}

function isoWallClock(utc: number): string {
  return new Date(utc).toISOString().replace(/(\.000)?Z$/, '');
}

/** The serial of a wall-clock date and time (ms since 1970 read as UTC), the inverse of serialToDate. */
export function dateToSerial(utc: number, date1904: boolean): number {
  const ms = ((utc % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
  let day = Math.round((utc - ms - (date1904 ? EPOCH_1904 : EPOCH_1900)) / MS_PER_DAY);
  if (!date1904 && day > 0 && day <= 60) day -= 1;
  return day + ms / MS_PER_DAY;
}

/** The serial of a time of day or a duration given in milliseconds. */
export function msToSerial(ms: number): number {
  return ms / MS_PER_DAY;
}
