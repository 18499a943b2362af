import 'fake-indexeddb/auto';
import { describe, it, expect } from 'vitest';
import { splitMessage } from '../../src/lib/chat/blocks';
import { appendEvent, FULL_OUTPUT_CAP, newRound, OUTPUT_CAP, OUTPUT_TAIL, OutputTranscript, RICH_CAP } from '../../src/lib/chat/round';
import * as XLSX from 'xlsx';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { parseCsv, previewFile } from '../../src/lib/workspace/preview';
import { tell } from '../../src/lib/i18n/said';
import { RoundHistory } from '../../src/lib/storage/session-store';
import type { Round } from '../../src/lib/chat/types';
import { openDb } from '../../src/lib/storage/db';
import { deleteSessionData, newSessionRecord, putSession } from '../../src/lib/storage/sessions';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('splitMessage', () => {
  it('runs a plain message as one block of Python, exactly as typed', () => {
    expect(splitMessage('x = 1\nprint(x)\n')).toEqual([{ code: 'x = 1\nprint(x)\n' }]);
    expect(splitMessage('  \n ')).toEqual([]);
  });

  it('runs only the fenced Python blocks of a Markdown message, in order', () => {
    const message = [
      'First load it:',
      '```python',
      "df = load('a.csv')",
      '```',
      'Some shell, not run:',
      '```bash',
      'rm -rf /',
      '```',
      '~~~py',
      'df.head()',
      '~~~',
      '```',
      'unlabelled = True',
      '```',
    ].join('\n');
    expect(splitMessage(message).map((b) => b.code)).toEqual(["df = load('a.csv')", 'df.head()', 'unlabelled = True']);
  });

  it('keeps a shorter fence inside a longer one and runs an unclosed block to the end', () => {
    expect(splitMessage('````python\ns = """\n```\n"""\n````').map((b) => b.code)).toEqual(['s = """\n```\n"""']);
    expect(splitMessage('text\n```python\nx = 1\ny = 2').map((b) => b.code)).toEqual(['x = 1\ny = 2']);
  });

  it('strips the opening fence indentation, as CommonMark does', () => {
    expect(splitMessage('  ```python\n  if x:\n      y()\n  ```').map((b) => b.code)).toEqual(['if x:\n    y()']);
  });
});

describe('appendEvent', () => {
  it('merges streamed text of one kind and block into one event', () => {
    const round = newRound('s', 1, 'print(1)', []);
    appendEvent(round, { type: 'stdout', block: 0, text: 'a' });
    appendEvent(round, { type: 'stdout', block: 0, text: 'b' });
    appendEvent(round, { type: 'stderr', block: 0, text: 'warn' });
    appendEvent(round, { type: 'stdout', block: 0, text: 'c' });
    expect(round.events).toEqual([
      { type: 'stdout', block: 0, text: 'ab' },
      { type: 'stderr', block: 0, text: 'warn' },
      { type: 'stdout', block: 0, text: 'c' },
    ]);
  });

  it('shows at most OUTPUT_CAP characters of output, then one note that counts the rest and keeps its end', () => {
    const round = newRound('s', 1, 'spam()', []);
    const chunk = 'x'.repeat(70_000);
    for (let i = 0; i < 3; i++) appendEvent(round, { type: 'stdout', block: 0, text: chunk });
    const note = appendEvent(round, { type: 'stdout', block: 0, text: 'y'.repeat(OUTPUT_TAIL) + 'the end' });
    expect(appendEvent(round, { type: 'stderr', block: 0, text: '!' })).toBe(note);
    const kept = round.events.filter((e) => e.type === 'stdout').reduce((n, e) => n + (e as { text: string }).text.length, 0);
    expect(kept).toBe(OUTPUT_CAP);
    const notes = round.events.filter((e) => e.type === 'truncated');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ what: 'output', limit: OUTPUT_CAP, total: 3 * 70_000 + OUTPUT_TAIL + 'the end'.length + 1 });
    const tail = (notes[0] as { tail: string }).tail;
    expect([tail.length, tail.endsWith('the end!')]).toEqual([OUTPUT_TAIL, true]);
  });

  it('keeps the whole output for download, up to FULL_OUTPUT_CAP', async () => {
    const transcript = new OutputTranscript();
    transcript.add('a'.repeat(FULL_OUTPUT_CAP - 2));
    transcript.add('bcd');
    transcript.add('e');
    const text = await transcript.blob().text();
    expect([text.length, text.slice(-3)]).toEqual([FULL_OUTPUT_CAP, 'abc']);
  });

  it('falls back to the plain text of rich output beyond RICH_CAP', () => {
    const round = newRound('s', 1, 'plots()', []);
    const big = { 'text/plain': '<Figure>', 'image/png': 'A'.repeat(RICH_CAP - 100) };
    appendEvent(round, { type: 'display', block: 0, bundle: big });
    const second = appendEvent(round, { type: 'display', block: 0, bundle: big });
    expect(second).toEqual({ type: 'display', block: 0, bundle: { 'text/plain': '<Figure>' } });
    expect(round.events.filter((e) => e.type === 'truncated')).toHaveLength(1);
    expect(round.richChars).toBeLessThanOrEqual(RICH_CAP);
  });
});

