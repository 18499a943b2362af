import { test, expect } from '@playwright/test';
import * as XLSX from 'xlsx';
import { FIRST_RUN, openApp, region, reply, send } from '../../tests/e2e/app';
import { runPython, startMockServer, stdoutOf, text, toolCalls, type Script } from '../../tests/mock-openai/server';
import { dismissStorageNotice, renameSession, scrollToTop, shoot } from './shoot';

// docs/images/assistant.png: one Ask round. No model is reachable here, so the answers come from
// the project's mock OpenAI-compatible server (tests/mock-openai), scripted as a model would
// answer; the code it proposes really runs in the session's Python, and the answer is built from
// that run's output.

const MODEL = 'llama3.1:8b';

const SALES: (string | number)[][] = [
  ['date', 'region', 'product', 'units', 'price'],
  ['2026-03-02', 'North', 'Notebook', 12, 3.5],
  ['2026-03-02', 'South', 'Pencil set', 30, 2.2],
  ['2026-03-03', 'East', 'Notebook', 8, 3.5],
  ['2026-03-04', 'North', 'Backpack', 3, 24.9],
  ['2026-03-05', 'West', 'Pencil set', 18, 2.2],
  ['2026-03-05', 'South', 'Backpack', 5, 24.9],
  ['2026-03-06', 'East', 'Calculator', 4, 12],
  ['2026-03-09', 'North', 'Calculator', 6, 12],
  ['2026-03-10', 'West', 'Notebook', 20, 3.5],
  ['2026-03-11', 'South', 'Notebook', 15, 3.5],
  ['2026-03-12', 'East', 'Backpack', 2, 24.9],
  ['2026-03-13', 'West', 'Calculator', 3, 12],
];

function workbook(): Buffer {
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(SALES), 'March');
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

const QUESTION = 'Which product brought in the most money in sales.xlsx?';

const CODE = `rows = read_excel('sales.xlsx', 'March')
revenue = {}
for r in rows:
    revenue[r['product']] = revenue.get(r['product'], 0) + r['units'] * r['price']
for product, amount in sorted(revenue.items(), key=lambda p: -p[1]):
    print(f'{product:<12} {amount:8.2f}')`;

/** The model: a sentence and the code to run, then an answer from what the code printed. */
const analyst: Script = (_request, ctx) => {
  if (ctx.turn === 0) return toolCalls([{ content: "I'll add up units × price for each product in the sheet." }, ...runPython(CODE, 'call_revenue')]);
  const lines = stdoutOf(ctx.outputs.at(-1) ?? '').split('\n').map((line) => /^(.+?)\s+([\d.]+)$/.exec(line.trim())!);
  const total = lines.reduce((sum, m) => sum + Number(m[2]), 0);
  const [top, next] = lines;
  return text(`**${top[1]}s** brought in the most, **€${top[2]}** of €${total.toFixed(2)}; ${next[1].toLowerCase()}s come next with €${next[2]}.`);
};

test('docs/images/assistant.png', async ({ page }) => {
  const server = await startMockServer({ scripts: { [MODEL]: analyst } });
  try {
    await openApp(page);
    await dismissStorageNotice(page);
    await renameSession(page, 'March sales');

    await page.getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.getByRole('combobox', { name: 'Server' }).selectOption({ label: 'Ollama' });
    await settings.getByRole('textbox', { name: 'Base URL', exact: true }).fill(server.baseUrl);
    await settings.getByRole('textbox', { name: 'Model', exact: true }).fill(MODEL);
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings).toBeHidden();

    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload files' }).click();
    await (await chooser).setFiles({ name: 'sales.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: workbook() });
    await expect(region(page, 'Files').getByRole('button', { name: 'Preview sales.xlsx' })).toBeVisible();

    await expect(page.getByRole('radio', { name: 'Ask' })).toBeChecked();
    await send(page, QUESTION);
    const round = reply(page, 1);
    await expect(round.getByRole('group', { name: 'Code 1' })).toContainText('Backpack', FIRST_RUN);
    await expect(round).toContainText('brought in the most, €249.00 of €703.10');
    await expect(round).toContainText(/Tokens used: \d+/);
    await scrollToTop(page.getByRole('article', { name: 'Message 1' }));
    await shoot(page, 'assistant.png');
  } finally {
    await server.close();
  }
});
