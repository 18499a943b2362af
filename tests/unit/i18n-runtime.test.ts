import { Worker } from 'node:worker_threads';
import { loadPyodide } from 'pyodide';
import * as XLSX from 'xlsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLocale, tell } from '../../src/lib/i18n';
import { pythonMessages } from '../../src/lib/i18n/python';
import { timeLimitError } from '../../src/lib/sessions/host';
import { WorkerSession } from '../../workers/runtime/session';

// What PyTabs' runtime writes, read on a page shown in French: the real catalogs, real
// Pyodide running the runtime (its SheetJS bridge too), real .xlsx bytes.

const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };
/** Words of the English a runtime message would otherwise show. */
const ENGLISH = /\b(cannot|sheets?|has no|the run|took longer|time limit|was stopped|is not a valid|the content)\b/i;

let session: WorkerSession;

beforeAll(async () => {
  await setLocale('fr');
  session = new WorkerSession(await loadPyodide(), null);
  // As the page does at a session's start: the Python runtime's words in the language shown.
  session.setMessages(pythonMessages()!);
  await session.start();
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['élève', 'note'], ['Ada', 17]]), 'Notes');
  await session.writeFile('notes.xlsx', new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer));
  await session.writeFile('abimé.xlsx', new TextEncoder().encode('ceci n’est pas un classeur'));
});

afterAll(() => setLocale('en'));

describe('the runtime in French', () => {
  it("input() where nobody can answer says so in French: on the page, and in str() for a program that prints it", async () => {
    // This session was started without a way to ask the person (the page gives every worker one).
    const r = await session.run('input()', undefined, {}, limits);
    expect(r.error?.ename).toBe('EOFError');
    expect(r.error?.said).toEqual({ key: 'rt_py_w3_input_no_channel' });
    expect(tell(r.error!.said!)).toBe('input() ne peut pas attendre la personne dans cette session : elle a été démarrée sans moyen de demander.');
    expect(r.error?.evalue).toBe(tell(r.error!.said!));
  });

  it('a spreadsheet error Python raises reads in French on the page, and in str() for a program that prints it', async () => {
    const r = await session.run("read_excel('notes.xlsx', 'Devoirs')", undefined, {}, limits);
    expect(r.error?.ename).toBe('SpreadsheetError');
    expect(r.error?.said).toBeDefined();
    const shown = tell(r.error!.said!);
    expect(shown).toBe("'notes.xlsx' n'a pas de feuille 'Devoirs' ; ses feuilles sont ['Notes']");
    expect(r.error?.evalue).toBe(shown);
    let out = '';
    await session.run("try:\n    read_excel('notes.xlsx', 'Devoirs')\nexcept SpreadsheetError as e:\n    print(e)", (e) => void (e.type === 'stdout' && (out += e.text)), {}, limits);
    expect(out).toBe(`${shown}\n`);
  });

  it('a refusal of the SheetJS bridge reaches the page in French through Python', async () => {
    const r = await session.run("read_excel('abimé.xlsx')", undefined, {}, limits);
    const shown = tell(r.error!.said!);
    expect(shown).toBe("Impossible de lire 'abimé.xlsx' : ce n'est pas un fichier .xlsx valide (le contenu n'est pas une archive zip)");
    expect(shown).not.toMatch(ENGLISH);
  });

  it('a run stopped at the time limit (Python interrupted from another thread) ends with a message in French', async () => {
    const interrupt = new Uint8Array(new SharedArrayBuffer(1));
    session.setInterruptBuffer(interrupt);
    // The page's clock, on a thread of its own as in the browser: Python's loop holds this one.
    const clock = new Worker('setTimeout(() => Atomics.store(new Uint8Array(require("node:worker_threads").workerData), 0, 2), 300)', {
      eval: true,
      workerData: interrupt.buffer,
    });
    const r = await session.run('while True:\n    pass', undefined, {}, limits);
    await clock.terminate();
    expect(r.error?.ename).toBe('KeyboardInterrupt');
    const error = timeLimitError(1000);
    expect(error.ename).toBe('TimeoutError');
    const shown = tell(error.said!);
    expect(shown).toBe("L'exécution a dépassé sa limite de temps de 1 s et a été arrêtée.");
    expect(shown).not.toMatch(ENGLISH);
    // The API and logs keep English.
    expect(error.evalue).toBe('The run took longer than its time limit of 1 s and was stopped.');
  });
});
