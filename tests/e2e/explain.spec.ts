import { test, expect, type Page } from '@playwright/test';
import { choose, chooseZips, downloaded, FIRST_RUN, openApp, reply, send } from './app';
import { runPython, startMockServer, text, toolCalls, type MockServer } from '../mock-openai/server';

// Errors a beginner can read (issue 44), through the UI by role and name on the built app with
// real Pyodide: the explanation above the traceback, in the language shown, the line marked in
// the message; "Explain this error" through the assistant (the mock model server of
// tests/mock-openai); and an assignment that turns both off for a test.

/** Settings → Language, by the names the dialog has in the language shown. */
async function chooseLanguage(page: Page, names: { button: string; dialog: string; language: string }, value: string): Promise<void> {
  await page.getByRole('button', { name: names.button, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: names.dialog });
  await dialog.getByRole('combobox', { name: names.language }).selectOption(value);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
}

const ENGLISH = { button: 'Settings', dialog: 'Settings', language: 'Language' };

/** Settings → Assistant pointed at the mock server, saved with the dialog's Save. */
async function configure(page: Page, server: MockServer, model: string): Promise<void> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('textbox', { name: 'Base URL', exact: true }).fill(server.baseUrl);
  await dialog.getByRole('textbox', { name: 'Model', exact: true }).fill(model);
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(dialog).toBeHidden();
}

const PROGRAM = 'total = 0\nfor n in [4, 8, 15]:\n    total = total + n\nprint(totl)';

test('a NameError is explained with the name the student meant, its line marked; in French once the page is', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page);
  await send(page, PROGRAM);
  const answer = reply(page, 1);
  const explanation = answer.getByRole('group', { name: 'What went wrong, in plain words' });
  await expect(explanation).toContainText('Python does not know the name totl. Did you mean total?', FIRST_RUN);
  // The traceback stays below it, as it was.
  const error = answer.getByRole('group', { name: 'Error' });
  await expect(error).toContainText("NameError: name 'totl' is not defined");
  await expect(error.locator('pre')).toHaveText(/^Traceback \(most recent call last\):\n {2}File "<cell-1>", line 4, in <module>\n/);
  expect((await explanation.boundingBox())!.y).toBeLessThan((await error.boundingBox())!.y);
  // No assistant is set: nothing offers to ask one.
  await expect(answer.getByRole('button', { name: 'Explain this error' })).toHaveCount(0);

  // The message's fourth line is marked, and says so to a screen reader.
  const message = page.getByRole('article', { name: 'Message 1' });
  const mark = message.locator('mark');
  await expect(mark).toHaveCount(1);
  await expect(mark).toHaveText('Error on line 4: print(totl)');
  await expect(message.getByText('Error on line 4:')).toHaveClass(/visually-hidden/);

  await chooseLanguage(page, ENGLISH, 'fr');
  await expect(page.getByRole('group', { name: 'Ce qui ne va pas, en mots simples' })).toContainText('Python ne connaît pas le nom totl. Voulais-tu dire total ?');
  await expect(mark).toHaveText('Erreur à la ligne 4 : print(totl)');
  // Python's own words stay as Python wrote them.
  await expect(page.getByRole('group', { name: 'Réponse au message 1' }).getByRole('group', { name: 'Erreur' })).toContainText("NameError: name 'totl' is not defined");
});

test('a Markdown message marks the line of the block that failed, counted in the message', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page);
  await send(page, 'First:\n\n```python\nnums = [4, 8, 15]\n```\n\nThen:\n\n```python\ni = len(nums)\nprint(nums[i])\n```');
  await expect(reply(page, 1).getByRole('group', { name: 'What went wrong, in plain words' })).toContainText(
    'nums has a length of 3, so its positions go from 0 to 2. There is no position 3.',
    FIRST_RUN,
  );
  await expect(page.getByRole('article', { name: 'Message 1' }).locator('mark')).toHaveText('Error on line 11: print(nums[i])');
});