describe('rounds store', () => {
  it('numbers rounds per session, lists them in order and loses them with the session', async () => {
    const db = await openDb('chat-rounds-test');
    for (const id of ['a', 'ab']) await putSession(db, newSessionRecord(id, id));
    const a = new RoundHistory(db, 'a');
    const ab = new RoundHistory(db, 'ab');
    const made = await Promise.all([1, 2, 3].map((i) => a.insert((seq) => newRound('a', seq, `m${i}`, []))));
    expect(made.map((r) => r.seq).sort()).toEqual([1, 2, 3]);
    const other = await ab.insert((seq) => newRound('ab', seq, 'other', ['data.csv']));
    expect(other.seq).toBe(1);

    const first = made.find((r) => r.seq === 1)!;
    appendEvent(first, { type: 'stdout', block: 0, text: 'done\n' });
    first.state = 'finished';
    await a.put(first);

    const listed = await a.list<Round>();
    expect(listed.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(listed[0]).toMatchObject({ state: 'finished', events: [{ type: 'stdout', text: 'done\n' }] });
    expect((await ab.list<Round>()).map((r) => r.message)).toEqual(['other']);

    await deleteSessionData(db, 'a');
    expect(await a.list()).toEqual([]);
    expect(await ab.list()).toHaveLength(1);
  });

  it("refuses a round of another session, so one session's history cannot be written through another's handle", async () => {
    const db = await openDb('chat-rounds-bound-test');
    for (const id of ['a', 'b']) await putSession(db, newSessionRecord(id, id));
    const a = new RoundHistory(db, 'a');
    await expect(a.insert((seq) => newRound('b', seq, 'stray', []))).rejects.toThrow(/belong to the session/);
    await expect(a.put(newRound('b', 1, 'stray', []))).rejects.toThrow(/belong to the session/);
    expect(await new RoundHistory(db, 'b').list()).toEqual([]);
    expect(await a.list()).toEqual([]);
  });
});

describe('file previews', () => {
  it('parses quoted CSV fields, and semicolon files', () => {
    expect(parseCsv('name,note\n"Smith, J","said ""hi"""\r\nLee,\n', 10).rows).toEqual([
      ['name', 'note'],
      ['Smith, J', 'said "hi"'],
      ['Lee', ''],
    ]);
    expect(parseCsv('a;b\n1;2', 10).rows).toEqual([['a', 'b'], ['1', '2']]);
  });

  it('shows CSV as a table, text as text, images as images, and binaries as no preview', async () => {
    expect(await previewFile('data.csv', bytes('x,y\n1,2\n'))).toEqual({ kind: 'table', rows: [['x', 'y'], ['1', '2']], truncated: false });
    expect(await previewFile('t.tsv', bytes('x\ty,z\n'))).toMatchObject({ rows: [['x', 'y,z']] });
    expect(await previewFile('notes.txt', bytes('hello'))).toEqual({ kind: 'text', text: 'hello', truncated: false });
    expect(await previewFile('plot.PNG', new Uint8Array([137, 80]))).toEqual({ kind: 'image', mime: 'image/png' });
    expect(await previewFile('blob.bin', new Uint8Array([0, 1, 2, 255]))).toMatchObject({ kind: 'none' });
    expect(await previewFile('README', bytes('plain'))).toMatchObject({ kind: 'text', text: 'plain' });
  });

  it('cuts long tables and says so', async () => {
    const csv = 'n\n' + Array.from({ length: 500 }, (_, i) => String(i)).join('\n');
    const preview = await previewFile('big.csv', bytes(csv));
    expect(preview).toMatchObject({ kind: 'table', truncated: true });
    expect((preview as { rows: string[][] }).rows).toHaveLength(200);
  });

  it('shows each sheet of a workbook, with dates, blanks and its real size', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['fruit', 'count', 'picked'], ['apple', 3, new Date(Date.UTC(2024, 4, 1))], ['pear', null, null]], { cellDates: true, UTC: true }), 'Fruit');
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(Array.from({ length: 300 }, (_, i) => Array.from({ length: 60 }, (_, c) => i * 100 + c))), 'Big');
    const data = new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
    const preview = await previewFile('book.xlsx', data);
    if (preview.kind !== 'sheets') throw new Error(`expected sheets, got ${preview.kind}`);
    expect(preview.sheets.map((s) => s.name)).toEqual(['Fruit', 'Big']);
    expect(preview.sheets[0].rows).toEqual([['fruit', 'count', 'picked'], ['apple', '3', '2024-05-01'], ['pear', '', '']]);
    const big = preview.sheets[1];
    expect([big.rows.length, big.rows[0].length, big.totalRows, big.totalColumns]).toEqual([200, 50, 300, 60]);
  });

  it('believes the cells, not the size a hostile sheet claims', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['a', 'b'], [1, 2]]), 'Huge');
    const files = unzipSync(new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer));
    const xml = strFromU8(files['xl/worksheets/sheet1.xml']);
    files['xl/worksheets/sheet1.xml'] = strToU8(xml.replace(/<dimension ref="[^"]*"/, '<dimension ref="A1:XFD1048576"'));
    const preview = await previewFile('huge.xlsx', zipSync(files));
    if (preview.kind !== 'sheets') throw new Error(`expected sheets, got ${preview.kind}`);
    expect(preview.sheets[0]).toEqual({ name: 'Huge', rows: [['a', 'b'], ['1', '2']], totalRows: 2, totalColumns: 2 });
  });

  it('says a broken workbook could not be read', async () => {
    const preview = await previewFile('broken.xlsx', bytes('PK\u0003\u0004 not really a zip'));
    expect(preview).toMatchObject({ kind: 'error', message: { key: 'lib_preview_unreadable' } });
    expect(preview.kind === 'error' && tell(preview.message)).toMatch(/^This workbook could not be read: ./);
  });
});
