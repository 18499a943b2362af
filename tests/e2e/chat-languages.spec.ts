import { readFileSync } from 'node:fs';
import { test, expect, type Locator, type Page } from '@playwright/test';
import { FIRST_RUN, openApp } from './app';
import { startMockServer, text } from '../mock-openai/server';

// The chat in French (issue 43): a Code round that asks with input(), an Ask round against the
// mock OpenAI-compatible server, on the built app with real Pyodide. Nothing PyTabs wrote in the
// chat is English, on screen or in an accessible name; what people and the model wrote stays.

type Catalog = Record<string, string | { match: Record<string, string> }[]>;
const catalog = (locale: string): Catalog => JSON.parse(readFileSync(new URL(`../../messages/${locale}.json`, import.meta.url), 'utf8'));
const wordsOf = (value: Catalog[string]) =>
  (typeof value === 'string' ? value : value.flatMap((v) => Object.values(v.match)).join(' ')).replace(/\{\w+\}/g, ' ').split(/[^\p{L}_]+/u);

/** Words of the English catalog that the French one never uses: on a French screen, they are English PyTabs wrote. */
function englishOnly(): Set<string> {
  const french = new Set(Object.values(catalog('fr')).flatMap(wordsOf).map((w) => w.toLowerCase()));
  return new Set(
    Object.values(catalog('en'))
      .flatMap(wordsOf)
      .map((w) => w.toLowerCase())
      .filter((w) => w.length > 2 && !french.has(w)),
  );
}

/**
 * The words of `scope` on screen and in its accessible names (aria-label, title, placeholder,
 * CodeMirror's own), less what people and the model wrote: code, outputs, the question, the
 * model's answer.
 */
async function pytabsWords(scope: Locator): Promise<string[]> {
  return scope.evaluate((root) => {
    const clone = root.cloneNode(true) as HTMLElement;
    for (const node of clone.querySelectorAll('pre, code, .markdown, .cm-line')) node.remove();
    // A question is the person's words; only its label is PyTabs'.
    for (const question of clone.querySelectorAll('.question')) for (const node of [...question.childNodes]) if (!(node instanceof HTMLElement && node.matches('.meta'))) node.remove();
    const named = [...clone.querySelectorAll('[aria-label],[title],[placeholder]')].flatMap((el) => ['aria-label', 'title', 'placeholder'].map((a) => el.getAttribute(a) ?? ''));
    // A name with an underscore (run_python, list_files) is a tool's name, not a word.
    return [clone.innerText, ...named].join(' ').split(/[^\p{L}_]+/u).filter((word) => word && !word.includes('_'));
  });
}

