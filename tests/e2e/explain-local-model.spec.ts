import { test, expect } from '@playwright/test';
import { ggufBytes } from '../../scripts/gguf.mjs';
import { FIRST_RUN, openApp, reply, send } from './app';

// "Explain this error" with the model in this browser as the only assistant (no endpoint): the
// button is offered, and asking sends the model the code, the traceback and the language to
// answer in. The model is a tiny file of random weights (scripts/gguf.mjs) on real llama.cpp, so
// what is checked is what the page hands the model's worker, never the words that come back.

declare global {
  interface Window {
    /** Each list of chat messages the page sent a worker to answer (local-model/worker-api.ts `chat`, `json`). */
    modelAsks?: { role: string; content: string }[][];
  }
}

/** A tiny model that prefers '"' then 'r': under the turn's schema it calls run_python with "r" (see local-model.spec.ts). */
const PREFERS_R = Buffer.from(ggufBytes({ shape: 'tiny', prefer: ['"', 'r'], name: 'Prefers r' }));

test('with only a model in this browser, "Explain this error" is offered and sends it the code, the traceback and the language; its round follows', async ({ page }) => {
  test.setTimeout(300_000);
  // What crosses to the model's worker, as Comlink posts it: a call of `chat` or `json` carries the messages.
  await page.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    window.modelAsks = [];
    Worker.prototype.postMessage = function (this: Worker, data: unknown, ...rest: [StructuredSerializeOptions?]) {
      const call = data as { type?: string; path?: string[]; argumentList?: { value?: unknown }[] } | null;
      if (call?.type === 'APPLY' && (call.path?.[0] === 'chat' || call.path?.[0] === 'json')) {
        const messages = call.argumentList?.find((arg) => Array.isArray(arg.value))?.value;
        window.modelAsks!.push(JSON.parse(JSON.stringify(messages)));
      }
      return post.call(this, data, ...rest);
    } as typeof Worker.prototype.postMessage;
  });
  await openApp(page);

  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('radio', { name: 'A model in this browser' }).check();
  const chooser = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Add a model file' }).click();
  await (await chooser).setFiles({ name: 'prefers-r.gguf', mimeType: 'application/octet-stream', buffer: PREFERS_R });
  await expect(dialog.getByRole('radio', { name: /^Prefers r \(431 KB\)/ })).toBeChecked();
  await expect(dialog.getByRole('textbox', { name: 'Base URL', exact: true })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Settings saved.')).toBeVisible();

  await page.getByRole('radiogroup', { name: 'Message mode' }).getByRole('radio', { name: 'Code' }).check();
  const code = 'def share(total, people):\n    return total / people\n\nprint(share(10, 0))';
  await send(page, code);
  const explanation = reply(page, 1).getByRole('group', { name: 'What went wrong, in plain words' });
  await expect(explanation).toContainText('This line divides by people, which is zero here.', FIRST_RUN);
  await explanation.getByRole('button', { name: 'Explain this error' }).click();

  // The question is the person's next message, and the model is asked it.
  await expect(page.getByRole('article', { name: 'Message 2' })).toContainText('Explain this error to me in plain words');
  const answer = reply(page, 2);
  await expect(answer).toContainText('Loading Prefers r');
  await expect.poll(() => page.evaluate(() => window.modelAsks!.length), { timeout: 120_000 }).toBeGreaterThan(0);
  const asked = (await page.evaluate(() => window.modelAsks![0])).filter((message) => message.role === 'user').at(-1)!.content;
  expect(asked).toContain('Answer in English.');
  expect(asked).toContain(`\`\`\`python\n${code}\n\`\`\``);
  expect(asked).toContain('  File "<cell-1>", line 4, in <module>\n');
  expect(asked).toContain('ZeroDivisionError: division by zero');

  // Its answer is a round like any: the run it asked for, in this session, shown in the reply;
  // the model asks for the same run again, and the round's limit on a repeated error ends it
  // (a click on Stop raced that end on a slow machine).
  await expect(answer.getByRole('group', { name: 'Code 1' })).toContainText("NameError: name 'r' is not defined", { timeout: 120_000 });
  await expect(answer).toContainText("Stopped: the same error came back 2 times (NameError: name 'r' is not defined)", { timeout: 120_000 });
  await expect(answer.getByRole('group', { name: 'Code 2' })).toContainText("NameError: name 'r' is not defined");
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
});
