import { expect, test } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../../scripts/chromium.mjs';
import { openApp } from './app';
import { MODEL_URL, modelWorkers, serveModel } from './local-models';


// This machine has no GPU: with these flags Chromium's WebGPU offers SwiftShader, which runs
// llama.cpp's WebGPU shaders on the CPU, so the path is the real one and only slow.
test.use({ launchOptions: { executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu', '--enable-unsafe-swiftshader'] } });

test('a software GPU is left for the CPU unless asked for; asked for, the model loads and answers on WebGPU; Settings says which', async ({ page }) => {
  test.setTimeout(240_000);
  await serveModel(page);
  await openApp(page);
  const load = (gpu?: 'always') =>
    page.evaluate(
      async ({ url, gpu }) => {
        const model = await window.pytabs!.loadLocalModel({ kind: 'url', url }, { seed: 7, gpu });
        window.testModel = model;
        const answer = await model.chat([{ role: 'user', content: 'Print the first rows of data.xlsx' }], { maxTokens: 16, ignoreEnd: true });
        const json = await model.json([{ role: 'user', content: 'Which tool?' }], { name: 'call', schema: { type: 'object', properties: { name: { type: 'string', enum: ['run_python'] } }, required: ['name'], additionalProperties: false } }, { maxTokens: 600 });
        return { info: model.info, answer, json };
      },
      { url: MODEL_URL, gpu },
    );

  // By default a software GPU is slower than the CPU path: the CPU, and Settings says why.
  const auto = await load();
  expect(auto.info).toMatchObject({ backend: 'cpu', backendReason: 'On the CPU: the only GPU WebGPU offers here is a software one (google swiftshader), slower than the CPU.' });
  expect(auto.answer.completionTokens).toBe(16);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('region', { name: 'This browser', exact: true })).toContainText(
    'A model in this browser: yes, on the CPU (WebGPU offers only a software GPU here, google swiftshader, slower), with up to 4 threads',
  );
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('button', { name: 'Cancel' }).click();

  // Asked for, every layer runs on WebGPU: it streams, and the schema still holds.
  const gpu = await load('always');
  expect(gpu.info).toMatchObject({ backend: 'webgpu', backendReason: 'On the GPU through WebGPU (google swiftshader).', nVocab: 515 });
  expect(gpu.answer).toMatchObject({ finish: 'length', completionTokens: 16 });
  expect(gpu.json.value).toEqual({ name: 'run_python' });
  expect(JSON.parse(gpu.json.text)).toEqual(gpu.json.value);
  console.log(`WebGPU (SwiftShader): loaded in ${gpu.info.loadMs} ms, ${((16 * 1000) / gpu.answer.decodeMs).toFixed(1)} tokens/s; the CPU ${((16 * 1000) / auto.answer.decodeMs).toFixed(1)}`);
  await page.evaluate(() => window.testModel!.unload());
  await expect.poll(() => modelWorkers(page)).toEqual([]);
});
