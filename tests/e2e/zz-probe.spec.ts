import { test } from '@playwright/test';
import { ggufBytes } from '../../scripts/gguf.mjs';
import { openApp } from './app';
const tiny = Buffer.from(ggufBytes({ shape: 'tiny' }));
test('probe', async ({ page }) => {
  await page.context().route('**/models/tiny.gguf', (route) => route.fulfill({ body: tiny, contentType: 'application/octet-stream' }));
  await openApp(page);
  const out = await page.evaluate(async () => {
    const m = await window.pytabs!.loadLocalModel({ kind: 'url', url: 'models/tiny.gguf' }, { seed: 1 });
    const long = 'print(df.head()) and the numbers 12345. '.repeat(200);
    const r: unknown[] = [];
    for (const n of [1, 3, 6]) {
      r.push(await m.chat([{ role: 'user', content: long.slice(0, n * 1000) }], { maxTokens: 4 }).then((x) => ({ n, p: x.promptTokens, c: x.cachedTokens, f: x.finish, ms: x.promptMs }), (e: Error) => ({ n, e: e.message })));
    }
    return { info: m.info, r };
  });
  console.log(JSON.stringify(out));
});
