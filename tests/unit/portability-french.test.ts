import 'fake-indexeddb/auto';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorText, setLocale, tell } from '../../src/lib/i18n';
import { validateWorkspacePath } from '../../src/lib/paths';
import { ImportError, decodeShare, importSession } from '../../src/lib/portability';
import { notebookFromHistory } from '../../src/lib/portability/notebook';
import type { Round } from '../../src/lib/chat/types';
import { said } from '../../src/lib/i18n/said';
import { previewFile } from '../../src/lib/workspace/preview';
import { portableDevice } from './portable-device';

// What sessions-as-files, shared links, paths and previews say reaches the person in their
// language: the library throws said texts, the page tells them (errorText, tell) in French here,
// while an error's message stays English for logs.

const bytes = (s: string) => new TextEncoder().encode(s);

beforeAll(() => setLocale('fr'));
afterAll(() => setLocale('en'));

describe('portability refusals in French', () => {
  it('an import refusal reads in French, naming the file, and writes nothing', async () => {
    const home = await portableDevice('fr-import');
    const error = await importSession(home, { name: 'essai.docx', data: zipSync({ 'word/document.xml': bytes('<w/>') }) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect(errorText(error)).toBe('Impossible d\'importer "essai.docx" : PyTabs importe des sessions (.pytabs.zip), des notebooks Jupyter (.ipynb) et des fichiers Python (.py).');
    expect((error as Error).message).toBe('Cannot import "essai.docx": PyTabs imports sessions (.pytabs.zip), Jupyter notebooks (.ipynb) and Python files (.py).');
    expect(await home.db.count('sessions')).toBe(0);
  });

  it('a shared link refusal reads in French, its reason and the JSON field it names too', async () => {
    const noData = await decodeShare('#/share?v=1').catch((e: unknown) => e);
    expect(errorText(noData)).toBe('Impossible d’ouvrir ce lien partagé : il ne porte aucune session (il faut « z=<données> »).');
    const notBase64 = await decodeShare('#/share?v=1&z=@@@').catch((e: unknown) => e);
    expect(errorText(notBase64)).toBe('Impossible d’ouvrir ce lien partagé : ses données sont endommagées (ce n’est pas du texte base64url ; le lien a-t-il été coupé ou modifié ?).');
  });

  it('a refused file name and a file with no preview read in French', async () => {
    let refused: unknown = null;
    try {
      validateWorkspacePath('../notes.txt');
    } catch (error) {
      refused = error;
    }
    expect(errorText(refused)).toBe('"../notes.txt" sortirait de l’espace de travail (« .. »).');
    const preview = await previewFile('model.bin', new Uint8Array([0, 1, 2]));
    expect(preview.kind).toBe('none');
    if (preview.kind === 'none') expect(tell(preview.reason)).toBe('Pas d’aperçu pour ce type de fichier ; téléchargez-le pour l’ouvrir.');
  });

  it("a round's error that PyTabs said is written into an exported notebook in the reader's words", () => {
    const round = { seq: 1, message: 'print(', events: [{ type: 'round_error', message: said('chat_no_code') }] } as unknown as Round;
    const notebook = notebookFromHistory([round]) as { cells: { cell_type: string; source: string }[] };
    const written = notebook.cells.filter((c) => c.cell_type === 'markdown').map((c) => c.source).join('\n');
    expect(written).toContain(tell(said('chat_no_code')));
    expect(written).not.toContain('[object Object]');
  });
});