async function chooseFrench(page: Page): Promise<void> {
  await page.addInitScript(() => localStorage.setItem('pytabs-language', 'fr'));
  await openApp(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
}

test('in French, a Code round with input(), and an Ask round against the mock server: no English PyTabs wrote in the chat', async ({ page }) => {
  const server = await startMockServer();
  try {
    await chooseFrench(page);
    const chat = page.getByRole('region', { name: 'Conversation' });
    const message = page.getByRole('textbox', { name: 'Message' });
    await expect(chat.getByText('Écrivez du Python et appuyez sur Envoyer.')).toBeVisible();

    // A Code round that waits for a line: the field is named in French, its hint too.
    await message.fill("nom = input('Nom ? ')\nprint('Bonjour', nom)");
    await page.getByRole('button', { name: 'Envoyer', exact: true }).click();
    const field = page.getByRole('textbox', { name: /^Saisie pour / });
    await expect(field).toBeFocused(FIRST_RUN);
    await expect(chat.getByText('Entrée envoie la ligne ; Ctrl+D dans un champ vide termine la saisie.')).toBeVisible();
    await expect(chat.getByRole('status')).toHaveText('En cours…');
    const left = englishOnly();
    const waiting = await pytabsWords(chat);
    expect(waiting.filter((w) => left.has(w.toLowerCase()))).toEqual([]);
    await page.keyboard.type('Camille');
    await page.keyboard.press('Enter');
    const first = page.getByRole('group', { name: 'Réponse au message 1' });
    await expect(first).toContainText('Bonjour Camille');
    await expect(first).toContainText(/Terminé en/);

    // The endpoint, set in Settings → Assistant in French.
    await setEndpointInFrench(page, server.baseUrl, 'split-tool');

    // An Ask round: the model runs code through the tool, then answers.
    await page.getByRole('radiogroup', { name: 'Type de message' }).getByRole('radio', { name: 'Demander' }).check();
    await message.fill('Quel est le total de 0 à 9 ?');
    await page.getByRole('button', { name: 'Envoyer', exact: true }).click();
    const second = page.getByRole('group', { name: 'Réponse au message 2' });
    await expect(second.getByRole('group', { name: 'Code 1' })).toContainText('exécuté');
    await expect(second).toContainText(/Terminé en/);
    await expect(second).toContainText(/Jetons utilisés : \d+/);
    await second.getByRole('button', { name: 'Ce qui a été envoyé' }).click();
    const sent = page.getByRole('region', { name: 'Ce qui a été envoyé avec le message 2' });
    await expect(sent).toContainText('outils proposés : run_python');
    // What was sent is shown as sent: the system message asks the model for French.
    await expect(sent).toContainText('Answer in French (Français)');
    expect(server.chats()[0].body!.messages[0].content).toContain('Answer in French (Français)');

    const words = await pytabsWords(chat);
    expect(words.length).toBeGreaterThan(40);
    expect(words.filter((w) => left.has(w.toLowerCase()))).toEqual([]);
  } finally {
    await server.close();
  }
});

/** Sets the assistant's endpoint in Settings → Assistant, as a person does with the app in French. */
async function setEndpointInFrench(page: Page, baseUrl: string, model: string): Promise<void> {
  await page.getByRole('button', { name: 'Réglages' }).click();
  const settings = page.getByRole('dialog', { name: 'Réglages' });
  await settings.getByRole('textbox', { name: 'URL de base', exact: true }).fill(baseUrl);
  await settings.getByRole('textbox', { name: 'Modèle', exact: true }).fill(model);
  await settings.getByRole('button', { name: 'Enregistrer les réglages' }).click();
  await expect(settings).toBeHidden();
}

// A 1×1 PNG, inline: it loads from no server.
const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

test('in French, images without alt text are named in French: an output’s, the assistant’s, and a remote one’s note; in English again after a change of language', async ({ page }) => {
  const server = await startMockServer({ scripts: { pictures: () => text(`Voici :\n\n![](${PIXEL})\n\n![](https://elsewhere.example/chart.png)`) } });
  try {
    await chooseFrench(page);
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill(`class Picture:\n    def _repr_html_(self):\n        return '<img src="${PIXEL}">'\nPicture()`);
    await page.getByRole('button', { name: 'Envoyer', exact: true }).click();
    const first = page.getByRole('group', { name: 'Réponse au message 1' });
    await expect(first.getByRole('img', { name: 'Image de la sortie', exact: true })).toBeVisible(FIRST_RUN);

    await setEndpointInFrench(page, server.baseUrl, 'pictures');
    await page.getByRole('radiogroup', { name: 'Type de message' }).getByRole('radio', { name: 'Demander' }).check();
    await message.fill('Montre-moi une image.');
    await page.getByRole('button', { name: 'Envoyer', exact: true }).click();
    const second = page.getByRole('group', { name: 'Réponse au message 2' });
    await expect(second.getByRole('img', { name: 'Image de l’assistant', exact: true })).toBeVisible();
    await expect(second).toContainText('[image non chargée : https://elsewhere.example/chart.png]');

    // The same replies, drawn again in the language chosen now.
    await page.getByRole('button', { name: 'Réglages' }).click();
    await page.getByRole('dialog', { name: 'Réglages' }).getByRole('combobox', { name: 'Langue' }).selectOption('en');
    await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('group', { name: 'Reply to message 1' }).getByRole('img', { name: 'Image from output', exact: true })).toBeVisible();
    const again = page.getByRole('group', { name: 'Reply to message 2' });
    await expect(again.getByRole('img', { name: 'Image from the assistant', exact: true })).toBeVisible();
    await expect(again).toContainText('[image not loaded: https://elsewhere.example/chart.png]');
  } finally {
    await server.close();
  }
});