test('"Explain this error" asks the assistant with the code, the traceback and the language, in the language shown', async ({ page }) => {
  test.setTimeout(180_000);
  const server = await startMockServer({ scripts: { explainer: () => text('Dividing by zero has no answer.') } });
  try {
    await openApp(page);
    await configure(page, server, 'explainer');
    await page.getByRole('radio', { name: 'Code' }).check();
    const code = 'def share(total, people):\n    return total / people\n\nprint(share(10, 0))';
    await send(page, code);
    const explanation = reply(page, 1).getByRole('group', { name: 'What went wrong, in plain words' });
    await expect(explanation).toContainText('This line divides by people, which is zero here.', FIRST_RUN);
    await expect(explanation).toContainText('It started on line 4 of this code and stopped in the function share, on line 2.');

    await explanation.getByRole('button', { name: 'Explain this error' }).click();
    await expect(reply(page, 2)).toContainText('Dividing by zero has no answer.');
    const asked = server.chats()[0].body!.messages.at(-1)!.content!;
    expect(asked).toContain('Answer in English.');
    expect(asked).toContain(`\`\`\`python\n${code}\n\`\`\``);
    expect(asked).toContain('  File "<cell-1>", line 4, in <module>\n');
    expect(asked).toContain('ZeroDivisionError: division by zero');

    await chooseLanguage(page, ENGLISH, 'fr');
    await page.getByRole('group', { name: 'Ce qui ne va pas, en mots simples' }).getByRole('button', { name: 'Expliquer cette erreur' }).click();
    await expect.poll(() => server.chats().length).toBe(2);
    const again = server.chats()[1].body!.messages.at(-1)!.content!;
    expect(again).toContain('Réponds en français.');
    expect(again).toContain('ZeroDivisionError: division by zero');
  } finally {
    await server.close();
  }
});

test("an Ask round's code card that ends in an error has its line marked and the error explained, as a Code message has", async ({ page }) => {
  test.setTimeout(180_000);
  const server = await startMockServer({
    scripts: { 'writes-a-typo': (_r, ctx) => (ctx.turn === 0 ? toolCalls(runPython(PROGRAM, 'call_typo')) : text('I misspelled total.')) },
  });
  try {
    await openApp(page);
    await configure(page, server, 'writes-a-typo');
    await page.getByRole('radio', { name: 'Ask' }).check();
    await send(page, 'Add up 4, 8 and 15.');
    await expect(reply(page, 1)).toContainText('I misspelled total.', FIRST_RUN);
    const card = reply(page, 1).getByRole('group', { name: 'Code 1' });
    await expect(card.getByRole('group', { name: 'What went wrong, in plain words' })).toContainText('Python does not know the name totl. Did you mean total?');
    await expect(card.getByRole('group', { name: 'Error' })).toContainText("NameError: name 'totl' is not defined");
    const mark = card.locator('mark');
    await expect(mark).toHaveCount(1);
    await expect(mark).toHaveText('Error on line 4: print(totl)');
    await expect(card.getByText('Error on line 4:')).toHaveClass(/visually-hidden/);
    // The question is the person's words, not code: nothing in it is marked.
    await expect(page.getByRole('article', { name: 'Message 1' }).locator('.user-msg mark')).toHaveCount(0);
    // Kept with the round: a reload draws the mark again.
    await page.reload();
    await openApp(page);
    await expect(reply(page, 1).getByRole('group', { name: 'Code 1' }).locator('mark')).toHaveText('Error on line 4: print(totl)');
  } finally {
    await server.close();
  }
});

test('a teacher turns explanations and the assistant off for a test: the student gets neither', async ({ browser }) => {
  test.setTimeout(240_000);
  const server = await startMockServer({ scripts: { explainer: () => text('not asked') } });
  try {
    const teacher = await (await browser.newContext()).newPage();
    await openApp(teacher);
    await choose(teacher, 'Upload files', [{ name: 'data.txt', text: '1\n' }]);
    await teacher.getByRole('button', { name: 'Save as assignment' }).click();
    const dialog = teacher.getByRole('dialog', { name: 'Save as assignment' });
    await dialog.getByRole('textbox', { name: 'Title' }).fill('Test 1');
    await dialog.getByRole('textbox', { name: /^Checks/ }).fill('def check_total():\n    assert total == 27\n');
    await dialog.getByRole('checkbox', { name: 'For a test: no error explanations and no assistant' }).check();
    const { data } = await downloaded(teacher, () => dialog.getByRole('button', { name: 'Save assignment' }).click());

    const student = await (await browser.newContext()).newPage();
    await openApp(student);
    await configure(student, server, 'explainer');
    // With an assistant set, a session asks it by default.
    await expect(student.getByRole('radio', { name: 'Ask' })).toBeChecked();
    await chooseZips(student, 'Import session', [{ name: 'Test 1.pytabs.zip', data }]);
    await expect(student.getByRole('heading', { name: 'Test 1', exact: true })).toBeVisible();
    await expect(student.getByRole('radiogroup', { name: 'Message mode' })).toHaveCount(0);
    await send(student, PROGRAM);
    const answer = reply(student, 1);
    await expect(answer.getByRole('group', { name: 'Error' })).toContainText("NameError: name 'totl' is not defined", FIRST_RUN);
    await expect(answer.getByRole('group', { name: 'What went wrong, in plain words' })).toHaveCount(0);
    await expect(answer.getByRole('button', { name: 'Explain this error' })).toHaveCount(0);
    expect(server.chats()).toEqual([]);
  } finally {
    await server.close();
  }
});
