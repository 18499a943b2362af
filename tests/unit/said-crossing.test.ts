import * as Comlink from 'comlink';
import { afterAll, describe, expect, it } from 'vitest';
import { setLocale } from '../../src/lib/i18n/catalog';
import { carrySaidErrors } from '../../src/lib/i18n/crossing';
import { errorText, said, SaidError } from '../../src/lib/i18n/said';
import { StorageGoneError } from '../../src/lib/storage/db';
import { SpreadsheetError } from '../../workers/runtime/spreadsheets';

/**
 * A worker's refusal crosses Comlink (a real MessageChannel, as between a worker and the page)
 * with its said text, so the page tells it in the reader's language; the message stays the
 * worker's English, for logs. What is not said crosses as Comlink sends it.
 */
carrySaidErrors();

const { port1, port2 } = new MessageChannel();
const refusals = {
  empty: () => Promise.reject(new SaidError(said('chat_model_empty'))),
  architecture: () => Promise.reject(new SaidError(said('w3_model_architecture', { architecture: 'nosuch' }))),
  gone: () => Promise.reject(new StorageGoneError('pytabs')),
  sheet: () => Promise.reject(new SpreadsheetError(said('libb_no_file', { name: '"a.xlsx"' }))),
  plain: () => Promise.reject(new TypeError('Failed to fetch')),
  value: () => Promise.reject('just words'),
};
Comlink.expose(refusals, port1);
const worker = Comlink.wrap<typeof refusals>(port2);

async function caught(call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => expect.fail('it resolved'),
    (error: unknown) => error,
  );
}

afterAll(async () => {
  await setLocale('en', undefined);
  port1.close();
  port2.close();
});

describe('a said error thrown across Comlink', () => {
  it('reaches the other side as a SaidError with its said text, name and English message', async () => {
    const error = await caught(worker.architecture);
    expect(error).toBeInstanceOf(SaidError);
    expect((error as SaidError).said).toEqual({ key: 'w3_model_architecture', params: { architecture: 'nosuch' } });
    expect((error as Error).message).toBe('This model\'s architecture ("nosuch") is not one this version of llama.cpp knows.');
    const gone = await caught(worker.gone);
    expect(gone).toMatchObject({ name: 'StorageGoneError', said: { key: 'lib2_db_gone', params: { name: 'pytabs' } } });
    expect((await caught(worker.sheet)) as Error).toMatchObject({ name: 'SpreadsheetError', message: 'No file named "a.xlsx" in this session.' });
  });

  it('is told in the language shown, its message still English', async () => {
    await setLocale('fr', undefined);
    const empty = await caught(worker.empty);
    expect(errorText(empty)).toBe('Le fichier du modèle est vide.');
    expect((empty as Error).message).toBe('The model file is empty.');
    expect(errorText(await caught(worker.architecture))).toBe('L’architecture de ce modèle (« nosuch ») n’est pas connue de cette version de llama.cpp.');
    expect(errorText(await caught(worker.gone))).toBe('Le stockage de PyTabs (« pytabs ») a disparu : les données de cet appareil ont été effacées. Rechargez la page pour recommencer.');
  });

  it('leaves what is not said as Comlink sends it', async () => {
    const plain = await caught(worker.plain);
    expect(plain).toBeInstanceOf(Error);
    expect(plain).not.toBeInstanceOf(SaidError);
    expect(plain).toMatchObject({ name: 'TypeError', message: 'Failed to fetch' });
    expect(await caught(worker.value)).toBe('just words');
  });
});
